// BeatAdapterHarness over one Verilated tpu_host_beat_adapter. Compiled only inside
// vtpu_beat_adapter (testbench/host_if/beat_adapter_model.cpp.in).
#ifndef TPU_TESTBENCH_HOST_IF_BEAT_ADAPTER_HARNESS_IMPL_H_
#define TPU_TESTBENCH_HOST_IF_BEAT_ADAPTER_HARNESS_IMPL_H_

#include <limits>

#include "common/port_bits.h"
#include "common/verilated_harness.h"
#include "host_if/beat_adapter_harness.h"

namespace tpu::tb {

template <typename Vtop>
class BeatAdapterHarnessImpl final : public BeatAdapterHarness {
 public:
  BeatAdapterHarnessImpl(const BeatAdapterConfig& config, const HarnessOptions& opts)
      : config_(config), h_(opts) {
    // Count assertion failures instead of aborting at the first one.
    h_.context().errorLimit(std::numeric_limits<int>::max());
    Reset();
  }

  const BeatAdapterConfig& config() const override { return config_; }
  uint64_t cycle() const override { return h_.cycle(); }
  void Reset() override {
    BeatAdapterOutputs unused;
    Eval(BeatAdapterInputs{}, &unused);
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  uint64_t assertion_failures() const override {
    return static_cast<uint64_t>(const_cast<VerilatedHarness<Vtop>&>(h_).context().errorCount());
  }

  void Eval(const BeatAdapterInputs& in, BeatAdapterOutputs* out) override {
    auto& d = h_.dut();
    const int n = config_.n;
    const int eb = config_.engine_bytes();
    d.flush_i = in.flush;
    d.hm_req_valid_i = in.hm_req_valid;
    d.hm_req_write_i = in.hm_req_write;
    d.hm_req_addr_i = in.hm_req_addr;
    for (int b = 0; b < n; ++b) {
      const bool has = static_cast<size_t>(b) < in.hm_req_wdata.size();
      SetBits(d.hm_req_wdata_i, 8 * b, 8, has ? in.hm_req_wdata[b] : 0);
      const bool m = static_cast<size_t>(b) < in.hm_req_wmask.size() && in.hm_req_wmask[b];
      SetBits(d.hm_req_wmask_i, b, 1, m ? 1 : 0);
    }
    d.hm_rsp_ready_i = in.hm_rsp_ready;
    d.rd_req_ready_i = in.rd_req_ready;
    d.rd_rsp_valid_i = in.rd_rsp_valid;
    for (int b = 0; b < eb; ++b) {
      const bool has = static_cast<size_t>(b) < in.rd_rsp_data.size();
      SetBits(d.rd_rsp_data_i, 8 * b, 8, has ? in.rd_rsp_data[b] : 0);
    }
    d.rd_rsp_error_i = in.rd_rsp_error;
    d.wr_req_ready_i = in.wr_req_ready;
    h_.Eval();

    out->hm_req_ready = d.hm_req_ready_o;
    out->hm_rsp_valid = d.hm_rsp_valid_o;
    out->hm_rsp_rdata.resize(n);
    for (int b = 0; b < n; ++b) {
      out->hm_rsp_rdata[b] = static_cast<uint8_t>(GetBits(d.hm_rsp_rdata_o, 8 * b, 8));
    }
    out->hm_rsp_error = d.hm_rsp_error_o;
    out->rd_req_valid = d.rd_req_valid_o;
    out->rd_req_addr = d.rd_req_addr_o;
    out->rd_rsp_ready = d.rd_rsp_ready_o;
    out->wr_req_valid = d.wr_req_valid_o;
    out->wr_req_addr = d.wr_req_addr_o;
    out->wr_req_data.resize(eb);
    for (int b = 0; b < eb; ++b) {
      out->wr_req_data[b] = static_cast<uint8_t>(GetBits(d.wr_req_data_o, 8 * b, 8));
    }
    out->wr_req_mask = static_cast<uint64_t>(d.wr_req_mask_o);
    out->wr_held = d.wr_held_o;
  }

 private:
  BeatAdapterConfig config_;
  VerilatedHarness<Vtop> h_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_BEAT_ADAPTER_HARNESS_IMPL_H_
