#include "host_if/dma_bench.h"

#include <stdexcept>

namespace tpu::tb {

DmaBench::DmaBench(std::unique_ptr<DmaTbModel> model, const RcConfig& rc_config, uint64_t seed)
    : model_(std::move(model)),
      rc_(&memory_, rc_config),
      writer_(&expected_, model_->config().beat_bytes(), seed * 7 + 3),
      rng_(seed) {
  if (rc_config.tlp_width_bits != model_->config().tlp_width_bits) {
    throw std::invalid_argument("DmaBench: the root complex's stream width differs from the "
                                "model's (RcConfig::tlp_width_bits)");
  }
  for (int c = 0; c < 2; ++c) {
    readers_[c] = std::make_unique<ReadClient>(&rc_, model_->config().max_read_req,
                                               model_->config().beat_bytes(),
                                               seed * 7 + 1 + static_cast<uint64_t>(c));
  }
}

void DmaBench::RequestMsi(uint64_t addr, uint16_t data) {
  msi_pulse_ = true;
  msi_addr_ = addr;
  msi_data_ = data;
}

void DmaBench::FlushReader(int c) {
  rd_flush_[c] = true;
  readers_[c]->Flush();
}

void DmaBench::FlushWriter() {
  wr_flush_ = true;
  writer_.Flush();
}

void DmaBench::Close() { wr_close_ = true; }

void DmaBench::Step() {
  const uint64_t c = model_->cycle();
  rc_.BeginCycle(c);
  for (auto& r : readers_) r->BeginCycle();
  writer_.BeginCycle();

  DmaTbInputs in;
  in.rx_valid = rc_.rx_valid();
  if (in.rx_valid) in.rx_beat = rc_.rx_beat();
  in.tx_ready = rc_.tx_ready();
  in.reg_req_ready = reg_ready_prob_ >= 1.0 ||
                     std::uniform_real_distribution<double>(0, 1)(rng_) < reg_ready_prob_;
  in.reg_rsp_valid = !reg_rsp_.empty();
  in.reg_rsp_rdata = reg_rsp_.empty() ? 0 : reg_rsp_.front();
  for (int k = 0; k < 2; ++k) {
    in.rd_flush[k] = rd_flush_[k];
    in.rd_req_valid[k] = !rd_flush_[k] && readers_[k]->req_valid();
    if (in.rd_req_valid[k]) {
      in.rd_req_addr[k] = readers_[k]->req_addr();
      in.rd_req_last[k] = readers_[k]->req_last();
    }
    in.rd_rsp_ready[k] = !rd_flush_[k] && readers_[k]->rsp_ready();
  }
  in.wr_flush = wr_flush_;
  in.wr_close = wr_close_;
  in.wr_req_valid = !wr_flush_ && writer_.req_valid();
  if (in.wr_req_valid) {
    in.wr_req_addr = writer_.req_addr();
    in.wr_req_data = writer_.req_data();
    in.wr_req_mask = writer_.req_mask();
  }
  in.msi_request = msi_pulse_;
  in.msi_addr = msi_addr_;
  in.msi_data = msi_data_;
  model_->Eval(in, &out_);

  if (in.rx_valid && out_.rx_ready) rc_.OnRxTaken();
  if (out_.tx_valid && in.tx_ready) rc_.OnTxBeat(out_.tx_beat);
  if (out_.reg_req_valid && in.reg_req_ready) {
    uint32_t& word = regs_[out_.reg_req_addr];
    if (out_.reg_req_write) {
      ++reg_writes_;
      for (int b = 0; b < 4; ++b) {
        if (out_.reg_req_be >> b & 1) {
          word = (word & ~(0xffu << (8 * b))) | (out_.reg_req_wdata & (0xffu << (8 * b)));
        }
      }
    } else {
      ++reg_reads_;
      reg_rsp_.push_back(word);
    }
  }
  if (in.reg_rsp_valid && out_.reg_rsp_ready) reg_rsp_.pop_front();
  for (int k = 0; k < 2; ++k) {
    if (in.rd_req_valid[k] && out_.rd_req_ready[k]) readers_[k]->OnReqTaken();
    if (out_.rd_rsp_valid[k] && in.rd_rsp_ready[k]) {
      readers_[k]->OnResponse(out_.rd_rsp_data[k], out_.rd_rsp_error[k]);
    }
  }
  if (in.wr_req_valid && out_.wr_req_ready) writer_.OnTaken();
  msi_sent_ += out_.msi_sent;
  cpl_unexpected_ += out_.cpl_unexpected;
  timeouts_ += out_.timeout;
  model_->Tick();

  msi_pulse_ = false;
  wr_flush_ = false;
  wr_close_ = false;
  rd_flush_ = {};
}

bool DmaBench::Run(uint64_t max_cycles) {
  for (uint64_t i = 0; i < max_cycles; ++i) {
    Step();
    if (readers_[0]->done() && readers_[1]->done() && writer_.done() && rc_.idle() &&
        out_.wr_empty && !out_.rd_busy && reg_rsp_.empty() && !out_.tx_valid) {
      return true;
    }
  }
  return false;
}

void DmaBench::Idle(uint64_t cycles) {
  for (uint64_t i = 0; i < cycles; ++i) Step();
}

}  // namespace tpu::tb
