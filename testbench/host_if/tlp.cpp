#include "host_if/tlp.h"

#include <sstream>

namespace tpu::tb::tlp {
namespace {

constexpr uint8_t kTypeMem = 0x00;
constexpr uint8_t kTypeCpl = 0x0a;

uint32_t Dw0(const Tlp& t) {
  return (uint32_t{t.fmt} << 29) | (uint32_t{t.type} << 24) | t.dw0_other |
         (t.poisoned ? 1u << 14 : 0u) | (t.length & 0x3ff);
}

}  // namespace

std::string Tlp::Describe() const {
  std::ostringstream s;
  s << std::hex;
  switch (kind) {
    case Kind::kMRd:
      s << "MRd";
      break;
    case Kind::kMWr:
      s << "MWr";
      break;
    case Kind::kCpl:
      s << "Cpl";
      break;
    case Kind::kCplD:
      s << "CplD";
      break;
    default:
      s << "TLP fmt=" << int{fmt} << " type=" << int{type};
      break;
  }
  s << std::dec << " len=" << length;
  if (kind == Kind::kMRd || kind == Kind::kMWr) {
    s << std::hex << " req=0x" << requester << " tag=" << int{tag} << " be=" << int{last_be}
      << int{first_be} << " addr=0x" << addr << (four_dw ? " (4DW)" : "");
  } else if (kind == Kind::kCpl || kind == Kind::kCplD) {
    s << std::hex << " cpl=0x" << completer << " req=0x" << requester << " tag=" << int{tag}
      << std::dec << " status=" << int{status} << " bc=" << byte_count << " la=" << int{lower_addr};
  }
  return s.str();
}

Tlp MakeMRd(uint16_t requester, uint8_t tag, uint64_t addr, uint32_t length_dw, uint8_t first_be,
            uint8_t last_be) {
  Tlp t;
  t.kind = Kind::kMRd;
  t.four_dw = addr >= (uint64_t{1} << 32);
  t.fmt = t.four_dw ? 1 : 0;
  t.type = kTypeMem;
  t.length = length_dw;
  t.requester = requester;
  t.tag = tag;
  t.addr = addr;
  t.first_be = first_be;
  t.last_be = last_be;
  return t;
}

Tlp MakeMWr(uint16_t requester, uint64_t addr, const std::vector<uint32_t>& payload,
            uint8_t first_be, uint8_t last_be) {
  Tlp t;
  t.kind = Kind::kMWr;
  t.four_dw = addr >= (uint64_t{1} << 32);
  t.fmt = t.four_dw ? 3 : 2;
  t.type = kTypeMem;
  t.length = static_cast<uint32_t>(payload.size());
  t.requester = requester;
  t.addr = addr;
  t.first_be = first_be;
  t.last_be = last_be;
  t.payload = payload;
  return t;
}

Tlp MakeCplD(uint16_t completer, uint16_t requester, uint8_t tag, uint16_t byte_count,
             uint8_t lower_addr, const std::vector<uint32_t>& payload) {
  Tlp t;
  t.kind = Kind::kCplD;
  t.fmt = 2;
  t.type = kTypeCpl;
  t.length = static_cast<uint32_t>(payload.size());
  t.completer = completer;
  t.requester = requester;
  t.tag = tag;
  t.status = kStatusSc;
  t.byte_count = byte_count;
  t.lower_addr = lower_addr & 0x7f;
  t.payload = payload;
  return t;
}

Tlp MakeCpl(uint16_t completer, uint16_t requester, uint8_t tag, uint8_t status,
            uint16_t byte_count, uint8_t lower_addr) {
  Tlp t;
  t.kind = Kind::kCpl;
  t.fmt = 0;
  t.type = kTypeCpl;
  t.length = 0;
  t.completer = completer;
  t.requester = requester;
  t.tag = tag;
  t.status = status;
  t.byte_count = byte_count;
  t.lower_addr = lower_addr & 0x7f;
  return t;
}

std::vector<Beat> Encode(const Tlp& t) {
  std::vector<Beat> beats(1);
  Beat& h = beats[0];
  h.sop = true;
  h.dw[0] = Dw0(t);
  if (t.type == kTypeCpl) {
    h.dw[1] = (uint32_t{t.completer} << 16) | (uint32_t{t.status} << 13) | (t.byte_count & 0xfff);
    h.dw[2] = (uint32_t{t.requester} << 16) | (uint32_t{t.tag} << 8) | (t.lower_addr & 0x7f);
  } else {
    h.dw[1] = (uint32_t{t.requester} << 16) | (uint32_t{t.tag} << 8) |
              (uint32_t{t.last_be & 0xfu} << 4) | (t.first_be & 0xfu);
    if (t.fmt & 1) {
      h.dw[2] = static_cast<uint32_t>(t.addr >> 32);
      h.dw[3] = static_cast<uint32_t>(t.addr) & ~3u;
    } else {
      h.dw[2] = static_cast<uint32_t>(t.addr) & ~3u;
    }
  }
  for (size_t d = 0; d < t.payload.size(); ++d) {
    if (d % 4 == 0) beats.emplace_back();
    beats.back().dw[d % 4] = t.payload[d];
  }
  beats.back().eop = true;
  return beats;
}

bool Decode(const std::vector<Beat>& beats, Tlp* out, std::string* error) {
  auto fail = [&](const std::string& why) {
    *error = why;
    return false;
  };
  if (beats.empty()) return fail("no beats");
  for (size_t i = 0; i < beats.size(); ++i) {
    if (beats[i].sop != (i == 0)) return fail("sop on beat " + std::to_string(i));
    if (beats[i].eop != (i + 1 == beats.size())) return fail("eop on beat " + std::to_string(i));
  }
  Tlp t;
  const auto& h = beats[0].dw;
  t.fmt = static_cast<uint8_t>(h[0] >> 29);
  t.type = static_cast<uint8_t>((h[0] >> 24) & 0x1f);
  t.poisoned = (h[0] >> 14) & 1;
  t.dw0_other = h[0] & 0x00ffbc00u;
  t.length = h[0] & 0x3ff;
  if (t.length == 0) t.length = 1024;
  if (t.type == kTypeMem && t.fmt <= 3) {
    t.kind = (t.fmt & 2) ? Kind::kMWr : Kind::kMRd;
    t.requester = static_cast<uint16_t>(h[1] >> 16);
    t.tag = static_cast<uint8_t>(h[1] >> 8);
    t.last_be = (h[1] >> 4) & 0xf;
    t.first_be = h[1] & 0xf;
    t.four_dw = t.fmt & 1;
    t.addr = t.four_dw ? (uint64_t{h[2]} << 32) | (h[3] & ~3u) : (h[2] & ~3u);
    if (!t.four_dw && h[3] != 0) return fail("3-DW header with DW3 != 0");
    if ((t.four_dw ? h[3] : h[2]) & 3u) return fail("address bits 1:0 (PH) set");
  } else if (t.type == kTypeCpl && (t.fmt == 0 || t.fmt == 2)) {
    t.kind = t.fmt == 2 ? Kind::kCplD : Kind::kCpl;
    t.completer = static_cast<uint16_t>(h[1] >> 16);
    t.status = (h[1] >> 13) & 7;
    t.byte_count = h[1] & 0xfff;
    if (t.byte_count == 0) t.byte_count = 4096;
    t.requester = static_cast<uint16_t>(h[2] >> 16);
    t.tag = static_cast<uint8_t>(h[2] >> 8);
    t.lower_addr = h[2] & 0x7f;
    if (h[3] != 0) return fail("completion header DW3 != 0");
  } else {
    return fail("unsupported fmt/type " + std::to_string(t.fmt) + "/" + std::to_string(t.type));
  }
  if (t.has_data()) {
    const size_t want = (t.length + 3) / 4;
    if (beats.size() != 1 + want) {
      return fail("length " + std::to_string(t.length) + " DW but " +
                  std::to_string(beats.size() - 1) + " payload beats");
    }
    t.payload.resize(t.length);
    for (size_t d = 0; d < t.length; ++d) t.payload[d] = beats[1 + d / 4].dw[d % 4];
  } else {
    if (beats.size() != 1) return fail("TLP without data has payload beats");
    if (t.kind == Kind::kCpl) t.length = 0;
  }
  *out = std::move(t);
  return true;
}

}  // namespace tpu::tb::tlp
