// ActUnitHarness over one Verilated tpu_ctrl_act_tb model. Compiled only inside that model's
// library.
#ifndef TPU_TESTBENCH_CTRL_ACT_UNIT_HARNESS_IMPL_H_
#define TPU_TESTBENCH_CTRL_ACT_UNIT_HARNESS_IMPL_H_

#include <limits>

#include "common/port_bits.h"
#include "common/verilated_harness.h"
#include "ctrl/act_unit_harness.h"

namespace tpu::tb {

template <typename Vtop, int N>
class ActUnitHarnessImpl final : public ActUnitHarness {
  static_assert(N >= 2 && N <= 64, "byte masks are 64-bit words");

 public:
  ActUnitHarnessImpl(const ActUnitConfig& config, const HarnessOptions& opts)
      : config_(config), h_(opts), ctx_(&h_.context()) {
    ctx_->errorLimit(std::numeric_limits<int>::max());
  }

  const ActUnitConfig& config() const override { return config_; }
  uint64_t cycle() const override { return h_.cycle(); }
  bool tracing() const override { return h_.tracing(); }

  void Reset() override {
    SetAbort(false);
    SetInstr(false, ActWords{}, 0);
    SetTakeGrant(false);
    SetParamWrite(false, 0, nullptr, 0);
    SetLutWrite(false, 0, nullptr, 0);
    SetAccReqReady(false);
    SetAccRsp(false, nullptr);
    SetUbWriteReady(false);
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  void SetAbort(bool abort) override { h_.dut().abort_i = abort; }
  void SetInstr(bool valid, const ActWords& words, uint32_t index) override {
    auto& d = h_.dut();
    d.instr_valid_i = valid;
    for (int w = 0; w < 4; ++w) d.instr_i[w] = valid ? words[w] : 0;
    d.index_i = valid ? index : 0;
  }
  void SetTakeGrant(bool grant) override { h_.dut().take_grant_i = grant; }
  void SetParamWrite(bool valid, uint32_t row, const uint8_t* data, uint64_t mask) override {
    auto& d = h_.dut();
    d.param_wr_valid_i = valid;
    d.param_wr_row_i = valid ? row : 0;
    for (int b = 0; b < N; ++b) SetBits(d.param_wr_data_i, 8 * b, 8, valid ? data[b] : 0);
    SetMask(d.param_wr_mask_i, valid ? mask : 0);
  }
  void SetLutWrite(bool valid, uint32_t row, const uint8_t* data, uint64_t mask) override {
    auto& d = h_.dut();
    d.lut_wr_valid_i = valid;
    d.lut_wr_row_i = valid ? row : 0;
    for (int b = 0; b < N; ++b) SetBits(d.lut_wr_data_i, 8 * b, 8, valid ? data[b] : 0);
    SetMask(d.lut_wr_mask_i, valid ? mask : 0);
  }
  void SetAccReqReady(bool ready) override { h_.dut().acc_rd_req_ready_i = ready; }
  void SetAccRsp(bool valid, const int32_t* row) override {
    auto& d = h_.dut();
    d.acc_rd_rsp_valid_i = valid;
    for (int c = 0; c < N; ++c) {
      SetBits(d.acc_rd_rsp_data_i, 32 * c, 32, valid ? uint32_t(row[c]) : 0);
    }
  }
  void SetUbWriteReady(bool ready) override { h_.dut().ub_wr_ready_i = ready; }

  bool instr_ready() override { return h_.dut().instr_ready_o; }
  bool take_valid() override { return h_.dut().take_valid_o; }
  uint8_t take_mask() override { return h_.dut().take_mask_o; }
  bool give_valid() override { return h_.dut().give_valid_o; }
  uint8_t give_mask() override { return h_.dut().give_mask_o; }
  bool idle() override { return h_.dut().idle_o; }
  bool blocked() override { return h_.dut().blocked_o; }
  bool error() override { return h_.dut().error_o; }
  int error_code() override { return h_.dut().error_code_o; }
  uint32_t error_index() override { return h_.dut().error_index_o; }
  bool stall_dep() override { return h_.dut().stall_dep_o; }
  bool row() override { return h_.dut().row_o; }
  bool param_wr_ready() override { return h_.dut().param_wr_ready_o; }
  bool lut_wr_ready() override { return h_.dut().lut_wr_ready_o; }
  bool acc_req_valid() override { return h_.dut().acc_rd_req_valid_o; }
  uint32_t acc_req_addr() override { return h_.dut().acc_rd_req_addr_o; }
  bool acc_rsp_ready() override { return h_.dut().acc_rd_rsp_ready_o; }
  bool ub_wr_valid() override { return h_.dut().ub_wr_valid_o; }
  uint32_t ub_wr_addr() override { return h_.dut().ub_wr_addr_o; }
  void GetUbWriteData(int8_t* row) override {
    for (int b = 0; b < N; ++b) row[b] = int8_t(GetBits(h_.dut().ub_wr_data_o, 8 * b, 8));
  }
  bool act_busy() override { return h_.dut().act_busy_o; }

  uint64_t assertion_failures() const override { return uint64_t(ctx_->errorCount()); }

 private:
  template <typename T>
  static void SetMask(T& port, uint64_t mask) {
    for (int b = 0; b < N; b += 32) {
      const int w = N - b < 32 ? N - b : 32;
      SetBits(port, b, w, uint32_t(mask >> b));
    }
  }

  const ActUnitConfig config_;
  VerilatedHarness<Vtop> h_;
  VerilatedContext* ctx_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CTRL_ACT_UNIT_HARNESS_IMPL_H_
