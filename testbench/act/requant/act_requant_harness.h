// The Verilated requantization stage (tpu_act_requant), behind an interface that does not depend
// on its size N, so that tests and the benchmark drive any size the same way.
#ifndef TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_HARNESS_H_
#define TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_HARNESS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "common/harness_options.h"

namespace tpu::tb {

// The configuration ports, one value per output channel where the RTL has one per lane.
struct ActRequantConfig {
  std::vector<int32_t> bias;        // n() values, added with int32 wraparound
  std::vector<int32_t> multiplier;  // n() values: M0 (Q0.31)
  std::vector<int> shift;           // n() values in [-31, 30], > 0 shifts left (TFLite)
  int32_t out_zero_point = 0;       // int8
  int32_t act_min = -128;           // int8 clamp bounds, act_min <= act_max
  int32_t act_max = 127;
  bool lut_enable = false;  // pass clamped values through the lookup table
};

class ActRequantHarness {
 public:
  virtual ~ActRequantHarness() = default;

  virtual int n() const = 0;           // channels per row N
  virtual int latency() const = 0;     // cycles from an accepted row to its result (7)
  virtual uint64_t cycle() const = 0;  // clock cycles since construction
  virtual bool tracing() const = 0;

  virtual void Reset() = 0;
  virtual void Tick() = 0;  // one clock cycle
  virtual void Eval() = 0;  // settle combinational outputs after changing inputs

  // Inputs hold their value until set again. Vectors and rows have n() values; `row` is
  // ignored when !valid.
  virtual void SetConfig(const ActRequantConfig& cfg) = 0;
  virtual void SetLutWrite(bool we, uint8_t addr, int8_t data) = 0;
  virtual void SetIn(bool valid, const int32_t* row, uint32_t tag) = 0;
  virtual void SetOutReady(bool ready) = 0;

  // Outputs, valid after Eval() or Tick().
  virtual bool in_ready() = 0;
  virtual bool out_valid() = 0;
  virtual bool busy() = 0;
  virtual uint32_t out_tag() = 0;
  virtual void GetOut(int8_t* row) = 0;  // n() values
};

// One instantiation per Verilated size, each in its own library vtpu_act_requant_n<N>: link the
// library of every size you call.
template <int N>
std::unique_ptr<ActRequantHarness> MakeActRequantHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_HARNESS_H_
