// The Verilated accumulators (tpu_acc), behind an interface that does not depend on their size,
// so that tests and benchmarks drive any model the same way.
#ifndef TPU_TESTBENCH_ACC_ACC_HARNESS_H_
#define TPU_TESTBENCH_ACC_ACC_HARNESS_H_

#include <cstdint>
#include <memory>

#include "common/harness_options.h"

namespace tpu::tb {

class AccHarness {
 public:
  virtual ~AccHarness() = default;

  virtual int n() const = 0;           // int32 lanes per row
  virtual uint32_t depth() const = 0;  // rows, both regions; region 1 starts at depth() / 2
  virtual uint64_t cycle() const = 0;  // clock cycles since construction
  virtual bool tracing() const = 0;

  virtual void Reset() = 0;  // clears every input, then resets the model
  virtual void Tick() = 0;   // one clock cycle
  virtual void Eval() = 0;   // settle combinational outputs after changing inputs

  // Inputs hold their value until set again. `row` has n() values; ignored when !valid. A valid
  // write is always taken (the write port has no ready).
  virtual void SetWrite(bool valid, uint32_t addr, bool accumulate, const int32_t* row) = 0;
  virtual void SetReadReq(bool valid, uint32_t addr) = 0;
  virtual void SetReadRspReady(bool ready) = 0;

  // Outputs, valid after Eval() or Tick().
  virtual bool read_req_ready() = 0;
  virtual bool read_rsp_valid() = 0;
  virtual void GetReadRsp(int32_t* row) = 0;  // n() values
  virtual bool wr_busy() = 0;
  virtual bool rd_busy() = 0;
  virtual bool rd_stall() = 0;

  // RTL assertions that failed since construction. The harness lets the simulation go on after
  // one (tests of out-of-range addresses expect them) and tests check this count instead.
  virtual uint64_t assertion_failures() const = 0;
};

// One instantiation per Verilated size, each in its own library vtpu_acc_n<N>: link the library
// of every size you call. The depth of each model is set in testbench/acc/CMakeLists.txt.
template <int N>
std::unique_ptr<AccHarness> MakeAccHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACC_ACC_HARNESS_H_
