// The Verilated activation pipeline (tpu_act: requantization -> pooling), behind an interface
// that does not depend on its size N, so that tests and benchmarks drive any size the same way.
#ifndef TPU_TESTBENCH_ACT_TOP_ACT_HARNESS_H_
#define TPU_TESTBENCH_ACT_TOP_ACT_HARNESS_H_

#include <cstdint>
#include <memory>

#include "act/pool/act_pool_harness.h"
#include "act/requant/act_requant_harness.h"
#include "common/harness_options.h"

namespace tpu::tb {

// The configuration ports of both stages. The pooling unit clamps with requant.act_min /
// requant.act_max (the RTL has one pair): pool.act_min and pool.act_max are ignored.
struct ActConfig {
  ActRequantConfig requant;
  ActPoolConfig pool;
};

class ActHarness {
 public:
  virtual ~ActHarness() = default;

  virtual int n() const = 0;           // channels per row N
  virtual int latency() const = 0;     // cycles from an accepted row to its bypass result (13)
  virtual uint64_t cycle() const = 0;  // clock cycles since construction
  virtual bool tracing() const = 0;

  virtual void Reset() = 0;
  virtual void Tick() = 0;  // one clock cycle
  virtual void Eval() = 0;  // settle combinational outputs after changing inputs

  // Inputs hold their value until set again. `row` has n() values, ignored when !valid.
  virtual void SetConfig(const ActConfig& cfg) = 0;
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

// One instantiation per Verilated size, each in its own library vtpu_act_n<N>: link the library
// of every size you call.
template <int N>
std::unique_ptr<ActHarness> MakeActHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACT_TOP_ACT_HARNESS_H_
