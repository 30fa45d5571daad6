// TLPs (sc_models/pcie/tlp.h): header bits as docs/host_if.md lays them out, encode/decode round
// trips and malformed images, byte enables, request checks, and the completion rules: splits at
// the read completion boundary and the max payload size (hand-computed and randomized), and
// reassembly with every check a requester makes.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "sc_models/pcie/tlp.h"

namespace tpu::sc {
namespace {

uint32_t Dw(const std::vector<uint8_t>& image, int d) {
  return uint32_t{image[4 * d]} | uint32_t{image[4 * d + 1]} << 8 |
         uint32_t{image[4 * d + 2]} << 16 | uint32_t{image[4 * d + 3]} << 24;
}

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + 7 * i);
  return v;
}

void ExpectSame(const Tlp& a, const Tlp& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.requester_id, b.requester_id);
  EXPECT_EQ(a.tag, b.tag);
  if (a.is_config()) {
    EXPECT_EQ(a.target_id, b.target_id);
    EXPECT_EQ(a.config_offset, b.config_offset);
    EXPECT_EQ(a.first_be, b.first_be);
    EXPECT_EQ(a.length_dw, b.length_dw);
  } else if (a.is_request()) {
    EXPECT_EQ(a.address, b.address);
    EXPECT_EQ(a.first_be, b.first_be);
    EXPECT_EQ(a.last_be, b.last_be);
    EXPECT_EQ(a.length_dw, b.length_dw);
  } else {
    EXPECT_EQ(a.completer_id, b.completer_id);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.byte_count, b.byte_count);
    EXPECT_EQ(a.lower_address, b.lower_address);
  }
  EXPECT_EQ(a.data, b.data);
}

std::string DecodeError(const std::vector<uint8_t>& image) {
  try {
    DecodeTlp(image.data(), image.size());
  } catch (const TlpError& e) {
    return e.what();
  }
  return "";
}

