// The Verilated instruction check (tpu_ctrl_decode), behind an interface that does not depend
// on its parameters (the device limits), so that one test drives every configuration.
#ifndef TPU_TESTBENCH_CTRL_DECODE_HARNESS_H_
#define TPU_TESTBENCH_CTRL_DECODE_HARNESS_H_

#include <array>
#include <cstdint>
#include <memory>

#include "common/harness_options.h"

namespace tpu::tb {

// The device limits one Verilated tpu_ctrl_decode was built with (docs/isa.md).
struct DecodeConfig {
  int n = 0;
  int ub_rows = 0;
  int acc_rows = 0;
  int64_t dram_bytes = 0;
  int param_sets = 0;
};

using InstrWords = std::array<uint32_t, 4>;  // word w = instruction bits [32w +: 32]

class DecodeHarness {
 public:
  virtual ~DecodeHarness() = default;

  virtual const DecodeConfig& config() const = 0;
  virtual void Reset() = 0;  // asynchronous reset; inputs go idle
  virtual void Tick() = 0;   // one clock cycle
  virtual void Eval() = 0;   // settle combinational outputs after changing inputs

  // Inputs hold their value until set again.
  virtual void SetIn(bool valid, const InstrWords& words) = 0;
  virtual void SetOutReady(bool ready) = 0;

  // Outputs, valid after Eval() or Tick().
  virtual bool in_ready() = 0;
  virtual bool out_valid() = 0;
  virtual InstrWords out_instr() = 0;
  virtual int out_error() = 0;
};

// One instantiation per Verilated configuration, each in its own library vtpu_ctrl_decode_<K>
// (K names the configuration, see testbench/ctrl/CMakeLists.txt).
template <int K>
std::unique_ptr<DecodeHarness> MakeDecodeHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CTRL_DECODE_HARNESS_H_
