#include "sc_models/pcie_link.h"

#include <algorithm>

#include "sc_models/tlp_payload.h"

namespace tpu::sc {
namespace {

sc_core::sc_time Ns(double ns) { return sc_core::sc_time(ns, sc_core::SC_NS); }

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
      credit_update_(Ns(config.credit_update_ns)) {
  for (int c = 0; c < 3; ++c) {
    SetLimits(receiver_credits, static_cast<CreditClass>(c), &pools_[c].header_limit,
              &pools_[c].data_limit);
  }
  in.register_b_transport(this, &PcieLinkDirection::b_transport);
  in.register_transport_dbg(this, &PcieLinkDirection::transport_dbg);
  SC_THREAD(DeliverThread);
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

  // Serialization: the DLLP share, then the TLP, after the previous TLP.
  const sc_core::sc_time start = std::max(ready, wire_free_);
  const sc_core::sc_time end =
      start + Ns(timing_.tlp_time_ns(shape.header_bytes, shape.payload_bytes));
  wire_free_ = end;
  stats_.wire_bytes += timing_.tlp_wire_bytes(shape.header_bytes, shape.payload_bytes);
  queue_.push_back({std::vector<uint8_t>(image, image + size), end + latency_, shape.credit_class,
                    data_credits, shape.payload_bytes});
  queued_event_.notify(sc_core::SC_ZERO_TIME);

  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  delay = end - sc_core::sc_time_stamp();
}

unsigned int PcieLinkDirection::transport_dbg(tlm::tlm_generic_payload& trans) {
  return out->transport_dbg(trans);
}

void PcieLinkDirection::DeliverThread() {
  for (;;) {
    while (queue_.empty()) sc_core::wait(queued_event_);
    InFlight& f = queue_.front();
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (f.arrival > now) sc_core::wait(f.arrival - now);

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
    if (busy != sc_core::SC_ZERO_TIME) sc_core::wait(busy);

    // Consumed: its credits are usable again after the update latency.
    ++stats_.tlps;
    stats_.payload_bytes += f.payload_bytes;
    stats_.last_delivery = sc_core::sc_time_stamp();
    Pool& pool = pools_[static_cast<int>(f.credit_class)];
    --pool.outstanding;
    const uint32_t header = pool.header_limit != 0 ? 1 : 0;
    const uint32_t data = pool.data_limit != 0 ? f.data_credits : 0;
    if (header != 0 || data != 0) {
      pool.returns.push_back({sc_core::sc_time_stamp() + credit_update_, header, data});
      returns_event_.notify(sc_core::SC_ZERO_TIME);
    }
    queue_.pop_front();
  }
}

PcieLink::PcieLink(sc_core::sc_module_name name, const PcieLinkConfig& config)
    : sc_core::sc_module(name),
      downstream("downstream", config, config.device_credits),
      upstream("upstream", config, config.host_credits),
      config_(config) {}

}  // namespace tpu::sc
