// The link-timing calculator (sc_models/pcie/pcie_link_config.h) against hand-computed figures:
// rates per generation and width, the wire bytes of every TLP type, the DLLP share, payload
// splitting, transfer times, the payload limit, link names and configuration checks.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sc_models/pcie/pcie_link_config.h"
#include "sc_models/pcie/tlp.h"

namespace tpu::sc {
namespace {

LinkTiming Timing(const std::string& name, uint32_t tlps_per_dllp = 4, bool ecrc = false) {
  PcieLinkConfig c = PcieLinkConfig::FromName(name);
  c.tlps_per_dllp = tlps_per_dllp;
  c.ecrc = ecrc;
  return LinkTiming(c);
}

uint32_t WireBytes(const LinkTiming& t, const Tlp& tlp) {
  return t.tlp_wire_bytes(tlp.header_bytes(), tlp.payload_bytes());
}

// gen3x16 after 128b/130b, GB/s: 16 GB/s x 128 / 130 = 15.7538...
constexpr double kGen3x16 = 16.0 * 128 / 130;

std::string ErrorOf(const std::string& name) {
  try {
    PcieLinkConfig::FromName(name);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(LinkTiming, RawRatesPerGenerationAndWidth) {
  // GT/s x lanes / 8 x encoding: 8b/10b at Gen1/2, 128b/130b from Gen3.
  EXPECT_DOUBLE_EQ(Timing("gen1x1").raw_rate_bytes_per_s(), 250e6);
  EXPECT_DOUBLE_EQ(Timing("gen2x1").raw_rate_bytes_per_s(), 500e6);
  EXPECT_NEAR(Timing("gen3x1").raw_rate_bytes_per_s(), 1e9 * 128 / 130, 1.0);
  EXPECT_NEAR(Timing("gen4x1").raw_rate_bytes_per_s(), 2e9 * 128 / 130, 1.0);
  EXPECT_NEAR(Timing("gen5x1").raw_rate_bytes_per_s(), 4e9 * 128 / 130, 1.0);
  EXPECT_DOUBLE_EQ(Timing("gen3x16").line_rate_bytes_per_s(), 16e9);
  EXPECT_NEAR(Timing("gen3x16").raw_rate_bytes_per_s(), kGen3x16 * 1e9, 1e-3);
  EXPECT_NEAR(Timing("gen4x8").raw_rate_bytes_per_s(), kGen3x16 * 1e9, 1e-3);
  EXPECT_DOUBLE_EQ(Timing("gen2x4").raw_rate_bytes_per_s(), 2e9);
  EXPECT_DOUBLE_EQ(Timing("gen1x1").byte_time_ns(), 4.0);
}

TEST(LinkTiming, OverheadFieldsPerGeneration) {
  // Gen1/2: STP + END (2), sequence number (2), LCRC (4). Gen3+: STP token (4, holding the
  // sequence number), LCRC (4). 8 bytes either way.
  for (int gen = 1; gen <= 5; ++gen) {
    EXPECT_EQ(FramingBytes(gen) + SequenceNumberBytes(gen) + kLcrcBytes, 8u) << "gen " << gen;
  }
  EXPECT_EQ(FramingBytes(2), 2u);
  EXPECT_EQ(SequenceNumberBytes(2), 2u);
  EXPECT_EQ(FramingBytes(3), 4u);
  EXPECT_EQ(SequenceNumberBytes(3), 0u);
  EXPECT_EQ(Timing("gen3x16").tlp_overhead_bytes(12), 20u);
  EXPECT_EQ(Timing("gen3x16").tlp_overhead_bytes(16), 24u);
  EXPECT_EQ(Timing("gen3x16", 4, true).tlp_overhead_bytes(12), 24u);
}

TEST(LinkTiming, WireBytesOfEveryTlpType) {
  const uint8_t data[256] = {};
  const Tlp mrd32 = MakeMemRead(kDeviceId, 1, 0x1000, 512);
  const Tlp mrd64 = MakeMemRead(kDeviceId, 1, 0x1'0000'1000ull, 512);
  const Tlp mwr32_1 = MakeMemWrite(kDeviceId, 0x1000, data, 1);
  const Tlp mwr32 = MakeMemWrite(kDeviceId, 0x1000, data, 256);
  const Tlp mwr64 = MakeMemWrite(kDeviceId, 0x1'0000'1000ull, data, 256);
  const Tlp cpl = MakeErrorCompletion(mrd32, kRootComplexId, CompletionStatus::kUnsupportedRequest);
  const std::vector<Tlp> cpld =
      SplitReadCompletions(mrd32, std::vector<uint8_t>(512), kRootComplexId, {64, 256, false});
  ASSERT_EQ(cpld.size(), 2u);
  for (const char* name : {"gen1x1", "gen2x8", "gen3x16", "gen4x8", "gen5x4"}) {
    SCOPED_TRACE(name);
    const LinkTiming t = Timing(name);
    EXPECT_EQ(WireBytes(t, mrd32), 8u + 12u);
    EXPECT_EQ(WireBytes(t, mrd64), 8u + 16u);
    EXPECT_EQ(WireBytes(t, mwr32_1), 8u + 12u + 4u);
    EXPECT_EQ(WireBytes(t, mwr32), 8u + 12u + 256u);
    EXPECT_EQ(WireBytes(t, mwr64), 8u + 16u + 256u);
    EXPECT_EQ(WireBytes(t, cpl), 8u + 12u);
    EXPECT_EQ(WireBytes(t, cpld[0]), 8u + 12u + 256u);
    const LinkTiming e = Timing(name, 4, true);
    EXPECT_EQ(WireBytes(e, mwr64), 8u + 16u + 256u + 4u);
    EXPECT_EQ(WireBytes(e, cpl), 8u + 12u + 4u);
  }
  // The images the link carries are header + payload.
  EXPECT_EQ(EncodeTlp(mrd32).size(), 12u);
  EXPECT_EQ(EncodeTlp(mrd64).size(), 16u);
  EXPECT_EQ(EncodeTlp(mwr32_1).size(), 16u);
  EXPECT_EQ(EncodeTlp(mwr64).size(), 272u);
  EXPECT_EQ(EncodeTlp(cpl).size(), 12u);
  EXPECT_EQ(EncodeTlp(cpld[1]).size(), 268u);
}

TEST(LinkTiming, DllpShare) {
  EXPECT_DOUBLE_EQ(Timing("gen3x16", 4).dllp_bytes_per_tlp(), 2.0);
  EXPECT_DOUBLE_EQ(Timing("gen3x16", 1).dllp_bytes_per_tlp(), 8.0);
  EXPECT_DOUBLE_EQ(Timing("gen3x16", 0).dllp_bytes_per_tlp(), 0.0);
  // gen1x1, 4 ns a byte: a 1-DW MWr is 24 bytes + 2 of DLLP share.
  EXPECT_DOUBLE_EQ(Timing("gen1x1").tlp_time_ns(12, 4), 26 * 4.0);
}

TEST(LinkTiming, SplitsPayloadIntoMaxPayloadTlps) {
  const LinkTiming t = Timing("gen3x16");  // MPS 256
  EXPECT_TRUE(t.SplitPayload(0).empty());
  EXPECT_EQ(t.SplitPayload(1), std::vector<uint32_t>{4});
  EXPECT_EQ(t.SplitPayload(4), std::vector<uint32_t>{4});
  EXPECT_EQ(t.SplitPayload(255), std::vector<uint32_t>{256});
  EXPECT_EQ(t.SplitPayload(256), std::vector<uint32_t>{256});
  EXPECT_EQ(t.SplitPayload(257), (std::vector<uint32_t>{256, 4}));
  EXPECT_EQ(t.SplitPayload(4096), std::vector<uint32_t>(16, 256));
  EXPECT_EQ(t.SplitPayload(1 << 20), std::vector<uint32_t>(4096, 256));
}

TEST(LinkTiming, TransferTimesByHand) {
  // gen1x1, latency 200 ns, 4 ns a byte, 2 bytes of DLLP share a TLP.
  const LinkTiming g1 = Timing("gen1x1");
  EXPECT_DOUBLE_EQ(g1.transfer_time_ns(1), 200 + (24 + 2) * 4.0);
  EXPECT_DOUBLE_EQ(g1.transfer_time_ns(257), 200 + (276 + 2 + 24 + 2) * 4.0);
  EXPECT_DOUBLE_EQ(g1.serialization_time_ns(4096), 16 * (276 + 2) * 4.0);
  // gen3x16: 1 MiB in 4096 TLPs of 278 wire bytes (with the share) at 15.7538 GB/s.
  const LinkTiming g3 = Timing("gen3x16");
  EXPECT_NEAR(g3.transfer_time_ns(1 << 20), 200 + 4096 * 278 / kGen3x16, 1e-6);
  // 4-DW headers cost 4 bytes more a TLP.
  EXPECT_NEAR(g3.serialization_time_ns(1 << 20, 16) - g3.serialization_time_ns(1 << 20, 12),
              4096 * 4 / kGen3x16, 1e-6);
}

TEST(LinkTiming, PayloadLimit) {
  // gen3x16, MPS 256, 3-DW header: 15.7538 GB/s x 256 / (256 + 20 + 2) = 14.5071 GB/s.
  const LinkTiming g3 = Timing("gen3x16");
  EXPECT_NEAR(g3.payload_efficiency(), 256.0 / 278.0, 1e-12);
  EXPECT_NEAR(g3.payload_limit_bytes_per_s() / 1e9, 14.507139, 1e-6);
  EXPECT_NEAR(g3.payload_limit_bytes_per_s(16) / 1e9, 14.301364, 1e-6);  // 256 / 282
  // Without the DLLP share: 256 / 276.
  EXPECT_NEAR(Timing("gen3x16", 0).payload_limit_bytes_per_s() / 1e9, kGen3x16 * 256 / 276, 1e-9);
  // gen1x1 with MPS 128: 250 MB/s x 128 / 150.
  PcieLinkConfig c = PcieLinkConfig::FromName("gen1x1");
  c.max_payload = 128;
  EXPECT_NEAR(LinkTiming(c).payload_limit_bytes_per_s(), 250e6 * 128 / 150, 1e-3);
}

TEST(LinkName, ParsesGenerationAndWidth) {
  const PcieLinkConfig a = PcieLinkConfig::FromName("GEN4X8");
  EXPECT_EQ(a.generation, 4);
  EXPECT_EQ(a.lanes, 8);
  for (int gen = 1; gen <= 5; ++gen) {
    for (int lanes : {1, 2, 4, 8, 16}) {
      const std::string name = "gen" + std::to_string(gen) + "x" + std::to_string(lanes);
      const PcieLinkConfig c = PcieLinkConfig::FromName(name);
      EXPECT_EQ(c.generation, gen);
      EXPECT_EQ(c.lanes, lanes);
      EXPECT_EQ(c.Name(), name);
    }
  }
}

// What a report shows of a link (device::PcieLink, the CLI's --pcie) is what the timing uses.
TEST(LinkName, ReportFiguresAgreeWithTheTiming) {
  for (const char* name : {"gen1x1", "gen2x4", "gen3x16", "gen4x8", "gen5x2"}) {
    const device::PcieLink link = device::ParsePcieLink(name);
    const LinkTiming timing(PcieLinkConfig::For(link));
    EXPECT_DOUBLE_EQ(link.BytesPerSecond(), timing.raw_rate_bytes_per_s()) << name;
    EXPECT_DOUBLE_EQ(link.GigaTransfersPerLane(), TransferRateGts(link.generation)) << name;
    EXPECT_EQ(link.ToString(), PcieLinkConfig::For(link).Name());
  }
  EXPECT_NEAR(device::ParsePcieLink("gen3x16").BytesPerSecond() / 1e9, 15.75, 0.005);
  EXPECT_STREQ(device::ParsePcieLink("gen2x4").Encoding(), "8b/10b");
  EXPECT_STREQ(device::ParsePcieLink("gen5x1").Encoding(), "128b/130b");
}

TEST(LinkName, BadNamesSayWhatIsExpected) {
  for (const char* bad : {"", "gen", "gen3", "gen3x", "3x16", "pcie3x16", "gen3x16 ", "genx16",
                          "gen3-16", "gen3x1a", "gen99999x1", "gen6x16", "gen0x16", "gen3x3",
                          "gen3x32"}) {
    const std::string e = ErrorOf(bad);
    EXPECT_NE(e.find("is not a PCIe link: expected genGxL"), std::string::npos)
        << "\"" << bad << "\": " << e;
    EXPECT_NE(e.find(std::string("'") + bad + "'"), std::string::npos) << e;
  }
}

TEST(LinkConfig, ValidateNamesTheBadField) {
  auto error = [](PcieLinkConfig c) -> std::string {
    try {
      c.Validate();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error(PcieLinkConfig{}), "");
  PcieLinkConfig c;
  c.max_payload = 100;
  EXPECT_NE(error(c).find("max payload size of 100"), std::string::npos);
  c = {};
  c.max_read_request = 8192;
  EXPECT_NE(error(c).find("max read request size of 8192"), std::string::npos);
  c = {};
  c.lanes = 3;
  EXPECT_NE(error(c).find("x3"), std::string::npos);
  c = {};
  c.generation = 6;
  EXPECT_NE(error(c).find("generation 6"), std::string::npos);
  c = {};
  c.latency_ns = -1;
  EXPECT_NE(error(c).find("link latency"), std::string::npos);
  c = {};
  c.host_credits.posted_data = 8;  // 128 bytes: cannot hold a 256-byte TLP
  EXPECT_NE(error(c).find("host posted data credits (8)"), std::string::npos);
  c.host_credits.posted_data = 0;  // infinite
  EXPECT_EQ(error(c), "");
  c.max_payload = 3000;
  EXPECT_THROW(LinkTiming{c}, std::invalid_argument);
}

}  // namespace
}  // namespace tpu::sc
