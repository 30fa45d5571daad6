// TopModel over one Verilated tpu_top. Include only from the model's own library
// (testbench/host_if/top_model.cpp.in): the VM_* defines are private to it.
#ifndef TPU_TESTBENCH_HOST_IF_TOP_MODEL_IMPL_H_
#define TPU_TESTBENCH_HOST_IF_TOP_MODEL_IMPL_H_

#include "common/port_bits.h"
#include "common/verilated_harness.h"
#include "host_if/top_model.h"

namespace tpu::tb {

template <typename Vtop>
class TopModelImpl final : public TopModel {
 public:
  TopModelImpl(const TopConfig& config, const HarnessOptions& opts) : config_(config), sim_(opts) {
    TopOutputs unused;
    Eval(TopInputs{}, &unused);
    sim_.Reset(3);
  }

  const TopConfig& config() const override { return config_; }
  uint64_t cycle() const override { return sim_.cycle(); }
  // Every Tick() is followed by Eval() before the outputs are read (the TopModel protocol), so
  // the falling edge is evaluated there.
  void Tick() override { sim_.TickRising(); }

  void Reset() override {
    TopOutputs unused;
    Eval(TopInputs{}, &unused);
    sim_.Reset(3);
  }

  void Eval(const TopInputs& in, TopOutputs* out) override {
    auto& d = sim_.dut();
    const int n = static_cast<int>(config_.limits.n);
    const int beat_dws = config_.tlp_width_bits / 32;
    d.rx_valid_i = in.rx_valid;
    for (int w = 0; w < beat_dws; ++w) SetBits(d.rx_data_i, 32 * w, 32, in.rx_beat.dw[w]);
    d.rx_sop_i = in.rx_beat.sop;
    d.rx_eop_i = in.rx_beat.eop;
    d.tx_ready_i = in.tx_ready;
    d.wd_req_ready_i = in.wd_req_ready;
    d.wd_rsp_valid_i = in.wd_rsp_valid;
    if (in.wd_rsp_valid && in.wd_rsp_data) {
      for (size_t b = 0; b < in.wd_rsp_data->size(); ++b) {
        SetBits(d.wd_rsp_data_i, 8 * static_cast<int>(b), 8, (*in.wd_rsp_data)[b]);
      }
    }
    d.wd_wr_ready_i = in.wd_wr_ready;
    sim_.Eval();

    out->rx_ready = d.rx_ready_o;
    out->tx_valid = d.tx_valid_o;
    out->tx_beat.dws = beat_dws;
    for (int w = 0; w < beat_dws; ++w) out->tx_beat.dw[w] = GetBits(d.tx_data_o, 32 * w, 32);
    out->tx_beat.sop = d.tx_sop_o;
    out->tx_beat.eop = d.tx_eop_o;
    out->wd_req_valid = d.wd_req_valid_o;
    out->wd_req_addr = d.wd_req_addr_o;
    out->wd_rsp_ready = d.wd_rsp_ready_o;
    out->wd_wr_valid = d.wd_wr_valid_o;
    out->wd_wr_addr = d.wd_wr_addr_o;
    out->wd_wr_data.resize(n);
    out->wd_wr_mask.resize(n);
    if (d.wd_wr_valid_o) {
      for (int b = 0; b < n; ++b) {
        out->wd_wr_data[b] = static_cast<uint8_t>(GetBits(d.wd_wr_data_o, 8 * b, 8));
        out->wd_wr_mask[b] = GetBits(d.wd_wr_mask_o, b, 1) != 0;
      }
    }
    out->running = d.running_o;
    out->done = d.done_o;
    out->error = d.error_o;
    out->msi_sent = d.msi_sent_o;
    out->dma_busy = d.dma_busy_o;
    out->rx_drop_count = d.rx_drop_count_o;
    out->cpl_drop_count = d.cpl_drop_count_o;
    out->timeout_count = d.timeout_count_o;
  }

 private:
  TopConfig config_;
  VerilatedHarness<Vtop> sim_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_TOP_MODEL_IMPL_H_
