// C++ models around the activation unit harness (ActUnitHarness): the unit's queue head, a
// token stub (the writer on port 1, the unit on port 4), a writer that loads the parameter
// memory and the lookup table the way the DMA unit does (READ_HOST-like batches of byte-masked
// rows that wait for and signal tokens), an accumulator memory behind the read port (in-order
// responses with random latency, a bounded number owed, random readiness) and a UB that records
// every row written (random readiness). Every cycle it checks the unit's shared ports
// (docs/controller.md section 1a) and logs what happened. Also the reference of ACTIVATE
// (docs/isa.md) on top of host_driver/golden.
#ifndef TPU_TESTBENCH_CTRL_ACT_UNIT_ENV_H_
#define TPU_TESTBENCH_CTRL_ACT_UNIT_ENV_H_

#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "ctrl/act_unit_harness.h"
#include "golden/activation.h"
#include "isa/isa.h"

namespace tpu::tb {

// ---- Reference -----------------------------------------------------------------------------

// One parameter set: per channel the int32 bias, the int32 multiplier M0 and the shift.
struct ActParamSet {
  std::vector<int32_t> bias, multiplier;
  std::vector<int8_t> shift;  // [-31, 30]
};

// The 9 * n bytes of a set in the parameter memory (docs/controller.md, activation unit).
std::vector<uint8_t> ParamSetBytes(const ActParamSet& set, int n);

// What ACTIVATE `a` writes, in output order (row k goes to UB row a.ub + k), n int8 per row:
// the accumulator rows [a.acc, a.acc + a.rows) of `acc` (row-major, n int32 per row) through
// golden RequantizeMatrix with `set`, ApplyLut with `lut` if a.lut, then MaxPool2d / AvgPool2d.
std::vector<int8_t> ActivateReference(const isa::Activate& a, const ActParamSet& set,
                                      const golden::Lut& lut, const std::vector<int32_t>& acc,
                                      int n);

// out_rows of docs/isa.md.
int64_t ActivateOutRows(const isa::Activate& a);

// ---- Environment ---------------------------------------------------------------------------

// A run of row writes into the parameter memory (lut = false) or the table (lut = true), as
// one READ_HOST: it starts once its wait tokens are available (taking them), offers its rows in
// order and signals its tokens once the last row is taken.
struct ActWriteBatch {
  struct Row {
    uint32_t row = 0;           // byte address / n
    std::vector<uint8_t> data;  // n bytes
    uint64_t mask = 0;          // bit b: byte b written
  };
  bool lut = false;
  std::vector<Row> rows;
  uint8_t wait = 0, signal = 0;
};

// The rows that write bytes [addr, addr + bytes.size()) at row size n (partial first and last
// rows carry masks), as the DMA unit would emit them.
std::vector<ActWriteBatch::Row> BytesToRows(uint32_t addr, const std::vector<uint8_t>& bytes,
                                            int n);

struct ActEnvConfig {
  double instr_valid = 1.0;    // chance the queue offers its head in a cycle (then holds it)
  double wr_valid = 1.0;       // chance the writer offers its next row (then holds it)
  double acc_req_ready = 1.0;  // chance the accumulators accept a read, if fewer are owed
  int acc_owed_max = 4;        // reads owed (accepted, not yet taken) at most
  int acc_lat_min = 1;         // cycles from an accepted read to its response, >= 1
  int acc_lat_max = 1;
  double acc_rsp_valid = 1.0;  // chance a due response is offered (then held)
  double ub_ready = 1.0;       // chance the UB takes a write
  uint64_t seed = 1;
};

struct ActEnvLog {
  struct Instr {
    uint32_t index = 0;
    uint64_t pop = 0, grant = 0, give = 0;  // cycles (0 = not yet)
    bool granted = false, given = false, dropped = false;
    uint8_t give_mask = 0;
  };
  struct UbWrite {
    uint64_t cycle = 0;
    uint32_t addr = 0;
    std::vector<int8_t> data;
  };
  std::vector<Instr> instrs;                             // in pop order
  std::vector<std::pair<uint64_t, uint32_t>> acc_reads;  // (cycle, row) per accepted read
  std::vector<UbWrite> ub_writes;                        // in order
  std::vector<uint64_t> lut_rows_taken;                  // cycle of each table row taken
  uint64_t lut_refused_while_running = 0;  // cycles a table row was offered during a run
  uint64_t blocked_cycles = 0;             // blocked_o high
  uint64_t row_pulses = 0;                 // row_o high
};

class ActUnitEnv {
 public:
  ActUnitEnv(ActUnitHarness& h, const ActEnvConfig& cfg);

  // Memories, sized from the harness configuration. acc: acc_rows * n int32 (row-major);
  // ub: ub_rows * n int8, every write lands here.
  std::vector<int32_t> acc;
  std::vector<int8_t> ub;
  std::array<int, 8> tokens{};  // the counters of the token stub

  void PushInstr(const ActWords& words);  // queue an instruction; its index is the count so far
  void PushWrites(const ActWriteBatch& batch);
  void GiveTokens(uint8_t mask);  // another unit signals: takeable from the next cycle
  void SetAbort(bool abort) { abort_ = abort; }

  void Step();                                // one clock cycle of the whole environment
  void Run(uint64_t cycles);                  // that many Step()s
  bool Drained();                             // nothing queued, held, owed, buffered or in tpu_act
  void RunUntilDrained(uint64_t max_cycles);  // throws std::runtime_error on a hang

  uint64_t cycle() const { return cycle_; }
  size_t queued() const { return queue_.size(); }  // instructions not popped yet
  const ActEnvLog& log() const { return log_; }
  // Protocol violations seen (the first few, each with its cycle); empty when all went well.
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  struct Owed {
    uint64_t due;
    uint32_t row;
  };

  bool Chance(double p) { return p >= 1.0 || std::uniform_real_distribution<>(0, 1)(rng_) < p; }
  bool TokensAvailable(uint8_t mask, const std::array<int, 8>& count) const;
  void Error(const std::string& what);

  ActUnitHarness& h_;
  const ActEnvConfig cfg_;
  const int n_;
  std::mt19937_64 rng_;
  uint64_t cycle_ = 0;
  bool abort_ = false;

  std::deque<ActWords> queue_;
  uint32_t next_index_ = 0, pop_index_ = 0;
  bool instr_offered_ = false;

  std::deque<ActWriteBatch> writes_;
  bool batch_started_ = false;
  size_t batch_row_ = 0;
  bool row_offered_ = false;

  std::deque<Owed> owed_;
  bool rsp_offered_ = false;

  uint8_t pending_gives_ = 0;  // external gives of this cycle
  bool running_ = false;       // the held instruction was granted and has not completed
  bool held_ = false;          // an instruction was popped and has not completed or dropped

  ActEnvLog log_;
  std::vector<std::string> errors_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CTRL_ACT_UNIT_ENV_H_
