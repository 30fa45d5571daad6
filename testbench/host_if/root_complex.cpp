#include "host_if/root_complex.h"

#include <algorithm>
#include <sstream>

namespace tpu::tb {
namespace {

// Payload DW d of a TLP (its bytes in memory order).
uint32_t PayloadDw(const sc::Tlp& t, size_t d) {
  const uint8_t* p = &t.data.at(4 * d + 3) - 3;
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// A 1-DW request to BAR0 with any byte enables (sc::MakeMem* take byte ranges).
sc::Tlp RegRequest(sc::TlpKind kind, uint8_t tag, uint64_t addr, uint8_t be) {
  sc::Tlp t;
  t.kind = kind;
  t.requester_id = sc::kRootComplexId;
  t.tag = tag;
  t.address = addr;
  t.first_be = be;
  t.last_be = 0;
  t.length_dw = 1;
  return t;
}

// A completion of the root complex for a device read.
sc::Tlp Completion(const sc::Tlp& read, sc::TlpKind kind, sc::CompletionStatus status,
                   uint64_t remaining, uint64_t addr) {
  sc::Tlp c;
  c.kind = kind;
  c.completer_id = sc::kRootComplexId;
  c.requester_id = read.requester_id;
  c.tag = read.tag;
  c.status = status;
  c.byte_count = static_cast<uint16_t>(remaining);
  c.lower_address = static_cast<uint8_t>(addr & 0x7f);
  c.length_dw = 0;
  return c;
}

}  // namespace

RootComplex::RootComplex(model::HostMemory* memory, const RcConfig& config)
    : memory_(memory), config_(config), rng_(config.seed), tag_busy_(256, false) {
  sc::CheckBeatDws(beat_dws());  // throws for a width the streams do not have
  if (config.enumerate) Enumerate();
}

int RootComplex::ConfigRead(uint16_t offset) {
  return Request(sc::MakeConfigRead(sc::kRootComplexId, 0, sc::kDeviceId, offset));
}

int RootComplex::ConfigWrite(uint16_t offset, uint32_t value, uint8_t be) {
  return Request(sc::MakeConfigWrite(sc::kRootComplexId, 0, sc::kDeviceId, offset, value, be));
}

void RootComplex::Enumerate() {
  for (const sc::ConfigStep& step :
       sc::EnumerationSteps(static_cast<uint32_t>(config_.bar0),
                            static_cast<uint32_t>(config_.max_payload),
                            static_cast<uint32_t>(config_.max_read_req))) {
    if (step.write) {
      ConfigWrite(step.offset, step.value);
    } else {
      reg_reads_.at(ConfigRead(step.offset)).step = step;
    }
  }
}

void RootComplex::set_config(const RcConfig& config) {
  config_ = config;
  rng_.seed(config.seed);
}

bool RootComplex::Draw(double p) {
  return p >= 1.0 || (p > 0.0 && std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p);
}

bool RootComplex::Silent(uint64_t addr, uint64_t length) const {
  for (const Range& r : silent_) {
    if (addr < r.addr + r.length && r.addr < addr + length) return true;
  }
  return false;
}

void RootComplex::Violation(const std::string& what) {
  std::ostringstream s;
  s << "cycle " << cycle_ << ": " << what;
  violations_.push_back(s.str());
}

void RootComplex::WriteReg(uint32_t offset, uint32_t value, uint8_t be) {
  sc::Tlp t = RegRequest(sc::TlpKind::kMemWrite, 0, config_.bar0 + offset, be);
  for (int b = 0; b < 4; ++b) t.data.push_back(static_cast<uint8_t>(value >> (8 * b)));
  host_queue_.push_back(sc::EncodeTlpBeats(t, beat_dws()));
}

int RootComplex::NextHostTag() {
  const int tag = next_host_tag_;
  next_host_tag_ = (next_host_tag_ + 1) % 32;
  if (reg_tag_.count(tag)) Violation("host register read tag reused: too many reads pending");
  return tag;
}

int RootComplex::ReadReg(uint32_t offset, uint8_t be) {
  return Request(RegRequest(sc::TlpKind::kMemRead, 0, config_.bar0 + offset, be));
}

int RootComplex::Request(sc::Tlp read) {
  const int tag = NextHostTag();
  read.tag = static_cast<uint8_t>(tag);
  host_queue_.push_back(sc::EncodeTlpBeats(read, beat_dws()));
  RegRead r;
  r.completer = device_id_;
  if (read.is_config()) {
    // A function completes a configuration request with its own ID; a write sets it.
    r.config_read = read.kind == sc::TlpKind::kConfigRead0;
    r.config_write = !r.config_read;
    r.completer = read.target_id;
    if (r.config_write) device_id_ = read.target_id & 0xfff8;
    if (r.config_write && read.config_offset == sc::kCfgCommand && (read.first_be & 1)) {
      memory_enabled_ = read.data.at(0) & sc::kCommandMemorySpace;
    }
    r.byte_count = 4;
    r.lower_address = 0;
  } else {
    r.register_read = memory_enabled_ && read.length_dw == 1 && read.address >= config_.bar0 &&
                      read.address < config_.bar0 + 4096;
    r.byte_count = sc::RequestByteCount(read);
    r.lower_address = static_cast<uint8_t>(sc::RequestFirstByte(read) & 0x7f);
  }
  const int handle = static_cast<int>(reg_reads_.size());
  reg_reads_.push_back(r);
  reg_tag_[tag] = handle;
  return handle;
}

int RootComplex::RequestBeats(std::vector<sc::TlpBeat> beats) {
  const int tag = NextHostTag();
  beats.at(0).dw[1] = (beats[0].dw[1] & ~0xff00u) | static_cast<uint32_t>(tag) << 8;
  host_queue_.push_back(beats);
  const int handle = static_cast<int>(reg_reads_.size());
  RegRead r;
  r.completer = device_id_;
  reg_reads_.push_back(r);
  reg_tag_[tag] = handle;
  return handle;
}

std::optional<uint32_t> RootComplex::ReadResult(int handle) const {
  return reg_reads_.at(handle).value;
}

std::optional<sc::CompletionStatus> RootComplex::RequestStatus(int handle) const {
  return reg_reads_.at(handle).status;
}

void RootComplex::Inject(const sc::Tlp& t) { host_queue_.push_back(sc::EncodeTlpBeats(t, beat_dws())); }
void RootComplex::InjectBeats(const std::vector<sc::TlpBeat>& beats) {
  host_queue_.push_back(beats);
}

bool RootComplex::PickNext() {
  if (!host_queue_.empty()) {
    cur_ = std::move(host_queue_.front());
    host_queue_.pop_front();
    cur_tag_ = -1;
    pos_ = 0;
    return true;
  }
  std::vector<int> due;
  int oldest = -1;
  uint64_t oldest_seq = ~uint64_t{0};
  for (auto& [tag, q] : cpl_queue_) {
    if (q.empty() || q.front().due > cycle_) continue;
    due.push_back(tag);
    if (q.front().seq < oldest_seq) {
      oldest_seq = q.front().seq;
      oldest = tag;
    }
  }
  if (due.empty()) return false;
  int tag = oldest;
  if (config_.reorder) {
    tag = due[std::uniform_int_distribution<size_t>(0, due.size() - 1)(rng_)];
  }
  cur_ = std::move(cpl_queue_[tag].front().beats);
  cpl_queue_[tag].pop_front();
  cur_tag_ = tag;
  pos_ = 0;
  return true;
}

void RootComplex::BeginCycle(uint64_t cycle) {
  cycle_ = cycle;
  tx_ready_ = Draw(config_.tx_ready);
  if (cur_.empty()) PickNext();
  rx_valid_ = !cur_.empty() && !Draw(config_.rx_gap);
}

void RootComplex::OnRxTaken() {
  ++stats_.rx_beats;
  if (++pos_ < cur_.size()) return;
  if (cur_tag_ >= 0) {
    ++stats_.cpl_sent;
    if (cpl_queue_[cur_tag_].empty()) tag_busy_[cur_tag_] = false;
  }
  cur_.clear();
  pos_ = 0;
  cur_tag_ = -1;
  rx_valid_ = false;
}

void RootComplex::OnTxBeat(const sc::TlpBeat& beat) {
  ++stats_.tx_beats;
  if (tx_beats_.empty() && !beat.sop) {
    Violation("beat without sop outside a TLP");
    return;
  }
  tx_beats_.push_back(beat);
  if (!beat.eop) return;
  sc::Tlp t;
  bool ok = true;
  try {
    t = sc::DecodeTlpBeats(tx_beats_);
  } catch (const sc::TlpError& e) {
    Violation(std::string("malformed TLP from the device: ") + e.what());
    ok = false;
  }
  tx_beats_.clear();
  if (ok) OnDeviceTlp(t);
}

// The shared request rules (MPS, MRRS, 4 KiB, byte enables; a 4-DW header below 4 GiB is
// rejected by the decoder) and the device's requester ID.
void RootComplex::CheckRequest(const sc::Tlp& t) {
  if (t.requester_id != device_id_) Violation("requester ID: " + t.Describe());
  const std::string why = sc::CheckRequest(t, static_cast<uint32_t>(config_.max_payload),
                                           static_cast<uint32_t>(config_.max_read_req));
  if (!why.empty()) Violation(why);
}

void RootComplex::OnDeviceTlp(const sc::Tlp& t) {
  if (t.dw0_reserved != 0 || t.poisoned) Violation("reserved DW0 bits or EP set: " + t.Describe());
  switch (t.kind) {
    case sc::TlpKind::kMemRead:
      CheckRequest(t);
      OnRead(t);
      break;
    case sc::TlpKind::kMemWrite:
      CheckRequest(t);
      if (t.tag != 0) Violation("write with tag != 0: " + t.Describe());
      if (msi_addr_ && t.address == *msi_addr_) {
        if (t.length_dw != 1 || t.first_be != 0xf) {
          Violation("MSI not one full DW: " + t.Describe());
        }
        msis_.push_back({cycle_, PayloadDw(t, 0), stats_.mwr});
      } else {
        OnWrite(t);
      }
      break;
    case sc::TlpKind::kCompletionData:
    case sc::TlpKind::kCompletion:
      OnCompletion(t);
      break;
    default:
      Violation("device sent " + t.Describe());
      break;
  }
}

void RootComplex::OnRead(const sc::Tlp& t) {
  ++stats_.mrd;
  const uint64_t bytes = uint64_t{t.length_dw} * 4;
  stats_.bytes_requested += bytes;
  if (t.first_be != 0xf || (t.length_dw > 1 && t.last_be != 0xf)) {
    Violation("partial byte enables on a DMA read: " + t.Describe());
  }
  if (t.tag >= config_.num_tags) Violation("tag beyond the device's tags: " + t.Describe());
  if (tag_busy_[t.tag]) Violation("tag reused while completions are owed: " + t.Describe());
  if (Silent(t.address, bytes)) {  // never answered
    unanswered_.push_back(t);
    return;
  }
  const uint64_t end = t.address + bytes;
  uint64_t due =
      cycle_ + std::uniform_int_distribution<int>(config_.min_latency, config_.max_latency)(rng_);
  auto& q = cpl_queue_[t.tag];
  uint64_t p = t.address;
  while (p < end) {
    const uint64_t rcb = static_cast<uint64_t>(config_.rcb);
    uint64_t next = std::min(end, (p / rcb + 1) * rcb);
    while (config_.merge_completions && next < end &&
           next + rcb - p <= static_cast<uint64_t>(config_.max_payload) &&
           std::uniform_int_distribution<int>(0, 1)(rng_)) {
      next = std::min(end, next + rcb);
    }
    const bool fault = memory_->Faults(p, next - p);
    if (fault && !config_.fault_poisoned) {
      q.push_back({due, seq_++,
                   sc::EncodeTlpBeats(
                       Completion(t, sc::TlpKind::kCompletion, config_.fault_status, end - p, p),
                       beat_dws())});
      break;
    }
    // A failing piece with fault_poisoned: a CplD of zeros with EP set.
    sc::Tlp cpl =
        Completion(t, sc::TlpKind::kCompletionData, sc::CompletionStatus::kSuccess, end - p, p);
    cpl.length_dw = static_cast<uint32_t>((next - p) / 4);
    cpl.data.assign(next - p, 0);
    if (fault) {
      cpl.poisoned = true;
    } else {
      memory_->Read(p, cpl.data.data(), next - p);
    }
    q.push_back({due, seq_++, sc::EncodeTlpBeats(cpl, beat_dws())});
    p = next;
  }
  tag_busy_[t.tag] = true;
}

void RootComplex::OnWrite(const sc::Tlp& t) {
  ++stats_.mwr;
  for (uint32_t d = 0; d < t.length_dw; ++d) {
    const uint8_t be = t.length_dw == 1       ? t.first_be
                       : d == 0               ? t.first_be
                       : d + 1 == t.length_dw ? t.last_be
                                              : 0xf;
    for (int b = 0; b < 4; ++b) {
      if (!(be >> b & 1)) continue;
      const uint8_t byte = t.data[4 * d + b];
      memory_->Write(t.address + 4 * d + b, &byte, 1);
      ++stats_.bytes_written;
    }
  }
}

void RootComplex::OnCompletion(const sc::Tlp& t) {
  auto bad = [&](const std::string& why) { Violation(why + ": " + t.Describe()); };
  if (t.requester_id != sc::kRootComplexId) bad("completion requester ID");
  auto it = reg_tag_.find(t.tag);
  if (it == reg_tag_.end()) {
    bad("completion for no register read");
    return;
  }
  RegRead& r = reg_reads_[it->second];
  if (t.completer_id != r.completer) bad("completer ID");
  const bool ok = t.status == sc::CompletionStatus::kSuccess;
  const bool data = ok && !r.config_write;
  if (ok != (r.register_read || r.config_read || r.config_write)) {
    bad("completion status for its request");
  }
  if (t.has_data() != data) bad("data with an error completion or a write's, or none with a read");
  if (t.length_dw != (data ? 1u : 0u)) bad("completion length");
  if ((t.byte_count & 0xfff) != (r.byte_count & 0xfff)) bad("byte count");
  if (t.lower_address != r.lower_address) bad("lower address");
  r.status = t.status;
  if (ok && t.has_data()) r.value = PayloadDw(t, 0);
  if (r.step && r.value) {
    const std::string why = sc::CheckConfigStep(*r.step, *r.value);
    if (!why.empty()) Violation(why);
  }
  reg_tag_.erase(it);
  ++stats_.reg_cpl;
}

size_t RootComplex::reads_outstanding() const {
  return static_cast<size_t>(std::count(tag_busy_.begin(), tag_busy_.end(), true));
}

bool RootComplex::idle() const {
  if (!host_queue_.empty() || !cur_.empty() || !reg_tag_.empty() || !tx_beats_.empty()) {
    return false;
  }
  for (const auto& [tag, q] : cpl_queue_) {
    if (!q.empty()) return false;
  }
  return true;
}

}  // namespace tpu::tb
