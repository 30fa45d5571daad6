#include "sc_models/pcie_endpoint.h"

#include <algorithm>
#include <stdexcept>

#include "sc_models/tlp_payload.h"

namespace tpu::sc {

PcieEndpoint::PcieEndpoint(sc_core::sc_module_name name, const PcieEndpointConfig& config)
    : sc_core::sc_module(name), rx("rx"), tx("tx"), config_(config) {
  if (config.max_outstanding_reads < 1 || config.max_outstanding_reads > 256) {
    throw std::invalid_argument("max_outstanding_reads must be 1..256");
  }
  tags_.resize(256);
  rx.register_b_transport(this, &PcieEndpoint::b_transport);
  SC_THREAD(ResponderThread);
}

void PcieEndpoint::SetRegisterHandlers(RegisterReadHandler read, RegisterWriteHandler write) {
  on_read_ = std::move(read);
  on_write_ = std::move(write);
}

void PcieEndpoint::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  (void)delay;  // the endpoint takes a TLP at once
  Tlp tlp;
  try {
    if (trans.get_command() != tlm::TLM_WRITE_COMMAND) throw TlpError("not a WRITE");
    tlp = DecodeTlp(trans.get_data_ptr(), trans.get_data_length());
  } catch (const TlpError&) {
    ++stats_.unexpected;
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  const bool to_bar0 = tlp.is_request() && tlp.address >= config_.bar0_address &&
                       tlp.address < config_.bar0_address + 4096 && tlp.length_dw == 1;
  if (tlp.is_request() && !to_bar0) {
    ++stats_.unexpected;
    return;
  }
  const uint32_t offset = static_cast<uint32_t>(tlp.address - config_.bar0_address);
  if (tlp.kind == TlpKind::kMemWrite) {
    ++stats_.register_writes;
    const uint32_t value = uint32_t{tlp.data[0]} | uint32_t{tlp.data[1]} << 8 |
                           uint32_t{tlp.data[2]} << 16 | uint32_t{tlp.data[3]} << 24;
    if (on_write_) on_write_(offset, value);
    return;
  }
  if (tlp.kind == TlpKind::kMemRead) {
    ++stats_.register_reads;
    const uint32_t value = on_read_ ? on_read_(offset) : 0;
    if (!config_.answer_register_reads) return;
    const std::vector<uint8_t> span = {
        static_cast<uint8_t>(value), static_cast<uint8_t>(value >> 8),
        static_cast<uint8_t>(value >> 16), static_cast<uint8_t>(value >> 24)};
    for (Tlp& c : SplitReadCompletions(tlp, span, kDeviceId, {64, config_.max_payload, false})) {
      responses_.push_back(std::move(c));
    }
    responses_event_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  // A completion of one of our reads.
  Outstanding& o = tags_[tlp.tag];
  if (tlp.requester_id != kDeviceId || !o.reassembler) {
    ++stats_.unexpected;
    return;
  }
  ++stats_.completions;
  if (config_.log_completions) completion_log_.push_back(tlp);
  try {
    o.reassembler->Accept(tlp);
  } catch (const TlpError& e) {
    throw std::runtime_error(std::string(name()) + ": " + e.what());
  }
  if (!o.reassembler->done()) return;
  if (o.reassembler->failed()) {
    if (*o.status == CompletionStatus::kSuccess) *o.status = o.reassembler->status();
  } else {
    const std::vector<uint8_t>& bytes = o.reassembler->bytes();
    std::copy(bytes.begin(), bytes.end(), o.out);
    stats_.bytes_read += bytes.size();
  }
  o.reassembler.reset();
  --*o.pending;
  --in_flight_;
  tag_free_event_.notify(sc_core::SC_ZERO_TIME);
}

CompletionStatus PcieEndpoint::ReadHost(uint64_t address, uint8_t* out, uint64_t length) {
  CompletionStatus status = CompletionStatus::kSuccess;
  uint32_t pending = 0;
  for (uint64_t offset = 0; offset < length;) {
    const uint64_t a = address + offset;
    // Within one MRRS-aligned block: at most MRRS bytes, never across 4 KiB.
    const uint64_t chunk = std::min<uint64_t>(
        length - offset, config_.max_read_request - a % config_.max_read_request);
    while (in_flight_ >= config_.max_outstanding_reads) sc_core::wait(tag_free_event_);
    while (tags_[next_tag_].reassembler) next_tag_ = (next_tag_ + 1) & 0xFF;
    const uint8_t tag = static_cast<uint8_t>(next_tag_);
    next_tag_ = (next_tag_ + 1) & 0xFF;
    const Tlp request = MakeMemRead(kDeviceId, tag, a, static_cast<uint32_t>(chunk));
    tags_[tag] = {std::make_unique<ReadReassembler>(request), out + offset, &status, &pending};
    ++pending;
    ++in_flight_;
    ++stats_.read_requests;
    Send(request);
    offset += chunk;
  }
  while (pending > 0) sc_core::wait(tag_free_event_);
  return status;
}

void PcieEndpoint::WriteHost(uint64_t address, const uint8_t* data, uint64_t length) {
  for (uint64_t offset = 0; offset < length;) {
    const uint64_t a = address + offset;
    const uint64_t chunk =
        std::min<uint64_t>(length - offset, config_.max_payload - a % config_.max_payload);
    Send(MakeMemWrite(kDeviceId, a, data + offset, static_cast<uint32_t>(chunk)));
    ++stats_.write_requests;
    stats_.bytes_written += chunk;
    offset += chunk;
  }
}

void PcieEndpoint::SendMsi(uint64_t address, uint32_t data) {
  const uint8_t bytes[4] = {static_cast<uint8_t>(data), static_cast<uint8_t>(data >> 8),
                            static_cast<uint8_t>(data >> 16), static_cast<uint8_t>(data >> 24)};
  Send(MakeMemWrite(kDeviceId, address, bytes, 4));
  ++stats_.write_requests;
}

void PcieEndpoint::ResponderThread() {
  for (;;) {
    while (responses_.empty()) sc_core::wait(responses_event_);
    const Tlp c = std::move(responses_.front());
    responses_.pop_front();
    Send(c);
  }
}

void PcieEndpoint::Send(const Tlp& tlp) { SendTlp(tx.operator->(), tlp, name()); }

}  // namespace tpu::sc
