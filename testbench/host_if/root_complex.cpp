#include "host_if/root_complex.h"

#include <algorithm>
#include <sstream>

namespace tpu::tb {
namespace {

bool FirstBeLegal(uint8_t be) { return be == 0xf || be == 0xe || be == 0xc || be == 0x8; }
bool LastBeLegal(uint8_t be) { return be == 0xf || be == 0x7 || be == 0x3 || be == 0x1; }

// Byte count and lower address bits 1:0 of a 1-DW read's completion (PCIe rules).
void OneDwCompletion(uint8_t be, uint16_t* byte_count, uint8_t* first_byte) {
  if (be == 0) {
    *byte_count = 1;
    *first_byte = 0;
    return;
  }
  int f = 0, l = 3;
  while (!(be >> f & 1)) ++f;
  while (!(be >> l & 1)) --l;
  *byte_count = static_cast<uint16_t>(l - f + 1);
  *first_byte = static_cast<uint8_t>(f);
}

std::vector<uint32_t> ReadDws(const model::HostMemory& m, uint64_t addr, uint64_t bytes) {
  std::vector<uint8_t> raw(bytes);
  m.Read(addr, raw.data(), bytes);
  std::vector<uint32_t> dws(bytes / 4);
  for (size_t d = 0; d < dws.size(); ++d) {
    dws[d] = uint32_t{raw[4 * d]} | uint32_t{raw[4 * d + 1]} << 8 | uint32_t{raw[4 * d + 2]} << 16 |
             uint32_t{raw[4 * d + 3]} << 24;
  }
  return dws;
}

}  // namespace

RootComplex::RootComplex(model::HostMemory* memory, const RcConfig& config)
    : memory_(memory), config_(config), rng_(config.seed), tag_busy_(256, false) {}

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
  host_queue_.push_back(
      tlp::Encode(tlp::MakeMWr(tlp::kRootId, config_.bar0 + offset, {value}, be, 0)));
}

int RootComplex::ReadReg(uint32_t offset, uint8_t be) {
  const int tag = next_host_tag_;
  next_host_tag_ = (next_host_tag_ + 1) % 32;
  if (reg_tag_.count(tag)) Violation("host register read tag reused: too many reads pending");
  tlp::Tlp t =
      tlp::MakeMRd(tlp::kRootId, static_cast<uint8_t>(tag), config_.bar0 + offset, 1, be, 0);
  host_queue_.push_back(tlp::Encode(t));
  const int handle = static_cast<int>(reg_reads_.size());
  reg_reads_.push_back({offset, be, std::nullopt});
  reg_tag_[tag] = handle;
  return handle;
}

std::optional<uint32_t> RootComplex::ReadResult(int handle) const {
  return reg_reads_.at(handle).value;
}

void RootComplex::Inject(const tlp::Tlp& t) { host_queue_.push_back(tlp::Encode(t)); }
void RootComplex::InjectBeats(const std::vector<tlp::Beat>& beats) { host_queue_.push_back(beats); }

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

void RootComplex::OnTxBeat(const tlp::Beat& beat) {
  ++stats_.tx_beats;
  if (tx_beats_.empty() && !beat.sop) {
    Violation("beat without sop outside a TLP");
    return;
  }
  tx_beats_.push_back(beat);
  if (!beat.eop) return;
  tlp::Tlp t;
  std::string error;
  if (tlp::Decode(tx_beats_, &t, &error)) {
    OnDeviceTlp(t);
  } else {
    Violation("malformed TLP from the device: " + error);
  }
  tx_beats_.clear();
}

void RootComplex::CheckRequest(const tlp::Tlp& t) {
  const uint64_t bytes = uint64_t{t.length} * 4;
  auto bad = [&](const std::string& why) { Violation(why + ": " + t.Describe()); };
  if (t.requester != tlp::kDeviceId) bad("requester ID");
  if (t.four_dw != (t.addr >= (uint64_t{1} << 32))) bad("header size does not match address");
  if (t.kind == tlp::Kind::kMRd && bytes > static_cast<uint64_t>(config_.max_read_req)) {
    bad("read longer than MRRS");
  }
  if (t.kind == tlp::Kind::kMWr && bytes > static_cast<uint64_t>(config_.max_payload)) {
    bad("write longer than MPS");
  }
  if ((t.addr % 4096) + bytes > 4096) bad("crosses a 4 KiB boundary");
  if (t.length == 1) {
    if (t.last_be != 0) bad("1-DW request with last BE != 0");
    if (t.first_be == 0) bad("1-DW request with first BE 0");
  } else {
    if (!FirstBeLegal(t.first_be)) bad("first BE not contiguous");
    if (!LastBeLegal(t.last_be)) bad("last BE not contiguous");
  }
}

