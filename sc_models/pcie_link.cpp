#include "sc_models/pcie_link.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "sc_models/tlp_payload.h"

namespace tpu::sc {
namespace {

sc_core::sc_time Ns(double ns) { return sc_core::sc_time(ns, sc_core::SC_NS); }
double ToNs(const sc_core::sc_time& t) { return t.to_seconds() * 1e9; }

// A generator seed of its own for each direction (by name), from the configured seed.
uint64_t DirectionSeed(uint64_t seed, const char* name) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (const char* c = name; *c != 0; ++c) h = (h ^ static_cast<uint8_t>(*c)) * 1099511628211ull;
  return h;
}

void SetLimits(const FlowControlCredits& c, CreditClass cls, uint64_t* header, uint64_t* data) {
  switch (cls) {
    case CreditClass::kPosted:
      *header = c.posted_header;
      *data = c.posted_data;
      break;
    case CreditClass::kNonPosted:
      *header = c.non_posted_header;
      *data = c.non_posted_data;
      break;
    case CreditClass::kCompletion:
      *header = c.completion_header;
      *data = c.completion_data;
      break;
  }
}

}  // namespace

PcieLinkDirection::PcieLinkDirection(sc_core::sc_module_name name, const PcieLinkConfig& config,
                                     const FlowControlCredits& receiver_credits)
    : sc_core::sc_module(name),
      in("in"),
      out("out"),
      timing_(config),
      latency_(Ns(config.latency_ns)),
      credit_update_(Ns(config.credit_update_ns)),
      timers_(SpecDllTimers(timing_.config())),
      faults_(config.faults),
      rng_(DirectionSeed(config.faults.seed, name)),
      tx_(timers_.replay_timeout_ns),
      rx_(timers_.ack_latency_ns, timers_.ack_every) {
  for (int c = 0; c < 3; ++c) {
    SetLimits(receiver_credits, static_cast<CreditClass>(c), &pools_[c].header_limit,
              &pools_[c].data_limit);
  }
  in.register_b_transport(this, &PcieLinkDirection::b_transport);
  in.register_transport_dbg(this, &PcieLinkDirection::transport_dbg);
  SC_THREAD(ReceiveThread);
  SC_THREAD(DeliverThread);
  SC_THREAD(AckTimerThread);
  SC_THREAD(TransmitterThread);
}

void PcieLinkDirection::ResetStats() {
  stats_ = Stats{};
  for (int c = 0; c < 3; ++c) stats_.max_outstanding[c] = pools_[c].outstanding;
}

bool PcieLinkDirection::Reject(tlm::tlm_generic_payload& trans, tlm::tlm_response_status status,
                               const std::string& why) {
  trans.set_response_status(status);
  last_error_ = std::string(name()) + ": " + why;
  ++stats_.rejected;
  return false;
}

void PcieLinkDirection::FoldReturns(Pool* pool) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (!pool->returns.empty() && pool->returns.front().at <= now) {
    pool->header_taken -= pool->returns.front().header;
    pool->data_taken -= pool->returns.front().data;
    pool->returns.pop_front();
  }
}

bool PcieLinkDirection::CreditTime(const Pool& pool, uint32_t data, const sc_core::sc_time& t,
                                   sc_core::sc_time* when) const {
  uint64_t header_free = pool.header_limit - pool.header_taken;
  uint64_t data_free = pool.data_limit - pool.data_taken;
  auto enough = [&] {
    return (pool.header_limit == 0 || header_free >= 1) &&
           (pool.data_limit == 0 || data_free >= data);
  };
  size_t i = 0;
  for (; i < pool.returns.size() && pool.returns[i].at <= t; ++i) {
    header_free += pool.returns[i].header;
    data_free += pool.returns[i].data;
  }
  if (enough()) {
    *when = t;
    return true;
  }
  for (; i < pool.returns.size(); ++i) {
    header_free += pool.returns[i].header;
    data_free += pool.returns[i].data;
    if (enough()) {
      *when = pool.returns[i].at;
      return true;
    }
  }
  return false;
}

