// The Verilated pooling unit (tpu_act_pool), behind an interface that does not depend on its size
// N, so that tests and benchmarks drive any size the same way.
#ifndef TPU_TESTBENCH_ACT_POOL_ACT_POOL_HARNESS_H_
#define TPU_TESTBENCH_ACT_POOL_ACT_POOL_HARNESS_H_

#include <cstdint>
#include <memory>

#include "common/harness_options.h"

namespace tpu::tb {

// cfg_mode_i encodings (tpu_pkg::PoolMode*).
enum class PoolMode : uint8_t { kBypass = 0, kMax = 1, kAvg = 2 };

// The configuration ports.
struct ActPoolConfig {
  PoolMode mode = PoolMode::kBypass;
  int in_h = 1;  // image size in pixels
  int in_w = 1;
  int window_h = 1;
  int window_w = 1;
  int stride_h = 1;
  int stride_w = 1;
  bool same = false;   // SAME padding (else VALID)
  int act_min = -128;  // int8 clamp of the pooled values
  int act_max = 127;
};

// Limits the RTL was built with (its parameters' defaults, tpu_pkg::Pool*).
struct ActPoolLimits {
  int max_width = 64;
  int max_height = 1024;
  int max_window = 4;
  int max_stride = 4;
};

class ActPoolHarness {
 public:
  virtual ~ActPoolHarness() = default;

  virtual int n() const = 0;        // channels per row N
  virtual int latency() const = 0;  // cycles from the step ending a window to its output (6)
  virtual ActPoolLimits limits() const = 0;
  virtual uint64_t cycle() const = 0;  // clock cycles since construction
  virtual bool tracing() const = 0;

  virtual void Reset() = 0;
  virtual void Tick() = 0;  // one clock cycle
  virtual void Eval() = 0;  // settle combinational outputs after changing inputs

  // Inputs hold their value until set again. `row` has n() values, ignored when !valid.
  // SetConfig applies `cfg` while the unit is idle and clocks two cycles with no row offered
  // (the unit registers its configuration, then what it derives from it, in the two cycles
  // before an image's first row); call SetIn after it. SetConfigInputs sets the configuration inputs alone, without a clock (for tests
  // of that contract).
  virtual void SetConfig(const ActPoolConfig& cfg) = 0;
  virtual void SetConfigInputs(const ActPoolConfig& cfg) = 0;
  virtual void SetIn(bool valid, const int8_t* row, uint32_t tag) = 0;
  virtual void SetOutReady(bool ready) = 0;

  // Outputs, valid after Eval() or Tick().
  virtual bool in_ready() = 0;
  virtual bool out_valid() = 0;
  virtual bool busy() = 0;
  virtual uint32_t out_tag() = 0;
  virtual void GetOut(int8_t* row) = 0;  // n() values
};

// One instantiation per Verilated size, each in its own library vtpu_act_pool_n<N>: link the
// library of every size you call.
template <int N>
std::unique_ptr<ActPoolHarness> MakeActPoolHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACT_POOL_ACT_POOL_HARNESS_H_
