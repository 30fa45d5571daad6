// The Verilated activation unit (tpu_ctrl_act) with the activation pipeline it drives (tpu_act,
// built as tpu_core builds it), test top tpu_ctrl_act_tb, port by port, behind an interface that
// does not depend on the model's parameters, so that one test drives every configuration.
// Byte b of a row is data[b]; byte masks are bit b = byte b (N <= 64).
#ifndef TPU_TESTBENCH_CTRL_ACT_UNIT_HARNESS_H_
#define TPU_TESTBENCH_CTRL_ACT_UNIT_HARNESS_H_

#include <array>
#include <cstdint>
#include <memory>

#include "common/harness_options.h"

namespace tpu::tb {

// The parameters one Verilated tpu_ctrl_act_tb was built with.
struct ActUnitConfig {
  int n = 0;           // channels per row
  int ub_rows = 0;     // UB_ROWS
  int acc_rows = 0;    // ACC_ROWS
  int param_sets = 0;  // PARAM_SETS
};

using ActWords = std::array<uint32_t, 4>;  // word w = instruction bits [32w +: 32]

class ActUnitHarness {
 public:
  virtual ~ActUnitHarness() = default;

  virtual const ActUnitConfig& config() const = 0;
  virtual uint64_t cycle() const = 0;  // clock cycles since construction
  virtual bool tracing() const = 0;

  virtual void Reset() = 0;  // clears every input, then resets the model
  virtual void Tick() = 0;   // one clock cycle
  virtual void Eval() = 0;   // settle combinational outputs after changing inputs

  // Inputs hold their value until set again. Data pointers hold n() values (ignored when
  // !valid).
  virtual void SetAbort(bool abort) = 0;
  virtual void SetInstr(bool valid, const ActWords& words, uint32_t index) = 0;
  virtual void SetTakeGrant(bool grant) = 0;
  virtual void SetParamWrite(bool valid, uint32_t row, const uint8_t* data, uint64_t mask) = 0;
  virtual void SetLutWrite(bool valid, uint32_t row, const uint8_t* data, uint64_t mask) = 0;
  virtual void SetAccReqReady(bool ready) = 0;
  virtual void SetAccRsp(bool valid, const int32_t* row) = 0;
  virtual void SetUbWriteReady(bool ready) = 0;

  // Outputs, valid after Eval() or Tick().
  virtual bool instr_ready() = 0;
  virtual bool take_valid() = 0;
  virtual uint8_t take_mask() = 0;
  virtual bool give_valid() = 0;
  virtual uint8_t give_mask() = 0;
  virtual bool idle() = 0;
  virtual bool blocked() = 0;
  virtual bool error() = 0;
  virtual int error_code() = 0;
  virtual uint32_t error_index() = 0;
  virtual bool stall_dep() = 0;
  virtual bool row() = 0;
  virtual bool param_wr_ready() = 0;
  virtual bool lut_wr_ready() = 0;
  virtual bool acc_req_valid() = 0;
  virtual uint32_t acc_req_addr() = 0;
  virtual bool acc_rsp_ready() = 0;
  virtual bool ub_wr_valid() = 0;
  virtual uint32_t ub_wr_addr() = 0;
  virtual void GetUbWriteData(int8_t* row) = 0;  // n() values
  virtual bool act_busy() = 0;                   // tpu_act busy_o

  // RTL assertions that failed since construction (the simulation goes on after one; tests
  // check this count).
  virtual uint64_t assertion_failures() const = 0;
};

// One instantiation per Verilated configuration, each in its own library vtpu_ctrl_act_<K> (K
// names the configuration, see testbench/ctrl/CMakeLists.txt).
template <int K>
std::unique_ptr<ActUnitHarness> MakeActUnitHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CTRL_ACT_UNIT_HARNESS_H_