void PcieLinkDirection::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (trans.get_command() != tlm::TLM_WRITE_COMMAND) {
    Reject(trans, tlm::TLM_COMMAND_ERROR_RESPONSE, "a TLP is sent with the WRITE command");
    return;
  }
  if (trans.get_byte_enable_ptr() != nullptr) {
    Reject(trans, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE, "a TLP carries no byte enables");
    return;
  }
  if (trans.get_streaming_width() != trans.get_data_length()) {
    Reject(trans, tlm::TLM_BURST_ERROR_RESPONSE, "a TLP's streaming width is its length");
    return;
  }
  const uint8_t* image = trans.get_data_ptr();
  const size_t size = trans.get_data_length();
  TlpShape shape{};
  try {
    shape = PeekTlp(image, size);
  } catch (const TlpError& e) {
    Reject(trans, tlm::TLM_GENERIC_ERROR_RESPONSE, std::string("malformed TLP: ") + e.what());
    return;
  }
  if (shape.payload_bytes > timing_.config().max_payload) {
    Reject(trans, tlm::TLM_GENERIC_ERROR_RESPONSE,
           "malformed TLP: payload of " + std::to_string(shape.payload_bytes) +
               " bytes exceeds the max payload size " +
               std::to_string(timing_.config().max_payload));
    return;
  }

  // The 2048-outstanding rule: with that many TLPs unacknowledged the transmitter waits for an
  // ACK (a real wait: the ACK comes from the other side's timing).
  while (tx_.full()) {
    if (delay != sc_core::SC_ZERO_TIME) {
      sc_core::wait(delay);
      delay = sc_core::SC_ZERO_TIME;
    }
    sc_core::wait(purged_event_);
  }

  // Flow control: the TLP leaves once its class has a header credit and enough data credits.
  // Credits promised back by consumed TLPs are counted at their return time, so usually the
  // wait is only annotated; only when no promised return suffices does the caller wait.
  const int cls = static_cast<int>(shape.credit_class);
  Pool& pool = pools_[cls];
  const uint32_t data_credits = (shape.payload_bytes + kCreditDataBytes - 1) / kCreditDataBytes;
  const sc_core::sc_time requested = sc_core::sc_time_stamp() + delay;
  FoldReturns(&pool);
  sc_core::sc_time ready;
  while (!CreditTime(pool, data_credits, sc_core::sc_time_stamp() + delay, &ready)) {
    if (delay != sc_core::SC_ZERO_TIME) {
      sc_core::wait(delay);
      delay = sc_core::SC_ZERO_TIME;
    }
    sc_core::wait(returns_event_);
    FoldReturns(&pool);
  }
  if (ready > requested) {
    ++stats_.credit_waits;
    stats_.credit_wait_time += ready - requested;
  }
  if (pool.header_limit != 0) pool.header_taken += 1;
  if (pool.data_limit != 0) pool.data_taken += data_credits;
  stats_.max_outstanding[cls] = std::max(stats_.max_outstanding[cls], ++pool.outstanding);

  // The data link layer frames it (sequence number, LCRC) and keeps it for replay; then it is
  // serialized after the previous frame.
  const TlpInfo info{accepted_++, shape.credit_class, data_credits, shape.payload_bytes,
                     shape.header_bytes};
  ++errors_.tlps_sent;
  const std::vector<uint8_t>& frame = tx_.Transmit(image, size);
  unacked_info_.push_back(info);
  const sc_core::sc_time end = Serialize(frame, info, ready);
  const bool timer_running = tx_.replay_deadline().has_value();
  tx_.Sent(ToNs(end));
  if (!timer_running) tx_event_.notify(sc_core::SC_ZERO_TIME);  // it just started

  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  delay = end - sc_core::sc_time_stamp();
}

sc_core::sc_time PcieLinkDirection::Serialize(const std::vector<uint8_t>& frame,
                                              const TlpInfo& info,
                                              const sc_core::sc_time& earliest) {
  const sc_core::sc_time start = std::max(earliest, wire_free_);
  const sc_core::sc_time end =
      start + Ns(timing_.tlp_time_ns(info.header_bytes, info.payload_bytes));
  wire_free_ = end;
  stats_.wire_bytes += timing_.tlp_wire_bytes(info.header_bytes, info.payload_bytes);
  Frame f{frame, end + latency_, false, info};
  if (faults_.any()) {
    const double u = std::generate_canonical<double, 53>(rng_);
    if (u < faults_.tlp_drop) {
      f.dropped = true;
      ++errors_.tlps_dropped;
    } else if (u < faults_.tlp_drop + faults_.tlp_corrupt) {
      FlipBit(f.bytes.data(), f.bytes.size());
      ++errors_.tlps_corrupted;
    }
  }
  // The receiving threads wait for the first frame's arrival; only a new first frame moves it.
  if (wire_.empty()) wire_event_.notify(sc_core::SC_ZERO_TIME);
  wire_.push_back(std::move(f));
  return end;
}

