#include "sc_models/root_complex.h"

#include <cstdio>

#include "sc_models/tlp_payload.h"

namespace tpu::sc {
namespace {

sc_core::sc_time Ns(double ns) { return sc_core::sc_time(ns, sc_core::SC_NS); }

std::string RegisterName(uint32_t offset) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "BAR0 register 0x%03x", offset);
  return buf;
}

uint32_t LoadDw(const std::vector<uint8_t>& data) {
  return uint32_t{data[0]} | uint32_t{data[1]} << 8 | uint32_t{data[2]} << 16 |
         uint32_t{data[3]} << 24;
}

// Is byte b (0..3) of DW d of a request enabled?
bool Enabled(const Tlp& t, uint32_t d, int b) {
  if (d == 0) return (t.first_be >> b) & 1;
  if (d == t.length_dw - 1) return (t.last_be >> b) & 1;
  return true;
}

}  // namespace

RootComplex::RootComplex(sc_core::sc_module_name name, const RootComplexConfig& config)
    : sc_core::sc_module(name),
      rx("rx"),
      tx("tx"),
      config_(config),
      fault_rng_(config.faults.seed ^ 0x636f6d706c6574ull) {  // "complet": its own stream
  if (config.bar0_address >= (uint64_t{1} << 32) || config.bar0_address % 4096 != 0) {
    throw std::invalid_argument("BAR0 must be 4 KiB aligned below 4 GiB");
  }
  if (config.msi_address % 4 != 0)
    throw std::invalid_argument("the MSI address must be DW aligned");
  // Checks the split configuration once, before any read needs it.
  SplitReadCompletions(
      MakeMemRead(0, 0, 0, 4), std::vector<uint8_t>(4), kRootComplexId,
      {config.read_completion_boundary, config.max_payload, config.one_rcb_per_completion});
  rx.register_b_transport(this, &RootComplex::b_transport);
  rx.register_transport_dbg(this, &RootComplex::transport_dbg);
  SC_THREAD(CompleterThread);
}

