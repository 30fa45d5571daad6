// DmaHarness over one Verilated tpu_ctrl_dma model. Compiled only inside that model's library.
#ifndef TPU_TESTBENCH_CTRL_DMA_HARNESS_IMPL_H_
#define TPU_TESTBENCH_CTRL_DMA_HARNESS_IMPL_H_

#include <limits>

#include "common/port_bits.h"
#include "common/verilated_harness.h"
#include "ctrl/dma_harness.h"

namespace tpu::tb {

template <typename Vtop, int N, uint32_t UbRows>
class DmaHarnessImpl final : public DmaHarness {
  static_assert(N >= 2 && N <= 64, "byte masks are returned as 64-bit words");

 public:
  explicit DmaHarnessImpl(const HarnessOptions& opts) : h_(opts) {
    ctx_ = &h_.context();
    ctx_->errorLimit(std::numeric_limits<int>::max());
  }

  int n() const override { return N; }
  uint32_t ub_rows() const override { return UbRows; }
  uint64_t cycle() const override { return h_.cycle(); }
  bool tracing() const override { return h_.tracing(); }

  void Reset() override {
    SetAbort(false);
    SetInstr(false, DmaWords{}, 0);
    SetTakeGrant(false);
    SetHmReqReady(false);
    SetHmRsp(false, nullptr, false);
    SetDstReady(false);
    SetUbReqReady(false);
    SetUbRsp(false, nullptr);
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  void SetAbort(bool abort) override { h_.dut().abort_i = abort; }
  void SetInstr(bool valid, const DmaWords& words, uint32_t index) override {
    auto& d = h_.dut();
    d.instr_valid_i = valid;
    for (int w = 0; w < 4; ++w) d.instr_i[w] = words[w];
    d.index_i = index;
  }
  void SetTakeGrant(bool grant) override { h_.dut().take_grant_i = grant; }
  void SetHmReqReady(bool ready) override { h_.dut().hm_req_ready_i = ready; }
  void SetHmRsp(bool valid, const uint8_t* data, bool error) override {
    auto& d = h_.dut();
    d.hm_rsp_valid_i = valid;
    d.hm_rsp_error_i = valid && error;
    for (int b = 0; b < N; ++b) SetBits(d.hm_rsp_rdata_i, 8 * b, 8, valid ? data[b] : 0);
  }
  void SetDstReady(bool ready) override { h_.dut().dst_ready_i = ready; }
  void SetUbReqReady(bool ready) override { h_.dut().ub_rd_req_ready_i = ready; }
  void SetUbRsp(bool valid, const uint8_t* data) override {
    auto& d = h_.dut();
    d.ub_rd_rsp_valid_i = valid;
    for (int b = 0; b < N; ++b) SetBits(d.ub_rd_rsp_data_i, 8 * b, 8, valid ? data[b] : 0);
  }

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
  bool stall() override { return h_.dut().stall_o; }
  bool row() override { return h_.dut().row_o; }

  bool hm_req_valid() override { return h_.dut().hm_req_valid_o; }
  bool hm_req_write() override { return h_.dut().hm_req_write_o; }
  uint64_t hm_req_addr() override { return uint64_t(h_.dut().hm_req_addr_o); }
  void GetHmReqWdata(uint8_t* data) override {
    for (int b = 0; b < N; ++b) data[b] = uint8_t(GetBits(h_.dut().hm_req_wdata_o, 8 * b, 8));
  }
  uint64_t hm_req_wmask() override { return uint64_t(h_.dut().hm_req_wmask_o); }
  bool hm_rsp_ready() override { return h_.dut().hm_rsp_ready_o; }

  bool dst_valid() override { return h_.dut().dst_valid_o; }
  int dst_target() override { return h_.dut().dst_target_o; }
  uint64_t dst_row() override { return h_.dut().dst_row_o; }
  void GetDstData(uint8_t* data) override {
    for (int b = 0; b < N; ++b) data[b] = uint8_t(GetBits(h_.dut().dst_data_o, 8 * b, 8));
  }
  uint64_t dst_mask() override { return uint64_t(h_.dut().dst_mask_o); }

  bool ub_req_valid() override { return h_.dut().ub_rd_req_valid_o; }
  uint32_t ub_req_addr() override { return h_.dut().ub_rd_req_addr_o; }
  bool ub_rsp_ready() override { return h_.dut().ub_rd_rsp_ready_o; }

  uint64_t assertion_failures() const override { return uint64_t(ctx_->errorCount()); }

 private:
  VerilatedHarness<Vtop> h_;
  VerilatedContext* ctx_ = nullptr;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CTRL_DMA_HARNESS_IMPL_H_