void PcieLinkDirection::FlipBit(uint8_t* bytes, size_t size) {
  const uint64_t bit = std::uniform_int_distribution<uint64_t>(0, size * 8 - 1)(rng_);
  bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
}

void PcieLinkDirection::Lost(const std::string& why) {
  ++errors_.lost;
  last_error_ = std::string(name()) + ": the data link layer lost a TLP: " + why;
  throw std::logic_error(last_error_);
}

unsigned int PcieLinkDirection::transport_dbg(tlm::tlm_generic_payload& trans) {
  return out->transport_dbg(trans);
}

void PcieLinkDirection::ProcessArrivals() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (!wire_.empty() && wire_.front().arrival <= now) {
    Frame& f = wire_.front();
    if (!f.dropped) {
      const bool ack_timer_running = rx_.ack_deadline().has_value();
      const DllReceiver::Result r = rx_.Receive(f.bytes.data(), f.bytes.size(), ToNs(now));
      if (r.verdict == DllReceiver::Verdict::kAccepted) {
        if (f.info.index != delivered_) {
          Lost("TLP number " + std::to_string(f.info.index) + " arrived when number " +
               std::to_string(delivered_) + " was due");
        }
        ++delivered_;
        received_.push_back({std::vector<uint8_t>(f.bytes.begin() + kSeqFieldBytes,
                                                  f.bytes.end() - kLcrcBytes),
                             f.info});
        received_event_.notify(sc_core::SC_ZERO_TIME);
      }
      if (r.dllp) SendDllp(*r.dllp, r.verdict != DllReceiver::Verdict::kAccepted);
      if (!ack_timer_running && rx_.ack_deadline()) ack_timer_event_.notify(sc_core::SC_ZERO_TIME);
    }
    wire_.pop_front();
  }
}

void PcieLinkDirection::ReceiveThread() {
  for (;;) {
    ProcessArrivals();
    if (wire_.empty()) {
      sc_core::wait(wire_event_);
    } else {
      sc_core::wait(wire_.front().arrival - sc_core::sc_time_stamp(), wire_event_);
    }
  }
}

void PcieLinkDirection::DeliverThread() {
  for (;;) {
    // Checked here too, so that a TLP arriving at an idle receiver is delivered at its arrival
    // time without waiting for the other thread.
    ProcessArrivals();
    if (received_.empty()) {
      if (wire_.empty()) {
        sc_core::wait(wire_event_ | received_event_);
      } else {
        sc_core::wait(wire_.front().arrival - sc_core::sc_time_stamp(), received_event_);
      }
      continue;
    }
    Received& f = received_.front();
    SetTlpPayload(&deliver_, f.image.data(), f.image.size());
    sc_core::sc_time busy = sc_core::SC_ZERO_TIME;
    out->b_transport(deliver_, busy);
    if (deliver_.is_response_error()) {
      ++stats_.receiver_errors;
      last_error_ =
          std::string(name()) + ": the receiver answered " + deliver_.get_response_string();
      try {
        last_error_ += " to " + DecodeTlp(f.image.data(), f.image.size()).Describe();
      } catch (const TlpError&) {
      }
    }
    if (busy != sc_core::SC_ZERO_TIME) {
      receiver_busy_ = true;
      receiver_busy_until_ = sc_core::sc_time_stamp() + busy;
      sc_core::wait(busy);
      receiver_busy_ = false;
    }

    // Consumed: its credits are usable again after the update latency.
    ++consumed_;
    ++stats_.tlps;
    stats_.payload_bytes += f.info.payload_bytes;
    stats_.last_delivery = sc_core::sc_time_stamp();
    Pool& pool = pools_[static_cast<int>(f.info.credit_class)];
    --pool.outstanding;
    const uint32_t header = pool.header_limit != 0 ? 1 : 0;
    const uint32_t data = pool.data_limit != 0 ? f.info.data_credits : 0;
    if (header != 0 || data != 0) {
      pool.returns.push_back({sc_core::sc_time_stamp() + credit_update_, header, data});
      returns_event_.notify(sc_core::SC_ZERO_TIME);
    }
    received_.pop_front();
  }
}

sc_core::sc_time PcieLinkDirection::EarliestDelivery() const {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  // While the receiver is busy, the TLP just delivered is still the front of received_.
  if (receiver_busy_) return receiver_busy_until_;
  if (!received_.empty()) return now;  // DeliverThread takes it at this time
  // A TLP sent from now on, or replayed, is serialized after the frames on the wire.
  if (!wire_.empty()) return wire_.front().arrival;
  return now + latency_;
}

