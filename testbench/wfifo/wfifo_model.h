// Cycle-level reference model of the weight FIFO's contract (see rtl/wfifo/tpu_wfifo.sv), used
// as the scoreboard of the RTL tests: it predicts, for every cycle, both ready/valid outputs,
// the row offered and every status output, from the inputs of the cycles before.
//
// The contract it encodes: DRAM beats form a byte stream that is cut into rows of N bytes;
// storage is `depth_tiles * N` rows in words of max(1, beat/row) rows plus an output register
// holding the rest of one word; a word is written at the edge its last beat is taken and moves
// to the output register at the next edge at which that register is empty or hands out its last
// row; a beat that completes a word is taken only while fewer than the memory's words are held;
// nothing is taken or offered while flush is high, and a flush drops everything.
#ifndef TPU_TESTBENCH_WFIFO_WFIFO_MODEL_H_
#define TPU_TESTBENCH_WFIFO_WFIFO_MODEL_H_

#include <cstdint>
#include <deque>
#include <vector>

#include "wfifo/wfifo_harness.h"

namespace tpu::tb {

class WfifoModel {
 public:
  using Row = std::vector<uint8_t>;

  explicit WfifoModel(const WfifoConfig& config);

  // Outputs of the current cycle, given this cycle's flush input.
  bool dram_ready(bool flush) const;
  bool weight_valid(bool flush) const { return !flush && !out_.empty(); }
  const Row& row() const { return out_.front(); }  // only while weight_valid()
  int rows() const;
  int tiles() const;  // whole tiles held of which no row has left
  bool empty() const { return rows() == 0; }
  bool full() const { return int(mem_.size()) == words_; }

  // Total rows the FIFO can hold: the memory plus one word in the output register.
  int capacity_rows() const { return words_ * rows_per_word_ + rows_per_word_; }

  // One clock edge with this cycle's inputs (`beat` ignored unless dram_valid).
  void Step(bool flush, bool dram_valid, const uint8_t* beat, bool weight_ready);
  void Reset();  // empty, as after reset or flush

 private:
  WfifoConfig config_;
  int word_bytes_;                // bytes written to the memory at once: max(beat, row)
  int rows_per_word_;             // rows per memory word
  int words_;                     // memory depth in words
  std::vector<uint8_t> partial_;  // beats of the word being received
  std::deque<std::vector<Row>> mem_;
  std::deque<Row> out_;    // rows left in the output register
  uint64_t rows_in_ = 0;   // rows written since the last reset or flush
  uint64_t rows_out_ = 0;  // rows handed out since the last reset or flush
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_WFIFO_WFIFO_MODEL_H_