void RootComplex::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (trans.get_command() != tlm::TLM_WRITE_COMMAND) {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  if (trans.get_byte_enable_ptr() != nullptr ||
      trans.get_streaming_width() != trans.get_data_length()) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  Tlp tlp;
  try {
    tlp = DecodeTlp(trans.get_data_ptr(), trans.get_data_length());
  } catch (const TlpError&) {
    ++stats_.malformed;
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  (void)delay;  // the root complex takes a TLP at once
  switch (tlp.kind) {
    case TlpKind::kMemWrite:
      OnWrite(tlp);
      break;
    case TlpKind::kMemRead:
      OnRead(tlp);
      break;
    default:
      OnCompletion(tlp);
      break;
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned int RootComplex::transport_dbg(tlm::tlm_generic_payload& trans) {
  const uint64_t address = trans.get_address();
  const unsigned int length = trans.get_data_length();
  if (address >= memory_.size() || length > memory_.size() - address) return 0;
  if (trans.is_read()) {
    memory_.Read(address, trans.get_data_ptr(), length);
  } else if (trans.is_write()) {
    memory_.Write(address, trans.get_data_ptr(), length);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return length;
}

void RootComplex::OnWrite(const Tlp& tlp) {
  const uint64_t first = RequestFirstByte(tlp);
  const uint32_t count = RequestByteCount(tlp);
  if (tlp.address == config_.msi_address && tlp.length_dw == 1) {
    interrupts_.push_back({LoadDw(tlp.data), sc_core::sc_time_stamp()});
    ++interrupts_received_;
    interrupt_event_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  if (!CheckRequest(tlp, config_.max_payload, config_.max_read_request).empty() ||
      first + count > memory_.size() || memory_.Faults(first, count)) {
    ++stats_.dropped_writes;  // posted: nobody to tell
    return;
  }
  for (uint32_t d = 0; d < tlp.length_dw; ++d) {
    const bool whole = d != 0 && d != tlp.length_dw - 1;
    if (whole) {
      memory_.Write(tlp.address + 4ull * d, &tlp.data[4 * d], 4);
      stats_.bytes_written += 4;
      continue;
    }
    for (int b = 0; b < 4; ++b) {
      if (!Enabled(tlp, d, b)) continue;
      memory_.Write(tlp.address + 4ull * d + b, &tlp.data[4 * d + b], 1);
      ++stats_.bytes_written;
    }
  }
  ++stats_.writes;
}

void RootComplex::OnRead(const Tlp& tlp) {
  PendingRead r{tlp, sc_core::sc_time_stamp() + Ns(config_.memory_latency_ns),
                CompletionStatus::kSuccess};
  const uint64_t span_end = tlp.address + 4ull * tlp.length_dw;
  using Kind = model::HostMemory::FaultKind;
  if (!CheckRequest(tlp, config_.max_payload, config_.max_read_request).empty() ||
      span_end > memory_.size()) {
    r.status = CompletionStatus::kUnsupportedRequest;
    ++stats_.unsupported_requests;
  } else if (const std::optional<Kind> fault = CompletionFault(tlp)) {
    switch (*fault) {
      case Kind::kUnsupported:
        r.status = CompletionStatus::kUnsupportedRequest;
        ++stats_.unsupported_requests;
        break;
      case Kind::kAbort:
        r.status = CompletionStatus::kCompleterAbort;
        ++stats_.completer_aborts;
        break;
      case Kind::kPoisoned:
        r.poisoned = true;
        ++stats_.poisoned_reads;
        break;
      case Kind::kNoCompletion:
        ++stats_.unanswered_reads;
        return;  // the device's completion timeout (or watchdog) finds it
    }
  }
  reads_.push_back(std::move(r));
  reads_event_.notify(sc_core::SC_ZERO_TIME);
}

std::optional<model::HostMemory::FaultKind> RootComplex::CompletionFault(const Tlp& tlp) {
  using Kind = model::HostMemory::FaultKind;
  if (const std::optional<Kind> kind =
          memory_.TakeFault(RequestFirstByte(tlp), RequestByteCount(tlp))) {
    return kind;
  }
  const device::PcieFaults& f = config_.faults;
  if (!f.completion_any()) return std::nullopt;
  // One draw per read: the four probabilities are disjoint slices of [0, 1).
  double u = std::uniform_real_distribution<double>(0.0, 1.0)(fault_rng_);
  for (const auto& [p, kind] : {std::pair<double, Kind>{f.cpl_ur, Kind::kUnsupported},
                                {f.cpl_ca, Kind::kAbort},
                                {f.cpl_poison, Kind::kPoisoned},
                                {f.cpl_drop, Kind::kNoCompletion}}) {
    if (u < p) return kind;
    u -= p;
  }
  return std::nullopt;
}

void RootComplex::OnCompletion(const Tlp& tlp) {
  RegisterSlot& slot = slots_[tlp.tag];
  if (!slot.busy || slot.completed || tlp.requester_id != kRootComplexId) {
    ++stats_.unexpected_completions;
    return;
  }
  slot.completed = true;
  slot.status = tlp.status;
  slot.value = 0;
  if (tlp.status == CompletionStatus::kSuccess) {
    const TlpKind want = slot.expect_data ? TlpKind::kCompletionData : TlpKind::kCompletion;
    if (tlp.kind != want || (slot.expect_data && tlp.length_dw != 1) || tlp.byte_count != 4) {
      ++stats_.unexpected_completions;
      slot.status = CompletionStatus::kCompleterAbort;  // not the answer asked for: failed
    } else if (slot.expect_data) {
      slot.value = LoadDw(tlp.data);
    }
  }
  slot.done.notify(sc_core::SC_ZERO_TIME);
}

void RootComplex::CompleterThread() {
  const CompletionSplit split{config_.read_completion_boundary, config_.max_payload,
                              config_.one_rcb_per_completion};
  for (;;) {
    while (reads_.empty()) sc_core::wait(reads_event_);
    const PendingRead r = std::move(reads_.front());
    reads_.pop_front();
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (r.ready > now) sc_core::wait(r.ready - now);
    if (r.status != CompletionStatus::kSuccess) {
      Send(MakeErrorCompletion(r.request, kRootComplexId, r.status));
      ++stats_.completions_sent;
      continue;
    }
    const std::vector<uint8_t> span =
        memory_.Read(r.request.address, uint64_t{r.request.length_dw} * 4);
    for (Tlp c : SplitReadCompletions(r.request, span, kRootComplexId, split)) {
      c.poisoned = r.poisoned;
      Send(c);
      ++stats_.completions_sent;
    }
    ++stats_.reads_served;
    stats_.bytes_read += RequestByteCount(r.request);
  }
}

void RootComplex::Send(const Tlp& tlp) { SendTlp(tx.operator->(), tlp, name()); }

void RootComplex::WriteRegister(uint32_t offset, uint32_t value) {
  if (offset % 4 != 0 || offset >= 4096) {
    throw std::invalid_argument(RegisterName(offset) + " is not a DW inside the 4 KiB BAR0");
  }
  const uint8_t bytes[4] = {static_cast<uint8_t>(value), static_cast<uint8_t>(value >> 8),
                            static_cast<uint8_t>(value >> 16), static_cast<uint8_t>(value >> 24)};
  Send(MakeMemWrite(kRootComplexId, config_.bar0_address + offset, bytes, 4));
}

RootComplex::RegisterRead RootComplex::TryReadRegister(uint32_t offset,
                                                       const sc_core::sc_time& timeout) {
  if (offset % 4 != 0 || offset >= 4096) {
    throw std::invalid_argument(RegisterName(offset) + " is not a DW inside the 4 KiB BAR0");
  }
  return Transact(MakeMemRead(kRootComplexId, 0, config_.bar0_address + offset, 4), timeout);
}

RootComplex::RegisterRead RootComplex::Transact(Tlp request, const sc_core::sc_time& timeout) {
  for (;;) {
    int free_tag = -1;
    for (int i = 0; i < 256 && free_tag < 0; ++i) {
      const int tag = (next_tag_ + i) & 0xFF;
      if (!slots_[tag].busy) free_tag = tag;
    }
    if (free_tag >= 0) {
      next_tag_ = static_cast<uint8_t>(free_tag + 1);
      RegisterSlot& slot = slots_[free_tag];
      slot.busy = true;
      slot.completed = false;
      slot.expect_data = request.kind != TlpKind::kConfigWrite0;
      request.tag = static_cast<uint8_t>(free_tag);
      Send(request);
      if (!slot.completed) sc_core::wait(timeout, slot.done);
      RegisterRead r;
      r.timed_out = !slot.completed;
      r.status = slot.status;
      r.value = slot.value;
      slot.busy = false;
      slot_free_event_.notify(sc_core::SC_ZERO_TIME);
      return r;
    }
    sc_core::wait(slot_free_event_);
  }
}

uint32_t RootComplex::ReadRegister(uint32_t offset) {
  const sc_core::sc_time timeout = Ns(config_.register_timeout_ns);
  const RegisterRead r = TryReadRegister(offset, timeout);
  if (r.timed_out) {
    throw RegisterError(RegisterName(offset) + ": no completion within " + timeout.to_string());
  }
  if (r.status != CompletionStatus::kSuccess) {
    throw RegisterError(RegisterName(offset) + ": read completed with status " +
                        std::to_string(static_cast<int>(r.status)) + " (0 = success)");
  }
  return r.value;
}

uint32_t RootComplex::TransactOrThrow(const Tlp& request, const std::string& what) {
  const sc_core::sc_time timeout = Ns(config_.register_timeout_ns);
  const RegisterRead r = Transact(request, timeout);
  if (r.timed_out) throw RegisterError(what + ": no completion within " + timeout.to_string());
  if (r.status != CompletionStatus::kSuccess) {
    throw RegisterError(what + ": completed with status " +
                        std::to_string(static_cast<int>(r.status)) + " (0 = success)");
  }
  return r.value;
}

uint32_t RootComplex::ConfigRead(uint16_t offset) {
  return TransactOrThrow(MakeConfigRead(kRootComplexId, 0, kDeviceId, offset),
                         "configuration read of " + std::to_string(offset));
}

void RootComplex::ConfigWrite(uint16_t offset, uint32_t value, uint8_t first_be) {
  TransactOrThrow(MakeConfigWrite(kRootComplexId, 0, kDeviceId, offset, value, first_be),
                  "configuration write of " + std::to_string(offset));
}

void RootComplex::Enumerate() {
  RunEnumeration(
      EnumerationSteps(static_cast<uint32_t>(config_.bar0_address), config_.max_payload,
                       config_.max_read_request),
      [this](uint16_t offset) { return ConfigRead(offset); },
      [this](uint16_t offset, uint32_t value) { ConfigWrite(offset, value); });
}

std::optional<RootComplex::Interrupt> RootComplex::WaitForInterrupt(
    const sc_core::sc_time& timeout) {
  const sc_core::sc_time deadline = sc_core::sc_time_stamp() + timeout;
  while (interrupts_.empty() && sc_core::sc_time_stamp() < deadline) {
    sc_core::wait(deadline - sc_core::sc_time_stamp(), interrupt_event_);
  }
  if (interrupts_.empty()) return std::nullopt;
  Interrupt irq = interrupts_.front();
  interrupts_.pop_front();
  return irq;
}

}  // namespace tpu::sc
