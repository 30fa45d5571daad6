// The Verilated MXU (tpu_mxu), behind an interface that does not depend on its size N, so that
// tests, the benchmark and the demo drive any size the same way.
#ifndef TPU_TESTBENCH_MXU_MXU_HARNESS_H_
#define TPU_TESTBENCH_MXU_MXU_HARNESS_H_

#include <cstdint>
#include <memory>

#include "common/harness_options.h"

namespace tpu::tb {

class MxuHarness {
 public:
  virtual ~MxuHarness() = default;

  virtual int n() const = 0;           // array size N
  virtual int latency() const = 0;     // cycles from an accepted row to its result
  virtual uint64_t cycle() const = 0;  // clock cycles since construction
  virtual bool tracing() const = 0;

  virtual void Reset() = 0;
  virtual void Tick() = 0;  // one clock cycle
  virtual void Eval() = 0;  // settle combinational outputs after changing inputs

  // Inputs hold their value until set again. `row` has n() values; ignored when !valid.
  virtual void SetWeight(bool valid, const int8_t* row) = 0;
  virtual void SetAct(bool valid, bool new_tile, const int8_t* row, uint32_t tag) = 0;

  // Outputs, valid after Eval() or Tick().
  virtual bool weight_ready() = 0;
  virtual bool act_ready() = 0;
  virtual bool tile_loaded() = 0;
  virtual bool out_valid() = 0;
  virtual uint32_t out_tag() = 0;
  virtual void GetOut(int32_t* row) = 0;  // n() values
};

// One instantiation per Verilated size, each in its own library vtpu_mxu_n<N>: link the
// library of every size you call.
template <int N>
std::unique_ptr<MxuHarness> MakeMxuHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_MXU_MXU_HARNESS_H_
