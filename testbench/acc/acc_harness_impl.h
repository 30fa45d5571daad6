// AccHarness over one Verilated tpu_acc model. Compiled only inside that model's library.
#ifndef TPU_TESTBENCH_ACC_ACC_HARNESS_IMPL_H_
#define TPU_TESTBENCH_ACC_ACC_HARNESS_IMPL_H_

#include <limits>

#include "acc/acc_harness.h"
#include "common/port_bits.h"
#include "common/verilated_harness.h"

namespace tpu::tb {

template <typename Vtop, int N, uint32_t Depth>
class AccHarnessImpl final : public AccHarness {
 public:
  explicit AccHarnessImpl(const HarnessOptions& opts) : h_(opts) {
    // Keep a handle on the model's context to count assertion failures, and let them be
    // counted instead of aborting the process at the first one.
    ctx_ = &h_.context();
    ctx_->errorLimit(std::numeric_limits<int>::max());
  }

  int n() const override { return N; }
  uint32_t depth() const override { return Depth; }
  uint64_t cycle() const override { return h_.cycle(); }
  bool tracing() const override { return h_.tracing(); }

  void Reset() override {
    SetWrite(false, 0, false, nullptr);
    SetReadReq(false, 0);
    SetReadRspReady(false);
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  void SetWrite(bool valid, uint32_t addr, bool accumulate, const int32_t* row) override {
    auto& d = h_.dut();
    d.wr_valid_i = valid;
    d.wr_addr_i = valid ? addr : 0;
    d.wr_accumulate_i = valid && accumulate;
    for (int i = 0; i < N; ++i) SetBits(d.wr_data_i, 32 * i, 32, valid ? uint32_t(row[i]) : 0);
  }
  void SetReadReq(bool valid, uint32_t addr) override {
    h_.dut().rd_req_valid_i = valid;
    h_.dut().rd_req_addr_i = valid ? addr : 0;
  }
  void SetReadRspReady(bool ready) override { h_.dut().rd_rsp_ready_i = ready; }

  bool read_req_ready() override { return h_.dut().rd_req_ready_o; }
  bool read_rsp_valid() override { return h_.dut().rd_rsp_valid_o; }
  void GetReadRsp(int32_t* row) override {
    for (int i = 0; i < N; ++i) row[i] = int32_t(GetBits(h_.dut().rd_rsp_data_o, 32 * i, 32));
  }
  bool wr_busy() override { return h_.dut().wr_busy_o; }
  bool rd_busy() override { return h_.dut().rd_busy_o; }
  bool rd_stall() override { return h_.dut().rd_stall_o; }
  uint64_t assertion_failures() const override { return uint64_t(ctx_->errorCount()); }

 private:
  VerilatedHarness<Vtop> h_;
  VerilatedContext* ctx_ = nullptr;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACC_ACC_HARNESS_IMPL_H_