void PcieLinkDirection::AckTimerThread() {
  for (;;) {
    const std::optional<double> deadline = rx_.ack_deadline();
    if (!deadline) {
      sc_core::wait(ack_timer_event_);
      continue;
    }
    const sc_core::sc_time at = Ns(*deadline), now = sc_core::sc_time_stamp();
    if (at > now) {
      sc_core::wait(at - now, ack_timer_event_);
      continue;
    }
    if (const std::optional<Dllp> ack = rx_.OnAckTimer(ToNs(now))) SendDllp(*ack, false);
  }
}

void PcieLinkDirection::SendDllp(const Dllp& dllp, bool extra) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time dllp_time = Ns(kDllpWireBytes * timing_.byte_time_ns());
  if (dllp.type == DllpType::kNak) ++errors_.naks;
  if (extra && reverse_ != nullptr) {
    reverse_->wire_free_ = std::max(reverse_->wire_free_, now) + dllp_time;
  }
  DllpInFlight d{EncodeDllp(dllp), now + dllp_time + latency_};
  if (faults_.any()) {
    const double u = std::generate_canonical<double, 53>(rng_);
    if (u < faults_.dllp_drop) {
      ++errors_.dllps_dropped;
      return;
    }
    if (u < faults_.dllp_drop + faults_.dllp_corrupt) {
      FlipBit(d.bytes.data(), d.bytes.size());
      ++errors_.dllps_corrupted;
    }
  }
  dllps_.push_back(d);
  tx_event_.notify(sc_core::SC_ZERO_TIME);
}

void PcieLinkDirection::Replay(DllTransmitter::Action action) {
  if (action == DllTransmitter::Action::kNone) return;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (action == DllTransmitter::Action::kRetrainAndReplay) {
    // Recovery: neither direction sends until the link is trained again.
    ++errors_.retrains;
    const sc_core::sc_time retrain = Ns(timers_.retrain_ns);
    wire_free_ = std::max(wire_free_, now) + retrain;
    stats_.retrain_time += retrain;
    if (reverse_ != nullptr) reverse_->wire_free_ = std::max(reverse_->wire_free_, wire_free_);
  }
  const auto& frames = tx_.unacknowledged();
  for (size_t i = 0; i < frames.size(); ++i) {
    Serialize(frames[i], unacked_info_[i], now);
    ++errors_.tlps_replayed;
  }
  tx_.ReplaySent(ToNs(wire_free_));
}

void PcieLinkDirection::TransmitterThread() {
  for (;;) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    bool acted = false;
    while (!dllps_.empty() && dllps_.front().arrival <= now) {
      const std::optional<Dllp> dllp = DecodeDllp(dllps_.front().bytes);
      dllps_.pop_front();
      if (!dllp) continue;  // its CRC failed: discarded, the REPLAY_TIMER covers it
      const DllTransmitter::Action action = tx_.OnDllp(*dllp, ToNs(now));
      while (unacked_info_.size() > tx_.outstanding()) unacked_info_.pop_front();
      purged_event_.notify(sc_core::SC_ZERO_TIME);
      if (tx_.counters().acknowledged > delivered_) {
        Lost("the transmitter was told " + std::to_string(tx_.counters().acknowledged) +
             " TLPs arrived, the receiver accepted " + std::to_string(delivered_));
      }
      Replay(action);
      acted = true;
    }
    const std::optional<double> deadline = tx_.replay_deadline();
    if (deadline && Ns(*deadline) <= now) {
      const DllTransmitter::Action action = tx_.OnReplayTimeout(ToNs(now));
      if (action != DllTransmitter::Action::kNone) ++errors_.replay_timeouts;
      Replay(action);
      continue;
    }
    if (acted) continue;
    sc_core::sc_time next = sc_core::SC_ZERO_TIME;
    bool any = false;
    if (!dllps_.empty()) {
      next = dllps_.front().arrival;
      any = true;
    }
    if (deadline && (!any || Ns(*deadline) < next)) {
      next = Ns(*deadline);
      any = true;
    }
    if (any) {
      sc_core::wait(next - now, tx_event_);
    } else {
      sc_core::wait(tx_event_);
    }
  }
}

PcieLink::PcieLink(sc_core::sc_module_name name, const PcieLinkConfig& config)
    : sc_core::sc_module(name),
      downstream("downstream", config, config.device_credits),
      upstream("upstream", config, config.host_credits),
      config_(config) {
  downstream.SetReverse(&upstream);
  upstream.SetReverse(&downstream);
}

}  // namespace tpu::sc
