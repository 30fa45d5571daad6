// HostRegsHarness over one Verilated tpu_host_regs model. Compiled only inside vtpu_host_regs.
#ifndef TPU_TESTBENCH_HOST_IF_HOST_REGS_HARNESS_IMPL_H_
#define TPU_TESTBENCH_HOST_IF_HOST_REGS_HARNESS_IMPL_H_

#include <limits>

#include "common/port_bits.h"
#include "common/verilated_harness.h"
#include "host_if/host_regs_harness.h"

namespace tpu::tb {

template <typename Vtop>
class HostRegsHarnessImpl final : public HostRegsHarness {
 public:
  HostRegsHarnessImpl(const HostRegsConfig& config, const HarnessOptions& opts)
      : config_(config), h_(opts) {
    // Count assertion failures instead of aborting at the first one.
    ctx_ = &h_.context();
    ctx_->errorLimit(std::numeric_limits<int>::max());
  }

  const HostRegsConfig& config() const override { return config_; }
  uint64_t cycle() const override { return h_.cycle(); }

  void Reset() override {
    SetRequest(false, false, 0, 0, 0);
    SetRspReady(false);
    SetStatus(HostRegsStatus{});
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  void SetRequest(bool valid, bool write, uint32_t addr, uint32_t wdata, uint8_t be) override {
    auto& d = h_.dut();
    d.req_valid_i = valid;
    d.req_write_i = write;
    d.req_addr_i = addr;
    d.req_wdata_i = wdata;
    d.req_be_i = be;
  }
  void SetRspReady(bool ready) override { h_.dut().rsp_ready_i = ready; }
  void SetStatus(const HostRegsStatus& s) override {
    auto& d = h_.dut();
    d.running_i = s.running;
    d.done_i = s.done;
    d.error_i = s.error;
    d.error_code_i = s.error_code;
    d.error_index_i = s.error_index;
    d.irq_i = s.irq;
    for (int i = 0; i < kHostRegsPerfCounters; ++i) {
      SetBits(d.perf_i, 64 * i, 32, uint32_t(s.perf[i]));
      SetBits(d.perf_i, 64 * i + 32, 32, uint32_t(s.perf[i] >> 32));
    }
    d.ring_fetch_error_i = s.ring_fetch_error;
    d.ring_head_i = s.ring_head;
    d.dma_busy_i = s.dma_busy;
  }

  bool req_ready() override { return h_.dut().req_ready_o; }
  bool rsp_valid() override { return h_.dut().rsp_valid_o; }
  uint32_t rsp_rdata() override { return h_.dut().rsp_rdata_o; }
  HostRegsOutputs outputs() override {
    auto& d = h_.dut();
    HostRegsOutputs o;
    o.soft_reset = d.soft_reset_o;
    o.irq_enable = d.irq_enable_o;
    o.irq_mask = d.irq_mask_o;
    o.msi_addr = d.msi_addr_o;
    o.msi_data = d.msi_data_o;
    o.ring_base = d.ring_base_o;
    o.ring_size = d.ring_size_o;
    o.ring_tail = d.ring_tail_o;
    o.doorbell = d.doorbell_o;
    o.msi_request = d.msi_request_o;
    return o;
  }
  uint64_t assertion_failures() const override { return uint64_t(ctx_->errorCount()); }

 private:
  HostRegsConfig config_;
  VerilatedHarness<Vtop> h_;
  VerilatedContext* ctx_ = nullptr;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_HOST_REGS_HARNESS_IMPL_H_