TEST(Tlp, HeaderBitsFollowHostIf) {
  const auto data = Pattern(8, 1);
  // MWr, 3 DW, 2 DWs of payload at 0x1000 from the device.
  auto mwr = EncodeTlp(MakeMemWrite(kDeviceId, 0x1000, data.data(), 8));
  ASSERT_EQ(mwr.size(), 12u + 8u);
  EXPECT_EQ(Dw(mwr, 0), 0x40000002u);  // fmt 010, type 00000, length 2
  EXPECT_EQ(Dw(mwr, 1), 0x010000FFu);  // requester 0x0100, tag 0, BEs F/F
  EXPECT_EQ(Dw(mwr, 2), 0x00001000u);  // address
  EXPECT_EQ(mwr[12], data[0]);         // payload in memory order
  // MRd, 4 DW, 128 DWs at 0x1_2345_6780, tag 7.
  auto mrd = EncodeTlp(MakeMemRead(kDeviceId, 7, 0x1'2345'6780ull, 512));
  ASSERT_EQ(mrd.size(), 16u);
  EXPECT_EQ(Dw(mrd, 0), 0x20000080u);  // fmt 001
  EXPECT_EQ(Dw(mrd, 1), 0x010007FFu);
  EXPECT_EQ(Dw(mrd, 2), 0x00000001u);  // address [63:32]
  EXPECT_EQ(Dw(mrd, 3), 0x23456780u);  // address [31:0]
  // CplD of 1 DW, byte count 4, lower address 0x44, to the root complex's tag 9.
  Tlp read = MakeMemRead(kRootComplexId, 9, 0xF000'0044, 4);
  auto cpld = EncodeTlp(SplitReadCompletions(read, Pattern(4, 3), kDeviceId, {})[0]);
  ASSERT_EQ(cpld.size(), 16u);
  EXPECT_EQ(Dw(cpld, 0), 0x4A000001u);  // fmt 010, type 01010
  EXPECT_EQ(Dw(cpld, 1), 0x01000004u);  // completer 0x0100, status SC, byte count 4
  EXPECT_EQ(Dw(cpld, 2), 0x00000944u);  // requester 0, tag 9, lower address 0x44
  // Cpl with status UR.
  auto cpl = EncodeTlp(MakeErrorCompletion(read, kDeviceId, CompletionStatus::kUnsupportedRequest));
  ASSERT_EQ(cpl.size(), 12u);
  EXPECT_EQ(Dw(cpl, 0), 0x0A000000u);
  EXPECT_EQ(Dw(cpl, 1), 0x01002004u);  // status 001 at [15:13]
  // CfgRd0 / CfgWr0 of register 0x48 (Device Control) of bus 1, device 0, function 0.
  auto cfgrd = EncodeTlp(MakeConfigRead(kRootComplexId, 5, kDeviceId, 0x48));
  ASSERT_EQ(cfgrd.size(), 12u);
  EXPECT_EQ(Dw(cfgrd, 0), 0x04000001u);  // fmt 000, type 00100, length 1
  EXPECT_EQ(Dw(cfgrd, 1), 0x0000050Fu);  // requester 0, tag 5, first BE F
  EXPECT_EQ(Dw(cfgrd, 2), 0x01000048u);  // target 0x0100, register 0x48 / 4
  auto cfgwr = EncodeTlp(MakeConfigWrite(kRootComplexId, 6, kDeviceId, 0x10, 0xFFFFFFFFu, 0x3));
  ASSERT_EQ(cfgwr.size(), 16u);
  EXPECT_EQ(Dw(cfgwr, 0), 0x44000001u);  // fmt 010
  EXPECT_EQ(Dw(cfgwr, 1), 0x00000603u);
  EXPECT_EQ(Dw(cfgwr, 3), 0xFFFFFFFFu);
  EXPECT_EQ(PeekTlp(cfgwr.data(), cfgwr.size()).credit_class, CreditClass::kNonPosted);
  // Length 1024 is encoded as 0.
  std::vector<uint8_t> big(4096);
  EXPECT_EQ(Dw(EncodeTlp(MakeMemWrite(kDeviceId, 0x10000, big.data(), 4096)), 0), 0x40000000u);
}

TEST(Tlp, RoundTripsEveryKind) {
  const auto data = Pattern(4096, 5);
  std::vector<Tlp> tlps = {
      MakeMemRead(kDeviceId, 0, 0x0, 4),
      MakeMemRead(kDeviceId, 255, 0xFFFF'F000ull, 4096),
      MakeMemRead(kDeviceId, 3, 0xFFFF'0000'0003ull, 1),
      MakeMemWrite(kDeviceId, 0x1001, data.data(), 2),
      MakeMemWrite(kDeviceId, 0x1'0000'0ffdull, data.data(), 7),
      MakeMemWrite(kRootComplexId, 0x2000, data.data(), 4096),
      MakeErrorCompletion(MakeMemRead(kDeviceId, 4, 0x10, 8), kRootComplexId,
                          CompletionStatus::kCompleterAbort),
      MakeConfigRead(kRootComplexId, 1, 0x2318, 0xFFC),
      MakeConfigWrite(kRootComplexId, 2, kDeviceId, 0x04, 0x00000006, 0x1),
  };
  const Tlp read = MakeMemRead(kDeviceId, 12, 0x3004, 1000);
  for (const Tlp& c :
       SplitReadCompletions(read, Pattern(read.length_dw * 4, 9), kRootComplexId, {})) {
    tlps.push_back(c);
  }
  for (const Tlp& t : tlps) {
    SCOPED_TRACE(t.Describe());
    const auto image = EncodeTlp(t);
    EXPECT_EQ(image.size(), t.header_bytes() + t.payload_bytes());
    const TlpShape s = PeekTlp(image.data(), image.size());
    EXPECT_EQ(s.kind, t.kind);
    EXPECT_EQ(s.credit_class, t.credit_class());
    ExpectSame(DecodeTlp(image.data(), image.size()), t);
  }
  EXPECT_EQ(tlps[0].credit_class(), CreditClass::kNonPosted);
  EXPECT_EQ(tlps[3].credit_class(), CreditClass::kPosted);
  EXPECT_EQ(tlps[6].credit_class(), CreditClass::kCompletion);
}

TEST(Tlp, MalformedImagesAreRejected) {
  const auto data = Pattern(8, 1);
  const auto good = EncodeTlp(MakeMemWrite(kDeviceId, 0x1000, data.data(), 8));
  EXPECT_NE(DecodeError({1, 2, 3}).find("shorter than a header"), std::string::npos);
  auto cut = good;
  cut.pop_back();
  EXPECT_NE(DecodeError(cut).find("header says 12 header + 8 payload"), std::string::npos);
  auto msg = good;
  msg[3] = 0x30;  // fmt 001, type 10000: a message
  EXPECT_NE(DecodeError(msg).find("unsupported TLP"), std::string::npos);
  auto prefix = good;
  prefix[3] = 0x80;
  EXPECT_NE(DecodeError(prefix).find("prefixes"), std::string::npos);
  // A 4-DW header must carry an address of 4 GiB or more.
  auto low = EncodeTlp(MakeMemRead(kDeviceId, 1, 0x1'0000'0000ull, 4));
  low[8] = low[9] = low[10] = low[11] = 0;
  EXPECT_NE(DecodeError(low).find("below 4 GiB"), std::string::npos);
  // A CplD cannot have a 4-DW header.
  auto cpld4 = EncodeTlp(MakeErrorCompletion(MakeMemRead(kDeviceId, 0, 0, 4), 0,
                                             CompletionStatus::kUnsupportedRequest));
  cpld4[3] |= 0x20;
  EXPECT_NE(DecodeError(cpld4).find("unsupported"), std::string::npos);
  // Data that does not match the length cannot be encoded.
  Tlp bad = MakeMemWrite(kDeviceId, 0x1000, data.data(), 8);
  bad.data.pop_back();
  EXPECT_THROW(EncodeTlp(bad), TlpError);
}

TEST(Tlp, ByteEnablesAndByteRange) {
  const Tlp a = MakeMemRead(kDeviceId, 0, 0x1001, 2);  // bytes 1, 2 of one DW
  EXPECT_EQ(a.length_dw, 1u);
  EXPECT_EQ(a.first_be, 0x6);
  EXPECT_EQ(a.last_be, 0x0);
  EXPECT_EQ(RequestFirstByte(a), 0x1001u);
  EXPECT_EQ(RequestByteCount(a), 2u);
  const Tlp b = MakeMemRead(kDeviceId, 0, 0x1003, 2);  // byte 3, then byte 0 of the next DW
  EXPECT_EQ(b.length_dw, 2u);
  EXPECT_EQ(b.first_be, 0x8);
  EXPECT_EQ(b.last_be, 0x1);
  EXPECT_EQ(RequestByteCount(b), 2u);
  const Tlp c = MakeMemRead(kDeviceId, 0, 0x1002, 509);
  EXPECT_EQ(c.length_dw, 128u);
  EXPECT_EQ(c.first_be, 0xC);
  EXPECT_EQ(c.last_be, 0x7);
  EXPECT_EQ(RequestByteCount(c), 509u);
  const uint8_t v[3] = {0xAA, 0xBB, 0xCC};
  const Tlp w = MakeMemWrite(kDeviceId, 0x2003, v, 3);
  EXPECT_EQ(w.data, (std::vector<uint8_t>{0, 0, 0, 0xAA, 0xBB, 0xCC, 0, 0}));
  EXPECT_THROW(MakeMemRead(kDeviceId, 0, 0x1000, 0), TlpError);
  EXPECT_THROW(MakeMemRead(kDeviceId, 0, 0x1001, 4096), TlpError);  // 1025 DWs
}

TEST(Tlp, CheckRequestRules) {
  std::vector<uint8_t> d(512);
  EXPECT_EQ(CheckRequest(MakeMemRead(kDeviceId, 0, 0x1000, 512), 256, 512), "");
  EXPECT_NE(
      CheckRequest(MakeMemRead(kDeviceId, 0, 0x1000, 1024), 256, 512).find("max read request"),
      std::string::npos);
  EXPECT_NE(CheckRequest(MakeMemRead(kDeviceId, 0, 0x1F00, 512), 256, 4096).find("4 KiB"),
            std::string::npos);
  EXPECT_EQ(CheckRequest(MakeMemWrite(kDeviceId, 0x1000, d.data(), 256), 256, 512), "");
  EXPECT_NE(
      CheckRequest(MakeMemWrite(kDeviceId, 0x1000, d.data(), 512), 256, 512).find("max payload"),
      std::string::npos);
  Tlp holes = MakeMemRead(kDeviceId, 0, 0x1000, 64);
  holes.first_be = 0x5;
  EXPECT_NE(CheckRequest(holes, 256, 512).find("contiguous"), std::string::npos);
}

struct SplitCase {
  uint64_t address;
  uint32_t bytes;
  CompletionSplit split;
  std::vector<uint32_t> payload;     // bytes carried by each completion
  std::vector<uint16_t> byte_count;  // of each
  std::vector<uint8_t> lower;        // lower address of each
};

// The RTL's beats (docs/host_if.md section 1): header DWs in beat 0 (DW3 0 for 3 DWs), payload
// DW d in DW d % 4 of beat 1 + d / 4; the byte image and the Tlp round-trip through them.
TEST(TlpBeats, LayoutFollowsHostIf) {
  std::vector<uint8_t> bytes(20);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(0x10 + i);
  const Tlp w = MakeMemWrite(kDeviceId, 0x2'0000'1000ull, bytes.data(), 20);  // 4-DW, 5 DWs
  const std::vector<TlpBeat> beats = EncodeTlpBeats(w);
  ASSERT_EQ(beats.size(), 3u);
  EXPECT_TRUE(beats[0].sop);
  EXPECT_FALSE(beats[0].eop);
  EXPECT_TRUE(beats[2].eop);
  EXPECT_EQ(beats[0].dw[0], 0x60000005u);  // fmt 011, type 0, length 5
  EXPECT_EQ(beats[0].dw[1], 0x010000FFu);  // requester 0x0100, tag 0, BE F/F
  EXPECT_EQ(beats[0].dw[2], 0x2u);
  EXPECT_EQ(beats[0].dw[3], 0x1000u);
  EXPECT_EQ(beats[1].dw[0], 0x13121110u);
  EXPECT_EQ(beats[1].dw[3], 0x1F1E1D1Cu);
  EXPECT_EQ(beats[2].dw[0], 0x23222120u);
  EXPECT_EQ(beats[2].dw[1], 0u);
  const Tlp back = DecodeTlpBeats(beats);
  EXPECT_EQ(EncodeTlp(back), EncodeTlp(w));
  const std::vector<uint8_t> image = EncodeTlp(w);
  EXPECT_EQ(TlpBeatsToImage(beats), image);

  Tlp r = MakeMemRead(kDeviceId, 7, 0x1000, 64);  // 3-DW header: DW3 stays 0
  r.poisoned = true;
  r.dw0_reserved = 0x00300000;  // attribute bits
  const std::vector<TlpBeat> rb = EncodeTlpBeats(r);
  ASSERT_EQ(rb.size(), 1u);
  EXPECT_TRUE(rb[0].sop && rb[0].eop);
  EXPECT_EQ(rb[0].dw[0], 0x00304010u);
  EXPECT_EQ(rb[0].dw[3], 0u);
  const Tlp rback = DecodeTlpBeats(rb);
  EXPECT_TRUE(rback.poisoned);
  EXPECT_EQ(rback.dw0_reserved, 0x00300000u);
}

// The same layout on the wide streams (256 and 512 bits): the header alone in beat 0, its DWs
// past the header 0, payload DW d in DW d % D of beat 1 + d / D; payloads of 1, D and D + 1
// DWs under 3- and 4-DW headers round-trip.
TEST(TlpBeats, WideLayoutsFollowHostIf) {
  for (int d : {4, 8, 16}) {
    SCOPED_TRACE("beats of " + std::to_string(d) + " DWs");
    for (int payload_dws : {1, d, d + 1}) {
      for (uint64_t address : {uint64_t{0x1000}, uint64_t{0x2'0000'1000}}) {
        const bool four_dw = address > 0xFFFF'FFFF;
        std::vector<uint8_t> bytes(4 * payload_dws);
        for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i + 1);
        const Tlp w = MakeMemWrite(kDeviceId, address, bytes.data(),
                                   static_cast<uint32_t>(bytes.size()));
        const std::vector<TlpBeat> beats = EncodeTlpBeats(w, d);
        ASSERT_EQ(beats.size(), 1u + (payload_dws + d - 1) / d);
        for (const TlpBeat& b : beats) EXPECT_EQ(b.dws, d);
        EXPECT_EQ(beats[0].dw[0] & 0x3FFu, static_cast<uint32_t>(payload_dws));
        for (int k = four_dw ? 4 : 3; k < kMaxBeatDws; ++k) EXPECT_EQ(beats[0].dw[k], 0u);
        for (int k = 0; k < payload_dws; ++k) {
          const uint32_t b0 = static_cast<uint32_t>(4 * k + 1);
          EXPECT_EQ(beats[1 + k / d].dw[k % d],
                    b0 | (b0 + 1) << 8 | (b0 + 2) << 16 | (b0 + 3) << 24)
              << "payload DW " << k;
        }
        for (int k = payload_dws % d; k != 0 && k < kMaxBeatDws; ++k) {
          EXPECT_EQ(beats.back().dw[k], 0u) << "unused DW " << k;
        }
        EXPECT_TRUE(beats.front().sop && beats.back().eop);
        EXPECT_EQ(TlpBeatsToImage(beats), EncodeTlp(w));
        EXPECT_EQ(EncodeTlp(DecodeTlpBeats(beats)), EncodeTlp(w));
      }
    }
  }
}

TEST(TlpBeats, WideBeatsAreChecked) {
  const uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const Tlp w = MakeMemWrite(0, 0x100, data, 8);
  auto rejects = [](const std::vector<TlpBeat>& beats, const std::string& what) {
    try {
      TlpBeatsToImage(beats);
      ADD_FAILURE() << "accepted, expected: " << what;
    } catch (const TlpError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  std::vector<TlpBeat> b = EncodeTlpBeats(w, 8);
  ASSERT_EQ(b.size(), 2u);
  b[0].dw[7] = 1;  // past the 3-DW header, in the 256-bit beat
  rejects(b, "3-DW header with DW7 != 0");
  b = EncodeTlpBeats(w, 16);
  b[1].dws = 8;
  rejects(b, "beat 1 of 8 DWs in a TLP of 16-DW beats");
  b = EncodeTlpBeats(w, 8);
  b.insert(b.begin() + 1, TlpBeat{});  // a 4-DW beat in the middle
  b[1].dws = 8;
  rejects(b, "payload beats");
  for (int bad : {0, 2, 6, 32}) {
    EXPECT_THROW(EncodeTlpBeats(w, bad), TlpError) << bad;
  }
  b = EncodeTlpBeats(w, 8);
  for (TlpBeat& x : b) x.dws = 12;
  rejects(b, "beats of 12 DWs");
}

TEST(TlpBeats, MalformedBeatsAreRejected) {
  const uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<TlpBeat> good = EncodeTlpBeats(MakeMemWrite(0, 0x100, data, 8));
  auto rejects = [](std::vector<TlpBeat> beats, const std::string& what) {
    try {
      DecodeTlpBeats(beats);
      ADD_FAILURE() << "accepted, expected: " << what;
    } catch (const TlpError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  std::vector<TlpBeat> b = good;
  b[1].sop = true;
  rejects(b, "sop on beat 1");
  b = good;
  b[0].eop = true;
  rejects(b, "eop on beat 0");
  b = good;
  b.insert(b.begin() + 1, TlpBeat{});
  rejects(b, "payload beats");
  b = good;
  b[0].dw[3] = 1;
  rejects(b, "DW3 != 0");
  b = good;
  b[0].dw[2] |= 1;
  rejects(b, "PH");
  b = good;
  b[0].dw[0] = (b[0].dw[0] & ~(0x1Fu << 24)) | 0x02u << 24;  // I/O write
  rejects(b, "unsupported TLP");
}

TEST(Completions, SplitAtRcbAndMaxPayloadByHand) {
  const std::vector<SplitCase> cases = {
      // Aligned 512 bytes, MPS 256: two completions of MPS.
      {0x1000, 512, {64, 256, false}, {256, 256}, {512, 256}, {0x00, 0x00}},
      // 300 bytes from 0x1010: the first completion stops at the RCB boundary 0x1100
      // (0x1010 + 256 = 0x1110 rounded down to 64), the rest follows.
      {0x1010, 300, {64, 256, false}, {240, 60}, {300, 60}, {0x10, 0x00}},
      // The same, one RCB at most per completion.
      {0x1010,
       300,
       {64, 256, true},
       {48, 64, 64, 64, 60},
       {300, 252, 188, 124, 60},
       {0x10, 0x40, 0x00, 0x40, 0x00}},
      // RCB 128, MPS 128.
      {0x1010, 300, {128, 128, false}, {112, 128, 60}, {300, 188, 60}, {0x10, 0x00, 0x00}},
      // Unaligned start and end inside DWs: the payload covers whole DWs.
      {0x2003, 70, {64, 256, false}, {76}, {70}, {0x03}},
      {0x203E, 70, {64, 256, true}, {4, 64, 4}, {70, 68, 4}, {0x3E, 0x40, 0x00}},
      // A 1-byte read.
      {0x3005, 1, {64, 256, false}, {4}, {1}, {0x05}},
  };
  for (const SplitCase& c : cases) {
    const Tlp read = MakeMemRead(kDeviceId, 5, c.address, c.bytes);
    SCOPED_TRACE(read.Describe() + (c.split.one_rcb_per_completion ? " one RCB" : ""));
    const auto span = Pattern(read.length_dw * 4, 11);
    const auto cpls = SplitReadCompletions(read, span, kRootComplexId, c.split);
    ASSERT_EQ(cpls.size(), c.payload.size());
    ReadReassembler r(read);
    for (size_t i = 0; i < cpls.size(); ++i) {
      EXPECT_EQ(cpls[i].kind, TlpKind::kCompletionData);
      EXPECT_EQ(cpls[i].payload_bytes(), c.payload[i]) << i;
      EXPECT_EQ(cpls[i].byte_count, c.byte_count[i]) << i;
      EXPECT_EQ(cpls[i].lower_address, c.lower[i]) << i;
      EXPECT_EQ(cpls[i].tag, 5);
      EXPECT_EQ(cpls[i].requester_id, kDeviceId);
      r.Accept(cpls[i]);
    }
    ASSERT_TRUE(r.done());
    EXPECT_FALSE(r.failed());
    const size_t skip = c.address & 3;
    EXPECT_EQ(r.bytes(), std::vector<uint8_t>(span.begin() + skip, span.begin() + skip + c.bytes));
  }
}

TEST(Completions, RandomSplitsFollowTheRulesAndReassemble) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 3000; ++i) {
    const uint32_t mrrs = 128u << (rng() % 6);
    const uint32_t rcb = rng() % 2 ? 64 : 128;
    const uint32_t mps = std::max<uint32_t>(rcb, 128u << (rng() % 6));
    const CompletionSplit split{rcb, mps, rng() % 2 == 0};
    const uint32_t bytes = 1 + rng() % mrrs;
    // Within one MRRS-aligned block, as a requester issues them.
    const uint64_t block = (rng() % (1ull << 36)) * mrrs;
    const uint64_t address = block + rng() % (mrrs - bytes + 1);
    const Tlp read = MakeMemRead(kDeviceId, static_cast<uint8_t>(i), address, bytes);
    SCOPED_TRACE(read.Describe() + " RCB " + std::to_string(rcb) + " MPS " + std::to_string(mps) +
                 (split.one_rcb_per_completion ? " one RCB" : ""));
    ASSERT_EQ(CheckRequest(read, mps, mrrs), "");
    const auto span = Pattern(read.length_dw * 4, static_cast<uint8_t>(i));
    const auto cpls = SplitReadCompletions(read, span, kRootComplexId, split);
    ReadReassembler r(read);
    uint64_t next = address;
    for (size_t k = 0; k < cpls.size(); ++k) {
      const Tlp& c = cpls[k];
      ASSERT_LE(c.payload_bytes(), mps);
      const uint64_t dw_start = next & ~uint64_t{3};
      const uint64_t end = dw_start + c.payload_bytes();
      if (k + 1 < cpls.size()) {
        ASSERT_EQ(end % rcb, 0u) << "completion " << k << " does not end on the RCB";
      }
      if (split.one_rcb_per_completion) {
        ASSERT_EQ(dw_start / rcb, (end - 1) / rcb) << "completion " << k << " spans two RCBs";
      }
      r.Accept(c);
      next = std::min<uint64_t>(end, address + bytes);
    }
    ASSERT_TRUE(r.done());
    const size_t skip = address & 3;
    ASSERT_EQ(r.bytes(), std::vector<uint8_t>(span.begin() + skip, span.begin() + skip + bytes));
  }
}

TEST(Completions, ReassemblerChecksEveryField) {
  const Tlp read = MakeMemRead(kDeviceId, 5, 0x1000, 512);
  const auto cpls = SplitReadCompletions(read, Pattern(512, 1), kRootComplexId, {64, 256, false});
  auto rejects = [&](Tlp c, const char* why) {
    ReadReassembler r(read);
    try {
      r.Accept(c);
    } catch (const TlpError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "accepted " << c.Describe() << ", expected: " << why;
  };
  Tlp c = cpls[0];
  c.tag = 6;
  rejects(c, "tag or requester");
  c = cpls[0];
  c.byte_count = 256;
  rejects(c, "byte count 256, expected 512");
  c = cpls[0];
  c.lower_address = 4;
  rejects(c, "lower address");
  rejects(cpls[1], "byte count");  // out of order
  // Too much data: 512 bytes in one completion for a 4-byte read.
  ReadReassembler small(MakeMemRead(kDeviceId, 5, 0x1000, 4));
  c = cpls[0];
  c.byte_count = 4;
  EXPECT_THROW(small.Accept(c), TlpError);
  // After the last completion nothing more is accepted.
  ReadReassembler r(read);
  r.Accept(cpls[0]);
  r.Accept(cpls[1]);
  EXPECT_TRUE(r.done());
  EXPECT_EQ(r.completions(), 2u);
  EXPECT_THROW(r.Accept(cpls[1]), TlpError);
  // An error status ends the read.
  ReadReassembler f(read);
  f.Accept(cpls[0]);
  f.Accept(MakeErrorCompletion(read, kRootComplexId, CompletionStatus::kCompleterAbort));
  EXPECT_TRUE(f.done());
  EXPECT_TRUE(f.failed());
  EXPECT_EQ(f.status(), CompletionStatus::kCompleterAbort);
}

TEST(Completions, BadSplitConfigurationIsRejected) {
  const Tlp read = MakeMemRead(kDeviceId, 5, 0x1000, 64);
  const auto span = Pattern(64, 1);
  EXPECT_THROW(SplitReadCompletions(read, span, 0, {32, 256, false}), TlpError);
  EXPECT_THROW(SplitReadCompletions(read, span, 0, {128, 64, false}), TlpError);
  EXPECT_THROW(SplitReadCompletions(read, Pattern(60, 1), 0, {}), TlpError);
  const uint8_t v[4] = {};
  EXPECT_THROW(SplitReadCompletions(MakeMemWrite(0, 0, v, 4), Pattern(4, 1), 0, {}), TlpError);
}

}  // namespace
}  // namespace tpu::sc
