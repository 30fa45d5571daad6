// The Verilated unified buffer (tpu_ub), behind an interface that does not depend on its size,
// so that tests and benchmarks drive any model the same way.
#ifndef TPU_TESTBENCH_UB_UB_HARNESS_H_
#define TPU_TESTBENCH_UB_UB_HARNESS_H_

#include <cstdint>
#include <memory>

#include "common/harness_options.h"

namespace tpu::tb {

enum class UbWriter { kDma = 0, kAct = 1 };  // the two write ports
enum class UbReader { kDma = 0, kMxu = 1 };  // the two read ports

class UbHarness {
 public:
  virtual ~UbHarness() = default;

  virtual int n() const = 0;           // bytes per row
  virtual uint32_t depth() const = 0;  // rows
  virtual uint64_t cycle() const = 0;  // clock cycles since construction
  virtual bool tracing() const = 0;

  virtual void Reset() = 0;  // clears every input, then resets the model
  virtual void Tick() = 0;   // one clock cycle
  virtual void Eval() = 0;   // settle combinational outputs after changing inputs

  // Inputs hold their value until set again. `row` has n() bytes and `mask` n() flags (byte i is
  // written when mask[i] != 0; nullptr writes the whole row; the activation port has no mask and
  // ignores it). Both are ignored when !valid.
  virtual void SetWrite(UbWriter w, bool valid, uint32_t addr, const int8_t* row,
                        const uint8_t* mask) = 0;
  virtual void SetReadReq(UbReader r, bool valid, uint32_t addr) = 0;
  virtual void SetReadRspReady(UbReader r, bool ready) = 0;

  // Outputs, valid after Eval() or Tick().
  virtual bool write_ready(UbWriter w) = 0;
  virtual bool read_req_ready(UbReader r) = 0;
  virtual bool read_rsp_valid(UbReader r) = 0;
  virtual void GetReadRsp(UbReader r, int8_t* row) = 0;  // n() bytes
  virtual bool busy() = 0;

  // RTL assertions that failed since construction. The harness lets the simulation go on after
  // one (tests of out-of-range addresses expect them) and tests check this count instead.
  virtual uint64_t assertion_failures() const = 0;
};

// One instantiation per Verilated size, each in its own library vtpu_ub_n<N>: link the library
// of every size you call. The depth of each model is set in testbench/ub/CMakeLists.txt.
template <int N>
std::unique_ptr<UbHarness> MakeUbHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_UB_UB_HARNESS_H_
