#include "sc_models/system/rtl_device.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sc_models/pcie_link.h"
#include "sc_models/tlp_payload.h"

namespace tpu::sys {

RtlDevice::RtlDevice(sc_core::sc_module_name name, std::unique_ptr<TopModel> model,
                     sc::DramPortModel* dram, const RtlDeviceConfig& config)
    : sc_core::sc_module(name),
      rx("rx"),
      tx("tx"),
      model_(std::move(model)),
      dram_(dram),
      config_(config),
      period_(1e3 / config.clock_mhz, sc_core::SC_NS) {
  if (config.clock_mhz <= 0) throw std::invalid_argument("RtlDevice: clock_mhz must be > 0");
  if (config.tx_buffer_tlps < 1) throw std::invalid_argument("RtlDevice: tx_buffer_tlps >= 1");
  sc::CheckBeatDws(model_->config().tlp_width_bits / 32);  // the codec's widths (throws)
  rx.register_b_transport(this, &RtlDevice::b_transport);
  SC_THREAD(ClockThread);
  // The Verilated model's eval runs on this thread's stack, and a large model's generated
  // functions keep big temporaries there: at N = 256 one frame of tpu_top's is 567 KiB, beyond
  // SystemC's default of 256 KiB (the stack is reserved, not touched, beyond what it uses).
  set_stack_size(kClockThreadStackBytes);
  SC_THREAD(TxThread);
}

void RtlDevice::SetCycleHook(uint64_t every, std::function<void(uint64_t)> hook) {
  hook_every_ = every;
  hook_ = std::move(hook);
}

RtlDevice::Stats RtlDevice::stats() const {
  // Cycles run ahead of the caller's time are not counted yet (nothing else changes the
  // counters before the horizon they ran up to).
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (ahead_.empty() || ahead_.back().time <= now) return stats_;
  if (ahead_.front().time > now) return behind_;
  size_t i = 0;
  while (ahead_[i + 1].time <= now) ++i;
  return ahead_[i].stats;
}

void RtlDevice::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint8_t* image = trans.get_data_ptr();
  const size_t size = trans.get_data_length();
  if (trans.get_command() != tlm::TLM_WRITE_COMMAND) {
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  std::vector<sc::TlpBeat> beats;
  try {
    beats = sc::TlpImageToBeats(image, size, model_->config().tlp_width_bits / 32);
  } catch (const sc::TlpError&) {
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  rx_beats_.insert(rx_beats_.end(), beats.begin(), beats.end());
  ++stats_.tlps_in;
  // Beats beyond the buffer take a cycle each to drain before the next TLP can come in.
  if (rx_beats_.size() > config_.rx_buffer_beats) {
    delay += period_ * static_cast<double>(rx_beats_.size() - config_.rx_buffer_beats);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  rx_event_.notify(sc_core::SC_ZERO_TIME);
}

void RtlDevice::OnTxBeat(const sc::TlpBeat& beat) {
  if (beat.sop && !tx_beats_.empty()) {
    throw std::runtime_error(std::string(name()) + ": sop inside a TLP");
  }
  if (!beat.sop && tx_beats_.empty()) {
    throw std::runtime_error(std::string(name()) + ": beat without sop");
  }
  tx_beats_.push_back(beat);
  if (!beat.eop) return;
  std::vector<uint8_t> image;
  try {
    image = sc::TlpBeatsToImage(tx_beats_);
  } catch (const sc::TlpError& e) {
    throw std::runtime_error(std::string(name()) + ": malformed TLP from the RTL: " + e.what());
  }
  tx_beats_.clear();
  tx_tlps_.push_back(std::move(image));
  tlp_sent_ = true;  // the clock thread tells TxThread at this cycle's time
}

bool RtlDevice::Quiet() const { return quiet_ >= kQuietCycles; }

void RtlDevice::Step() {
  const uint64_t c = model_->cycle();
  dram_->BeginCycle(c);
  TopInputs in;
  in.rx_valid = !rx_beats_.empty();
  if (in.rx_valid) in.rx_beat = rx_beats_.front();
  in.tx_ready = tx_tlps_.size() < config_.tx_buffer_tlps;
  in.wd_req_ready = dram_->req_ready();
  in.wd_rsp_valid = dram_->rsp_valid();
  if (in.wd_rsp_valid) in.wd_rsp_data = &dram_->rsp_data();
  in.wd_wr_ready = dram_->wr_ready();
  model_->Eval(in, &out_);

  const bool rx_taken = in.rx_valid && out_.rx_ready;
  if (in.rx_valid) {
    if (rx_taken) {
      rx_beats_.pop_front();
    } else {
      ++stats_.rx_stall_cycles;
    }
  }
  if (out_.tx_valid) {
    if (in.tx_ready) {
      OnTxBeat(out_.tx_beat);
    } else {
      ++stats_.tx_wait_cycles;
    }
  }
  if (out_.wd_req_valid && in.wd_req_ready) dram_->OnTileRequest(out_.wd_req_addr);
  if (in.wd_rsp_valid && out_.wd_rsp_ready) dram_->OnBeatTaken();
  if (out_.wd_wr_valid && in.wd_wr_ready) {
    dram_->OnWrite(out_.wd_wr_addr, out_.wd_wr_data, out_.wd_wr_mask);
  }
  model_->Tick();
  ++stats_.cycles;

  // A beat just taken counts too: the RTL answers it (a register read's completion) a few
  // cycles later, without any of the other signs of activity in between.
  const bool busy = rx_taken || !rx_beats_.empty() || out_.tx_valid || !tx_beats_.empty() ||
                    out_.running || out_.dma_busy || out_.wd_req_valid || out_.wd_wr_valid ||
                    dram_->outstanding_beats() > 0;
  quiet_ = busy ? 0 : quiet_ + 1;
  if (hook_every_ != 0 && stats_.cycles % hook_every_ == 0 && hook_) hook_(stats_.cycles);
}

sc_core::sc_time RtlDevice::Horizon() const {
  if (input_link_ == nullptr || tx_in_link_) return sc_core::sc_time_stamp();
  sc_core::sc_time horizon = input_link_->EarliestDelivery();
  if (tx_waiting_) horizon = std::min(horizon, tx_done_at_);
  return horizon;
}

bool RtlDevice::MayRunAhead(const sc_core::sc_time& t, const sc_core::sc_time& horizon) const {
  return t < horizon && !(Quiet() && rx_beats_.empty()) &&
         !(hook_every_ != 0 && (stats_.cycles + 1) % hook_every_ == 0);
}

void RtlDevice::ClockThread() {
  for (;;) {
    // A TLP the link delivers at this very time is taken by this cycle (as the event order
    // of the clock-per-process model had it): let the link's processes run first.
    while (input_link_ != nullptr && input_link_->EarliestDelivery() <= sc_core::sc_time_stamp()) {
      sc_core::wait(sc_core::SC_ZERO_TIME);
    }
    // A TLP may have come in during the last period, after the cycle that made the device
    // quiet: its beats must not wait for a notification that has already passed.
    if (Quiet() && rx_beats_.empty()) {
      sc_core::wait(rx_event_);
      quiet_ = 0;
      continue;
    }
    // This cycle, then the following ones in the same activation while nothing could reach
    // the device before them (the horizon); `t` is the local time of the cycle stepped.
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time horizon = Horizon();
    sc_core::sc_time t = now;
    ahead_.clear();
    for (;;) {
      Step();
      if (t > now) {
        ahead_.push_back({t, stats_});
      } else {
        behind_ = stats_;
      }
      if (tlp_sent_) {
        // TxThread sends it at the cycle's time: catch up first.
        if (t > now) sc_core::wait(t - now);
        tlp_sent_ = false;
        tx_event_.notify(sc_core::SC_ZERO_TIME);
        t += period_;
        break;
      }
      t += period_;
      if (!MayRunAhead(t, horizon)) break;
    }
    sc_core::wait(t - sc_core::sc_time_stamp());
  }
}

void RtlDevice::TxThread() {
  tlm::tlm_generic_payload& trans = tx_trans_;
  for (;;) {
    while (tx_tlps_.empty()) sc_core::wait(tx_event_);
    std::vector<uint8_t>& image = tx_tlps_.front();
    sc::SetTlpPayload(&trans, image.data(), image.size());
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    tx_in_link_ = true;  // the link may wait inside: the queue's next change is not known
    tx->b_transport(trans, delay);
    tx_in_link_ = false;
    if (trans.is_response_error()) {
      throw std::runtime_error(std::string(name()) + ": the link refused a TLP of " +
                               std::to_string(image.size()) +
                               " bytes: " + trans.get_response_string());
    }
    tx_waiting_ = true;
    tx_done_at_ = sc_core::sc_time_stamp() + delay;
    sc_core::wait(delay);
    tx_waiting_ = false;
    ++stats_.tlps_out;
    tx_tlps_.pop_front();
  }
}

}  // namespace tpu::sys
