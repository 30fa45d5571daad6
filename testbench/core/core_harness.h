// The Verilated TPU core (rtl/tpu_core.sv) with C++ models on its memory-side ports: host
// memory behind the DMA port and the weight DRAM (sc_models/ports/memory_ports.h). Programs
// are streamed into the instruction port; Run() returns when the core reports done or an
// error, or after a cycle budget, with the status and the performance counters.
#ifndef TPU_TESTBENCH_CORE_CORE_HARNESS_H_
#define TPU_TESTBENCH_CORE_CORE_HARNESS_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/harness_options.h"
#include "isa/isa.h"
#include "model/host_memory.h"
#include "sc_models/ports/memory_ports.h"

namespace tpu::tb {

// The port models live with the system model (sc_models/ports); the harness API uses them.
using sc::DramPortModel;
using sc::HostPortModel;
using sc::PortTiming;

// The device a Verilated core was built for.
struct CoreConfig {
  isa::DeviceLimits limits;  // n, ub_rows, acc_rows, dram_bytes, param_sets
  int dram_width = 0;        // weight-DRAM read beat, bits
};

struct CoreTiming {
  PortTiming host;
  PortTiming dram;
  double instr_prob = 1.0;  // probability that the next instruction is offered in a cycle
};

// perf_o, in the order of docs/controller.md section 4.
struct CorePerf {
  enum Index {
    kCycles, kMxuBusy, kStallWeights, kStallActIn, kStallDma, kStallDep,
    kRowsDma, kRowsWeights, kRowsMatrix, kRowsAct, kCount
  };
  std::array<uint64_t, kCount> v{};
  uint64_t operator[](Index i) const { return v[i]; }
  static const char* Name(int i);
};

struct CoreRunResult {
  bool finished = false;  // done or error before the cycle budget ran out
  bool done = false;
  bool error = false;
  uint8_t error_code = 0;
  uint32_t error_index = 0;
  uint64_t cycles = 0;          // from start to the interrupt (or the budget)
  uint64_t instructions = 0;    // instructions the core took
  uint64_t irq_pulses = 0;
  CorePerf perf;
  std::string Describe() const;  // one line for failure messages
};

class CoreHarness {
 public:
  virtual ~CoreHarness() = default;

  virtual const CoreConfig& config() const = 0;
  virtual model::HostMemory& host() = 0;
  virtual model::SparseMemory& dram() = 0;
  virtual HostPortModel& host_port() = 0;
  virtual DramPortModel& dram_port() = 0;
  virtual void SetTiming(const CoreTiming& timing) = 0;
  virtual uint64_t cycle() const = 0;

  // rst_ni low for a few cycles; outstanding memory responses are dropped.
  virtual void Reset() = 0;
  // Pulses start_i, streams `program`, and clocks until done_o or error_o rises (then a few
  // more cycles to see that nothing else happens) or max_cycles have passed.
  virtual CoreRunResult Run(const std::vector<isa::Words>& program, uint64_t max_cycles) = 0;
  // Clocks `cycles` more cycles with no instruction offered.
  virtual void Idle(uint64_t cycles) = 0;
  virtual bool running() = 0;
};

// One instantiation per built configuration K (testbench/core/CMakeLists.txt), each in its
// own library vtpu_core_<K>.
template <int K>
std::unique_ptr<CoreHarness> MakeCoreHarness(const HarnessOptions& opts = {});

// The configuration of model K without building it.
template <int K>
CoreConfig CoreConfigOf();

// Encodes instructions (tpu::isa::Encode) for Run().
std::vector<isa::Words> EncodeProgram(const std::vector<isa::Instr>& program);

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CORE_CORE_HARNESS_H_