void RootComplex::OnDeviceTlp(const tlp::Tlp& t) {
  if (t.dw0_other != 0 || t.poisoned) Violation("reserved DW0 bits or EP set: " + t.Describe());
  switch (t.kind) {
    case tlp::Kind::kMRd:
      CheckRequest(t);
      OnRead(t);
      break;
    case tlp::Kind::kMWr:
      CheckRequest(t);
      if (t.tag != 0) Violation("write with tag != 0: " + t.Describe());
      if (msi_addr_ && t.addr == *msi_addr_) {
        if (t.length != 1 || t.first_be != 0xf) Violation("MSI not one full DW: " + t.Describe());
        msis_.push_back({cycle_, t.payload.at(0), stats_.mwr});
      } else {
        OnWrite(t);
      }
      break;
    case tlp::Kind::kCplD:
      OnCompletion(t);
      break;
    default:
      Violation("device sent " + t.Describe());
      break;
  }
}

void RootComplex::OnRead(const tlp::Tlp& t) {
  ++stats_.mrd;
  const uint64_t bytes = uint64_t{t.length} * 4;
  stats_.bytes_requested += bytes;
  if (t.first_be != 0xf || (t.length > 1 && t.last_be != 0xf)) {
    Violation("partial byte enables on a DMA read: " + t.Describe());
  }
  if (t.tag >= config_.num_tags) Violation("tag beyond the device's tags: " + t.Describe());
  if (tag_busy_[t.tag]) Violation("tag reused while completions are owed: " + t.Describe());
  if (Silent(t.addr, bytes)) return;  // never answered
  const uint64_t end = t.addr + bytes;
  uint64_t due =
      cycle_ + std::uniform_int_distribution<int>(config_.min_latency, config_.max_latency)(rng_);
  auto& q = cpl_queue_[t.tag];
  uint64_t p = t.addr;
  while (p < end) {
    const uint64_t rcb = static_cast<uint64_t>(config_.rcb);
    uint64_t next = std::min(end, (p / rcb + 1) * rcb);
    while (config_.merge_completions && next < end &&
           next + rcb - p <= static_cast<uint64_t>(config_.max_payload) &&
           std::uniform_int_distribution<int>(0, 1)(rng_)) {
      next = std::min(end, next + rcb);
    }
    const uint16_t byte_count = static_cast<uint16_t>((end - p) & 0xfff);
    if (memory_->Faults(p, next - p) && config_.fault_poisoned) {
      tlp::Tlp cpl = tlp::MakeCplD(tlp::kRootId, t.requester, t.tag, byte_count,
                                   static_cast<uint8_t>(p), std::vector<uint32_t>((next - p) / 4));
      cpl.poisoned = true;
      q.push_back({due, seq_++, tlp::Encode(cpl)});
      p = next;
      continue;
    }
    if (memory_->Faults(p, next - p)) {
      q.push_back({due, seq_++,
                   tlp::Encode(tlp::MakeCpl(tlp::kRootId, t.requester, t.tag, config_.fault_status,
                                            byte_count, static_cast<uint8_t>(p)))});
      break;
    }
    q.push_back(
        {due, seq_++,
         tlp::Encode(tlp::MakeCplD(tlp::kRootId, t.requester, t.tag, byte_count,
                                   static_cast<uint8_t>(p), ReadDws(*memory_, p, next - p)))});
    p = next;
  }
  tag_busy_[t.tag] = true;
}

void RootComplex::OnWrite(const tlp::Tlp& t) {
  ++stats_.mwr;
  for (uint32_t d = 0; d < t.length; ++d) {
    const uint8_t be = t.length == 1       ? t.first_be
                       : d == 0            ? t.first_be
                       : d + 1 == t.length ? t.last_be
                                           : 0xf;
    for (int b = 0; b < 4; ++b) {
      if (!(be >> b & 1)) continue;
      const uint8_t byte = static_cast<uint8_t>(t.payload[d] >> (8 * b));
      memory_->Write(t.addr + 4 * d + b, &byte, 1);
      ++stats_.bytes_written;
    }
  }
}

void RootComplex::OnCompletion(const tlp::Tlp& t) {
  auto bad = [&](const std::string& why) { Violation(why + ": " + t.Describe()); };
  if (t.completer != tlp::kDeviceId) bad("completer ID");
  if (t.requester != tlp::kRootId) bad("completion requester ID");
  if (t.status != tlp::kStatusSc) bad("register read completion status");
  if (t.length != 1) bad("register read completion length");
  auto it = reg_tag_.find(t.tag);
  if (it == reg_tag_.end()) {
    bad("completion for no register read");
    return;
  }
  RegRead& r = reg_reads_[it->second];
  uint16_t bc;
  uint8_t first_byte;
  OneDwCompletion(r.be, &bc, &first_byte);
  if (t.byte_count != bc) bad("byte count");
  if (t.lower_addr != ((r.offset & 0x7c) | first_byte)) bad("lower address");
  r.value = t.payload.at(0);
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
