#include "sc_models/pcie/tlp.h"

#include <algorithm>
#include <cstdio>

namespace tpu::sc {
namespace {

constexpr uint32_t kTypeMem = 0x00;
constexpr uint32_t kTypeCpl = 0x0A;
constexpr uint32_t kTypeCfg0 = 0x04;
constexpr uint32_t kFmtFourDw = 0x1;
constexpr uint32_t kFmtData = 0x2;
constexpr uint32_t kFmtPrefix = 0x4;
constexpr uint32_t kMaxLengthDw = 1024;

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

int LowestBit(uint8_t be) {
  for (int b = 0; b < 4; ++b) {
    if (be & (1u << b)) return b;
  }
  return 0;
}

int HighestBit(uint8_t be) {
  for (int b = 3; b >= 0; --b) {
    if (be & (1u << b)) return b;
  }
  return 0;
}

uint32_t LoadDw(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

void StoreDw(uint32_t v, std::vector<uint8_t>* out) {
  for (int b = 0; b < 4; ++b) out->push_back(static_cast<uint8_t>(v >> (8 * b)));
}

// The byte enables and DW span of [address, address + bytes).
void SetSpan(uint64_t address, uint32_t bytes, Tlp* t) {
  if (bytes == 0 || bytes > 4096) {
    throw TlpError("a request of " + std::to_string(bytes) + " bytes at " + Hex(address) +
                   " is not allowed (1..4096 bytes)");
  }
  const uint64_t last = address + bytes - 1;
  t->address = address & ~uint64_t{3};
  t->length_dw = static_cast<uint32_t>(((last & ~uint64_t{3}) - t->address) / 4 + 1);
  if (t->length_dw > kMaxLengthDw) {
    throw TlpError("a request of " + std::to_string(bytes) + " bytes at " + Hex(address) +
                   " spans " + std::to_string(t->length_dw) + " DWs (at most 1024)");
  }
  const uint8_t first_be = static_cast<uint8_t>((0xFu << (address & 3)) & 0xF);
  const uint8_t last_be = static_cast<uint8_t>(0xFu >> (3 - (last & 3)));
  if (t->length_dw == 1) {
    t->first_be = first_be & last_be;
    t->last_be = 0;
  } else {
    t->first_be = first_be;
    t->last_be = last_be;
  }
}

bool ContiguousFirstBe(uint8_t be) { return be == 0xF || be == 0xE || be == 0xC || be == 0x8; }
bool ContiguousLastBe(uint8_t be) { return be == 0x1 || be == 0x3 || be == 0x7 || be == 0xF; }

const char* KindName(TlpKind kind) {
  switch (kind) {
    case TlpKind::kMemRead:
      return "MRd";
    case TlpKind::kMemWrite:
      return "MWr";
    case TlpKind::kCompletion:
      return "Cpl";
    case TlpKind::kCompletionData:
      return "CplD";
    case TlpKind::kConfigRead0:
      return "CfgRd0";
    case TlpKind::kConfigWrite0:
      return "CfgWr0";
  }
  return "?";
}

const char* StatusName(CompletionStatus s) {
  switch (s) {
    case CompletionStatus::kSuccess:
      return "SC";
    case CompletionStatus::kUnsupportedRequest:
      return "UR";
    case CompletionStatus::kConfigRetry:
      return "CRS";
    case CompletionStatus::kCompleterAbort:
      return "CA";
  }
  return "reserved";
}

}  // namespace

CreditClass Tlp::credit_class() const {
  switch (kind) {
    case TlpKind::kMemWrite:
      return CreditClass::kPosted;
    case TlpKind::kMemRead:
    case TlpKind::kConfigRead0:
    case TlpKind::kConfigWrite0:
      return CreditClass::kNonPosted;
    default:
      return CreditClass::kCompletion;
  }
}

std::string Tlp::Describe() const {
  std::string s = KindName(kind);
  if (is_config()) {
    s += " target " + Hex(target_id) + " offset " + Hex(config_offset) + " BE " +
         Hex(first_be).substr(2);
  } else if (is_request()) {
    s += " " + Hex(address) + " " + std::to_string(length_dw) + " DW BE " + Hex(last_be).substr(2) +
         "/" + Hex(first_be).substr(2);
  } else {
    s += " " + std::string(StatusName(status)) + " " + std::to_string(payload_bytes() / 4) +
         " DW byte count " + std::to_string(byte_count) + " lower address " + Hex(lower_address) +
         " completer " + Hex(completer_id);
  }
  if (poisoned) s += " EP";
  if (dw0_reserved != 0) s += " DW0 reserved " + Hex(dw0_reserved);
  return s + " requester " + Hex(requester_id) + " tag " + std::to_string(tag);
}

Tlp MakeMemRead(uint16_t requester_id, uint8_t tag, uint64_t address, uint32_t bytes) {
  Tlp t;
  t.kind = TlpKind::kMemRead;
  t.requester_id = requester_id;
  t.tag = tag;
  SetSpan(address, bytes, &t);
  return t;
}

Tlp MakeMemWrite(uint16_t requester_id, uint64_t address, const uint8_t* bytes, uint32_t length) {
  Tlp t;
  t.kind = TlpKind::kMemWrite;
  t.requester_id = requester_id;
  SetSpan(address, length, &t);
  t.data.assign(t.length_dw * 4, 0);
  std::copy(bytes, bytes + length, t.data.begin() + (address & 3));
  return t;
}

Tlp MakeConfigRead(uint16_t requester_id, uint8_t tag, uint16_t target_id, uint16_t offset) {
  Tlp t;
  t.kind = TlpKind::kConfigRead0;
  t.requester_id = requester_id;
  t.tag = tag;
  t.target_id = target_id;
  t.config_offset = offset;
  t.first_be = 0xF;
  t.last_be = 0;
  t.length_dw = 1;
  return t;
}

Tlp MakeConfigWrite(uint16_t requester_id, uint8_t tag, uint16_t target_id, uint16_t offset,
                    uint32_t value, uint8_t first_be) {
  Tlp t = MakeConfigRead(requester_id, tag, target_id, offset);
  t.kind = TlpKind::kConfigWrite0;
  t.first_be = first_be;
  StoreDw(value, &t.data);
  return t;
}

uint64_t RequestFirstByte(const Tlp& request) {
  return request.address + LowestBit(request.first_be);
}

uint32_t RequestByteCount(const Tlp& request) {
  if (request.length_dw == 1 && request.first_be == 0) return 1;  // zero-length read
  const uint64_t last = request.length_dw == 1 ? request.address + HighestBit(request.first_be)
                                               : request.address + 4ull * (request.length_dw - 1) +
                                                     HighestBit(request.last_be);
  return static_cast<uint32_t>(last - RequestFirstByte(request) + 1);
}

std::string CheckRequest(const Tlp& r, uint32_t max_payload, uint32_t max_read_request) {
  if (!r.is_request()) return r.Describe() + " is not a request";
  if (r.address % 4 != 0) return r.Describe() + ": address not DW aligned";
  if (r.length_dw == 0 || r.length_dw > kMaxLengthDw) {
    return r.Describe() + ": length of " + std::to_string(r.length_dw) + " DWs (1..1024)";
  }
  const uint64_t bytes = uint64_t{r.length_dw} * 4;
  if (r.kind == TlpKind::kMemWrite && bytes > max_payload) {
    return r.Describe() + ": payload of " + std::to_string(bytes) +
           " bytes exceeds the max payload size " + std::to_string(max_payload);
  }
  if (r.kind == TlpKind::kMemRead && bytes > max_read_request) {
    return r.Describe() + ": read of " + std::to_string(bytes) +
           " bytes exceeds the max read request size " + std::to_string(max_read_request);
  }
  if ((r.address & 0xFFF) + bytes > 4096) {
    return r.Describe() + ": crosses a 4 KiB boundary";
  }
  if (r.kind == TlpKind::kMemWrite && r.data.size() != bytes) {
    return r.Describe() + ": carries " + std::to_string(r.data.size()) + " bytes of data";
  }
  if (r.length_dw == 1) {
    if (r.last_be != 0) return r.Describe() + ": last DW BE must be 0 for a 1-DW request";
    if (r.first_be == 0 && r.kind == TlpKind::kMemWrite) {
      return r.Describe() + ": zero-length write";
    }
  } else {
    if (r.first_be == 0 || r.last_be == 0) {
      return r.Describe() + ": first and last DW BEs must be non-zero beyond one DW";
    }
    if (r.length_dw > 2 && (!ContiguousFirstBe(r.first_be) || !ContiguousLastBe(r.last_be))) {
      return r.Describe() + ": byte enables must be contiguous beyond two DWs";
    }
  }
  return "";
}

std::vector<uint8_t> EncodeTlp(const Tlp& t) {
  if (t.has_data() && (t.length_dw == 0 || t.length_dw > kMaxLengthDw)) {
    throw TlpError(t.Describe() + ": length of " + std::to_string(t.length_dw) + " DWs");
  }
  if (t.kind == TlpKind::kMemRead && (t.length_dw == 0 || t.length_dw > kMaxLengthDw)) {
    throw TlpError(t.Describe() + ": length of " + std::to_string(t.length_dw) + " DWs");
  }
  if (t.is_config() && (t.length_dw != 1 || t.config_offset % 4 != 0 || t.config_offset > 4092)) {
    throw TlpError(t.Describe() + ": a configuration request is one DW at a DW-aligned offset "
                   "below 4096");
  }
  if (t.data.size() != t.payload_bytes()) {
    throw TlpError(t.Describe() + ": carries " + std::to_string(t.data.size()) +
                   " data bytes, its length says " + std::to_string(t.payload_bytes()));
  }
  uint32_t fmt = (t.has_data() ? kFmtData : 0) | (t.four_dw_header() ? kFmtFourDw : 0);
  uint32_t type = t.is_config() ? kTypeCfg0 : t.is_request() ? kTypeMem : kTypeCpl;
  uint32_t length =
      (t.has_data() || t.kind == TlpKind::kMemRead || t.is_config()) ? (t.length_dw & 0x3FF) : 0;
  std::vector<uint8_t> out;
  out.reserve(t.header_bytes() + t.data.size());
  StoreDw(fmt << 29 | type << 24 | (t.dw0_reserved & kDw0ReservedMask) |
              (t.poisoned ? 1u << 14 : 0u) | length,
          &out);
  if (t.is_config()) {
    StoreDw(uint32_t{t.requester_id} << 16 | uint32_t{t.tag} << 8 | (t.first_be & 0xF), &out);
    StoreDw(uint32_t{t.target_id} << 16 | (t.config_offset & 0xFFCu), &out);
  } else if (t.is_request()) {
    StoreDw(uint32_t{t.requester_id} << 16 | uint32_t{t.tag} << 8 | uint32_t(t.last_be & 0xF) << 4 |
                (t.first_be & 0xF),
            &out);
    if (t.four_dw_header()) StoreDw(static_cast<uint32_t>(t.address >> 32), &out);
    StoreDw(static_cast<uint32_t>(t.address) & ~3u, &out);
  } else {
    StoreDw(uint32_t{t.completer_id} << 16 | uint32_t(static_cast<uint8_t>(t.status) & 7) << 13 |
                (t.byte_count & 0xFFF),
            &out);
    StoreDw(uint32_t{t.requester_id} << 16 | uint32_t{t.tag} << 8 | (t.lower_address & 0x7F), &out);
  }
  out.insert(out.end(), t.data.begin(), t.data.end());
  return out;
}

TlpShape PeekTlp(const uint8_t* image, size_t size) {
  if (size < 12) {
    throw TlpError("TLP image of " + std::to_string(size) + " bytes is shorter than a header");
  }
  const uint32_t dw0 = LoadDw(image);
  const uint32_t fmt = dw0 >> 29;
  const uint32_t type = (dw0 >> 24) & 0x1F;
  TlpShape s{};
  if (fmt & kFmtPrefix) {
    throw TlpError("TLP prefixes (fmt 0b100) are not supported");
  } else if (type == kTypeMem) {
    s.kind = (fmt & kFmtData) ? TlpKind::kMemWrite : TlpKind::kMemRead;
  } else if (type == kTypeCpl && !(fmt & kFmtFourDw)) {
    s.kind = (fmt & kFmtData) ? TlpKind::kCompletionData : TlpKind::kCompletion;
  } else if (type == kTypeCfg0 && !(fmt & kFmtFourDw)) {
    s.kind = (fmt & kFmtData) ? TlpKind::kConfigWrite0 : TlpKind::kConfigRead0;
  } else {
    throw TlpError("unsupported TLP fmt " + std::to_string(fmt) + " type " + Hex(type) +
                   " (supported: MRd, MWr, Cpl, CplD, CfgRd0, CfgWr0)");
  }
  s.header_bytes = (fmt & kFmtFourDw) ? 16 : 12;
  uint32_t length = dw0 & 0x3FF;
  if (length == 0) length = kMaxLengthDw;
  s.payload_bytes = (fmt & kFmtData) ? length * 4 : 0;
  s.credit_class = s.kind == TlpKind::kMemWrite ? CreditClass::kPosted
                   : (s.kind == TlpKind::kCompletion || s.kind == TlpKind::kCompletionData)
                       ? CreditClass::kCompletion
                       : CreditClass::kNonPosted;
  if (size != s.header_bytes + s.payload_bytes) {
    throw TlpError("TLP image of " + std::to_string(size) + " bytes, but its header says " +
                   std::to_string(s.header_bytes) + " header + " + std::to_string(s.payload_bytes) +
                   " payload bytes");
  }
  return s;
}

Tlp DecodeTlp(const uint8_t* image, size_t size) {
  const TlpShape s = PeekTlp(image, size);
  const uint32_t dw0 = LoadDw(image);
  const uint32_t dw1 = LoadDw(image + 4);
  const uint32_t dw2 = LoadDw(image + 8);
  Tlp t;
  t.kind = s.kind;
  uint32_t length = dw0 & 0x3FF;
  t.length_dw = length == 0 ? kMaxLengthDw : length;
  t.poisoned = (dw0 >> 14) & 1;
  t.dw0_reserved = dw0 & kDw0ReservedMask;
  if (t.is_config()) {
    t.requester_id = static_cast<uint16_t>(dw1 >> 16);
    t.tag = static_cast<uint8_t>(dw1 >> 8);
    t.last_be = (dw1 >> 4) & 0xF;
    t.first_be = dw1 & 0xF;
    t.target_id = static_cast<uint16_t>(dw2 >> 16);
    t.config_offset = static_cast<uint16_t>(dw2 & 0xFFCu);
  } else if (t.is_request()) {
    t.requester_id = static_cast<uint16_t>(dw1 >> 16);
    t.tag = static_cast<uint8_t>(dw1 >> 8);
    t.last_be = (dw1 >> 4) & 0xF;
    t.first_be = dw1 & 0xF;
    if (s.header_bytes == 16) {
      t.address = uint64_t{dw2} << 32 | (LoadDw(image + 12) & ~3u);
      if (t.address < (uint64_t{1} << 32)) {
        throw TlpError(t.Describe() + ": 4-DW header for an address below 4 GiB");
      }
    } else {
      t.address = dw2 & ~3u;
    }
  } else {
    if (t.kind == TlpKind::kCompletion) t.length_dw = 0;
    t.completer_id = static_cast<uint16_t>(dw1 >> 16);
    t.status = static_cast<CompletionStatus>((dw1 >> 13) & 7);
    const uint32_t bc = dw1 & 0xFFF;
    t.byte_count = static_cast<uint16_t>(bc == 0 ? 4096 : bc);
    t.requester_id = static_cast<uint16_t>(dw2 >> 16);
    t.tag = static_cast<uint8_t>(dw2 >> 8);
    t.lower_address = dw2 & 0x7F;
  }
  t.data.assign(image + s.header_bytes, image + size);
  return t;
}

void CheckBeatDws(int beat_dws) {
  if (beat_dws != 4 && beat_dws != 8 && beat_dws != 16) {
    throw TlpError("beats of " + std::to_string(beat_dws) +
                   " DWs (the TLP stream is 4, 8 or 16 DWs: 128, 256 or 512 bits)");
  }
}

std::vector<TlpBeat> TlpImageToBeats(const uint8_t* image, size_t size, int beat_dws) {
  CheckBeatDws(beat_dws);
  const TlpShape s = PeekTlp(image, size);
  const uint32_t width = static_cast<uint32_t>(beat_dws);
  std::vector<TlpBeat> beats(1);
  beats[0].dws = beat_dws;
  beats[0].sop = true;
  for (uint32_t d = 0; d < s.header_bytes / 4; ++d) beats[0].dw[d] = LoadDw(image + 4 * d);
  const uint8_t* payload = image + s.header_bytes;
  for (uint32_t d = 0; d < s.payload_bytes / 4; ++d) {
    if (d % width == 0) {
      beats.emplace_back();
      beats.back().dws = beat_dws;
    }
    beats.back().dw[d % width] = LoadDw(payload + 4 * d);
  }
  beats.back().eop = true;
  return beats;
}

std::vector<uint8_t> TlpBeatsToImage(const std::vector<TlpBeat>& beats) {
  if (beats.empty()) throw TlpError("TLP of no beats");
  const int beat_dws = beats[0].dws;
  CheckBeatDws(beat_dws);
  for (size_t i = 0; i < beats.size(); ++i) {
    if (beats[i].sop != (i == 0)) throw TlpError("sop on beat " + std::to_string(i));
    if (beats[i].eop != (i + 1 == beats.size())) throw TlpError("eop on beat " + std::to_string(i));
    if (beats[i].dws != beat_dws) {
      throw TlpError("beat " + std::to_string(i) + " of " + std::to_string(beats[i].dws) +
                     " DWs in a TLP of " + std::to_string(beat_dws) + "-DW beats");
    }
  }
  const uint32_t width = static_cast<uint32_t>(beat_dws);
  const auto& h = beats[0].dw;
  const uint32_t fmt = h[0] >> 29;
  const uint32_t header_dws = (fmt & kFmtFourDw) ? 4 : 3;
  uint32_t length = h[0] & 0x3FF;
  if (length == 0) length = kMaxLengthDw;
  const uint32_t payload_dws = (fmt & kFmtData) ? length : 0;
  for (uint32_t d = header_dws; d < width; ++d) {
    if (h[d] != 0) {
      throw TlpError(std::to_string(header_dws) + "-DW header with DW" + std::to_string(d) +
                     " != 0");
    }
  }
  const size_t payload_beats = (payload_dws + width - 1) / width;
  if (beats.size() != 1 + payload_beats) {
    throw TlpError("length " + std::to_string(payload_dws) + " DW of payload but " +
                   std::to_string(beats.size() - 1) + " payload beats");
  }
  std::vector<uint8_t> image;
  image.reserve(4 * (header_dws + payload_dws));
  for (uint32_t d = 0; d < header_dws; ++d) StoreDw(h[d], &image);
  for (uint32_t d = 0; d < payload_dws; ++d) StoreDw(beats[1 + d / width].dw[d % width], &image);
  PeekTlp(image.data(), image.size());  // fmt/type
  return image;
}

std::vector<TlpBeat> EncodeTlpBeats(const Tlp& tlp, int beat_dws) {
  const std::vector<uint8_t> image = EncodeTlp(tlp);
  return TlpImageToBeats(image.data(), image.size(), beat_dws);
}

Tlp DecodeTlpBeats(const std::vector<TlpBeat>& beats) {
  const std::vector<uint8_t> image = TlpBeatsToImage(beats);
  Tlp t = DecodeTlp(image.data(), image.size());
  if (t.is_request() && (beats[0].dw[t.four_dw_header() ? 3 : 2] & 3u) != 0) {
    throw TlpError(t.Describe() + ": address bits 1:0 (PH) set");
  }
  return t;
}

std::vector<Tlp> SplitReadCompletions(const Tlp& request, const std::vector<uint8_t>& span,
                                      uint16_t completer_id, const CompletionSplit& split) {
  if (request.kind != TlpKind::kMemRead) {
    throw TlpError(request.Describe() + " is not a read");
  }
  if (span.size() != uint64_t{request.length_dw} * 4) {
    throw TlpError(request.Describe() + ": " + std::to_string(span.size()) +
                   " bytes of data for its DW span");
  }
  if (split.rcb != 64 && split.rcb != 128) {
    throw TlpError("read completion boundary " + std::to_string(split.rcb) + " (64 or 128)");
  }
  if (split.max_payload < split.rcb || split.max_payload % split.rcb != 0) {
    throw TlpError("max payload size " + std::to_string(split.max_payload) +
                   " is not a multiple of the read completion boundary " +
                   std::to_string(split.rcb));
  }
  const uint64_t first = RequestFirstByte(request);
  const uint64_t end = first + RequestByteCount(request);
  std::vector<Tlp> out;
  for (uint64_t cur = first; cur < end;) {
    const uint64_t dw_start = cur & ~uint64_t{3};
    uint64_t limit = dw_start + split.max_payload;
    if (split.one_rcb_per_completion) limit = std::min(limit, (cur / split.rcb + 1) * split.rcb);
    const uint64_t piece_end = end <= limit ? end : limit / split.rcb * split.rcb;
    const uint64_t dw_end = (piece_end + 3) & ~uint64_t{3};
    Tlp c;
    c.kind = TlpKind::kCompletionData;
    c.completer_id = completer_id;
    c.requester_id = request.requester_id;
    c.tag = request.tag;
    c.status = CompletionStatus::kSuccess;
    c.byte_count = static_cast<uint16_t>(end - cur);
    c.lower_address = static_cast<uint8_t>(cur & 0x7F);
    c.length_dw = static_cast<uint32_t>((dw_end - dw_start) / 4);
    const uint64_t offset = dw_start - request.address;
    c.data.assign(span.begin() + offset, span.begin() + offset + (dw_end - dw_start));
    out.push_back(std::move(c));
    cur = piece_end;
  }
  return out;
}

Tlp MakeErrorCompletion(const Tlp& request, uint16_t completer_id, CompletionStatus status) {
  Tlp c;
  c.kind = TlpKind::kCompletion;
  c.completer_id = completer_id;
  c.requester_id = request.requester_id;
  c.tag = request.tag;
  c.status = status;
  c.byte_count = static_cast<uint16_t>(RequestByteCount(request));
  c.lower_address = static_cast<uint8_t>(RequestFirstByte(request) & 0x7F);
  c.length_dw = 0;
  return c;
}

ReadReassembler::ReadReassembler(const Tlp& request) : request_(request) {
  if (request.kind != TlpKind::kMemRead) {
    throw TlpError(request.Describe() + " is not a read");
  }
  next_ = RequestFirstByte(request);
  remaining_ = RequestByteCount(request);
  bytes_.reserve(remaining_);
}

void ReadReassembler::Accept(const Tlp& c) {
  const std::string what = c.Describe() + " for " + request_.Describe();
  if (done()) throw TlpError(what + ": the read has already completed");
  if (c.is_request()) throw TlpError(what + ": not a completion");
  if (c.tag != request_.tag || c.requester_id != request_.requester_id) {
    throw TlpError(what + ": tag or requester ID does not match");
  }
  if (c.status != CompletionStatus::kSuccess) {
    failed_ = true;
    status_ = c.status;
    ++completions_;
    return;
  }
  if (c.kind != TlpKind::kCompletionData) throw TlpError(what + ": successful but no data");
  if (c.byte_count != remaining_) {
    throw TlpError(what + ": byte count " + std::to_string(c.byte_count) + ", expected " +
                   std::to_string(remaining_));
  }
  if (c.lower_address != (next_ & 0x7F)) {
    throw TlpError(what + ": lower address " + Hex(c.lower_address) + ", expected " +
                   Hex(next_ & 0x7F));
  }
  const uint32_t offset = next_ & 3;
  const uint32_t carried = c.length_dw * 4;
  if (carried <= offset) throw TlpError(what + ": carries no byte of the read");
  const uint32_t take = std::min(carried - offset, remaining_);
  if (carried - offset - take >= 4) {
    throw TlpError(what + ": carries " + std::to_string(carried - offset - take) +
                   " bytes beyond the end of the read");
  }
  bytes_.insert(bytes_.end(), c.data.begin() + offset, c.data.begin() + offset + take);
  next_ += take;
  remaining_ -= take;
  ++completions_;
}

}  // namespace tpu::sc
