// DmaTbModel over one Verilated tpu_host_dma_tb. Include only from the model's own library
// (testbench/host_if/dma_tb_model.cpp.in): the VM_* defines are private to it.
#ifndef TPU_TESTBENCH_HOST_IF_DMA_TB_MODEL_IMPL_H_
#define TPU_TESTBENCH_HOST_IF_DMA_TB_MODEL_IMPL_H_

#include "common/port_bits.h"
#include "common/verilated_harness.h"
#include "host_if/dma_tb_model.h"

namespace tpu::tb {

template <typename Vtop>
class DmaTbModelImpl final : public DmaTbModel {
 public:
  DmaTbModelImpl(const DmaTbConfig& config, const HarnessOptions& opts)
      : config_(config), sim_(opts) {
    DmaTbOutputs unused;
    Eval(DmaTbInputs{}, &unused);
    Reset();
  }

  const DmaTbConfig& config() const override { return config_; }
  uint64_t cycle() const override { return sim_.cycle(); }
  void Tick() override { sim_.Tick(); }

  void Reset() override {
    DmaTbOutputs unused;
    Eval(DmaTbInputs{}, &unused);
    sim_.Reset(3);
  }

  void Eval(const DmaTbInputs& in, DmaTbOutputs* out) override {
    auto& d = sim_.dut();
    const int beat_dws = config_.tlp_width_bits / 32;
    const int beat_bytes = config_.beat_bytes();
    d.rx_valid_i = in.rx_valid;
    for (int w = 0; w < beat_dws; ++w) SetBits(d.rx_data_i, 32 * w, 32, in.rx_beat.dw[w]);
    d.rx_sop_i = in.rx_beat.sop;
    d.rx_eop_i = in.rx_beat.eop;
    d.tx_ready_i = in.tx_ready;
    d.reg_req_ready_i = in.reg_req_ready;
    d.reg_rsp_valid_i = in.reg_rsp_valid;
    d.reg_rsp_rdata_i = in.reg_rsp_rdata;
    d.rd_flush_i = Pack(in.rd_flush);
    d.rd_req_valid_i = Pack(in.rd_req_valid);
    d.rd_req_last_i = Pack(in.rd_req_last);
    d.rd_rsp_ready_i = Pack(in.rd_rsp_ready);
    for (int c = 0; c < 2; ++c) {
      SetBits(d.rd_req_addr_i, 64 * c, 32, static_cast<uint32_t>(in.rd_req_addr[c]));
      SetBits(d.rd_req_addr_i, 64 * c + 32, 32, static_cast<uint32_t>(in.rd_req_addr[c] >> 32));
    }
    d.wr_flush_i = in.wr_flush;
    d.wr_close_i = in.wr_close;
    d.wr_req_valid_i = in.wr_req_valid;
    d.wr_req_addr_i = in.wr_req_addr;
    for (int b = 0; b < beat_bytes; ++b) {  // zeros while no beat is offered
      const size_t i = static_cast<size_t>(b);
      SetBits(d.wr_req_data_i, 8 * b, 8, i < in.wr_req_data.size() ? in.wr_req_data[i] : 0);
    }
    d.wr_req_mask_i = in.wr_req_mask;
    d.msi_request_i = in.msi_request;
    d.msi_addr_i = in.msi_addr;
    d.msi_data_i = in.msi_data;
    sim_.Eval();

    out->rx_ready = d.rx_ready_o;
    out->tx_valid = d.tx_valid_o;
    out->tx_beat.dws = beat_dws;
    for (int w = 0; w < beat_dws; ++w) out->tx_beat.dw[w] = GetBits(d.tx_data_o, 32 * w, 32);
    out->tx_beat.sop = d.tx_sop_o;
    out->tx_beat.eop = d.tx_eop_o;
    out->reg_req_valid = d.reg_req_valid_o;
    out->reg_req_write = d.reg_req_write_o;
    out->reg_req_addr = static_cast<uint16_t>(d.reg_req_addr_o);
    out->reg_req_wdata = d.reg_req_wdata_o;
    out->reg_req_be = static_cast<uint8_t>(d.reg_req_be_o);
    out->reg_rsp_ready = d.reg_rsp_ready_o;
    for (int c = 0; c < 2; ++c) {
      out->rd_req_ready[c] = (d.rd_req_ready_o >> c) & 1;
      out->rd_rsp_valid[c] = (d.rd_rsp_valid_o >> c) & 1;
      out->rd_rsp_error[c] = (d.rd_rsp_error_o >> c) & 1;
      out->rd_rsp_data[c].resize(beat_bytes);
      for (int b = 0; b < beat_bytes; ++b) {
        out->rd_rsp_data[c][b] =
            static_cast<uint8_t>(GetBits(d.rd_rsp_data_o, 8 * (beat_bytes * c + b), 8));
      }
    }
    out->wr_req_ready = d.wr_req_ready_o;
    out->wr_empty = d.wr_empty_o;
    out->msi_sent = d.msi_sent_o;
    out->rd_busy = d.rd_busy_o;
    out->cpl_unexpected = d.cpl_unexpected_o;
    out->timeout = d.timeout_o;
    out->rx_drop_count = d.rx_drop_count_o;
  }

 private:
  static uint8_t Pack(const std::array<bool, 2>& v) {
    return static_cast<uint8_t>((v[0] ? 1 : 0) | (v[1] ? 2 : 0));
  }

  DmaTbConfig config_;
  VerilatedHarness<Vtop> sim_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_DMA_TB_MODEL_IMPL_H_
