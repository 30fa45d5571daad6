// Drives a Verilated weight FIFO cycle by cycle against the reference model (WfifoModel) and
// checks, every cycle, both handshakes, the offered row and every status output. Independently
// of the model, every row handed out must be the next N bytes of the byte stream the FIFO took.
#ifndef TPU_TESTS_RTL_WFIFO_WFIFO_CHECKER_H_
#define TPU_TESTS_RTL_WFIFO_WFIFO_CHECKER_H_

#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "wfifo/wfifo_harness.h"
#include "wfifo/wfifo_model.h"

namespace tpu::tb {

// A valid or ready signal over time: always on, off, on with a fixed probability each cycle,
// or in bursts (runs of on and of off cycles, each 1..max_run long).
class Gate {
 public:
  enum class Mode { kAlways, kNever, kRandom, kBursty };
  static Gate Always() { return Gate(Mode::kAlways, 0.0, 0); }
  static Gate Never() { return Gate(Mode::kNever, 0.0, 0); }
  static Gate Random(double p_on) { return Gate(Mode::kRandom, p_on, 0); }
  static Gate Bursty(int max_run) { return Gate(Mode::kBursty, 0.0, max_run); }

  bool Next(std::mt19937_64& rng);

 private:
  Gate(Mode mode, double p_on, int max_run) : mode_(mode), p_on_(p_on), max_run_(max_run) {}
  Mode mode_;
  double p_on_;
  int max_run_;
  bool on_ = false;
  int left_ = 0;  // cycles left in the current burst
};

struct WfifoCounters {
  uint64_t cycles = 0;
  uint64_t beats_in = 0;      // beats taken
  uint64_t rows_out = 0;      // rows handed out
  uint64_t full_cycles = 0;   // cycles with full_o
  uint64_t became_full = 0;   // times full_o rose
  uint64_t became_empty = 0;  // times empty_o rose (drained, flushed or reset)
  uint64_t flushes = 0;       // cycles with flush_i
  int max_rows = 0;
  int max_tiles = 0;
};

class WfifoChecker {
 public:
  WfifoChecker(WfifoHarness& dut, uint64_t seed);

  // One clock cycle with these inputs (the DRAM data is the next beat of a random byte
  // stream). Checks every output against the model first; returns false, after reporting the
  // mismatch as a test failure, if any differs.
  bool Cycle(bool flush, bool dram_valid, bool weight_ready);
  // Asynchronous reset of the FIFO, and the model emptied with it.
  void Reset();

  bool in_fire() const { return in_fire_; }    // of the last Cycle()
  bool out_fire() const { return out_fire_; }  // of the last Cycle()
  const WfifoModel& model() const { return model_; }
  const WfifoCounters& counters() const { return counters_; }

 private:
  void NewBeat();
  bool Fail(const std::string& what);

  WfifoHarness& dut_;
  WfifoModel model_;
  std::mt19937_64 rng_;
  std::vector<uint8_t> beat_;   // the beat offered until it is taken
  std::deque<uint8_t> stream_;  // bytes taken and not yet handed out in a row
  std::vector<uint8_t> row_;
  bool in_fire_ = false, out_fire_ = false;
  bool was_full_ = false, was_empty_ = true;
  WfifoCounters counters_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTS_RTL_WFIFO_WFIFO_CHECKER_H_
