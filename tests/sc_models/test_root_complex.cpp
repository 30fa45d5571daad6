// The root complex (sc_models/root_complex.h) over the link with the device-side endpoint
// (sc_models/pcie_endpoint.h): device reads split at the read completion boundary and the max
// payload size and reassembled (two configurations), their timing, device writes with byte
// enables, UR for fault ranges (CA, poisoned and transient ones by their kind), MSI waking a
// waiting driver and the wait's timeout, BAR0 register reads and writes with the completion
// wait and its timeout, debug access.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <optional>
#include <random>

#include "sc_models/pcie_endpoint.h"
#include "sc_models/pcie_link.h"
#include "sc_models/root_complex.h"
#include "tests/sc_models/sc_testing.h"

namespace tpu::sc {
namespace {

using testing::NowNs;

// Root complex - link - endpoint, with a small register file behind BAR0.
class System : public sc_core::sc_module {
 public:
  System(sc_core::sc_module_name name, const PcieLinkConfig& link_config,
         const RootComplexConfig& rc_config)
      : sc_core::sc_module(name),
        rc("rc", rc_config),
        link("link", link_config),
        ep("ep", EndpointConfig(link_config)) {
    rc.tx.bind(link.downstream.in);
    link.downstream.out.bind(ep.rx);
    ep.tx.bind(link.upstream.in);
    link.upstream.out.bind(rc.rx);
    regs[0x000] = 0x54505531;  // ID
    ep.SetRegisterHandlers([this](uint32_t offset) { return regs[offset]; },
                           [this](uint32_t offset, uint32_t value) { regs[offset] = value; });
  }

  static PcieEndpointConfig EndpointConfig(const PcieLinkConfig& link) {
    PcieEndpointConfig c;
    c.max_payload = link.max_payload;
    c.max_read_request = link.max_read_request;
    c.log_completions = true;
    return c;
  }

  RootComplex rc;
  PcieLink link;
  PcieEndpoint ep;
  std::map<uint32_t, uint32_t> regs;
};

RootComplexConfig ConfigA() {
  RootComplexConfig c;  // RCB 64, completions as large as MPS 256 allows
  c.register_timeout_ns = 10'000;
  return c;
}

PcieLinkConfig LinkB() {
  PcieLinkConfig c = PcieLinkConfig::FromName("gen2x4");
  c.max_payload = 128;
  return c;
}

RootComplexConfig ConfigB() {
  RootComplexConfig c;  // RCB 128, one RCB per completion, MPS 128
  c.read_completion_boundary = 128;
  c.one_rcb_per_completion = true;
  c.max_payload = 128;
  return c;
}

class Testbench : public sc_core::sc_module {
 public:
  explicit Testbench(sc_core::sc_module_name name)
      : sc_core::sc_module(name),
        runner("runner"),
        a("a", PcieLinkConfig::FromName("gen3x16"), ConfigA()),
        b("b", LinkB(), ConfigB()) {}
  testing::JobRunner runner;
  System a;
  System b;
};

Testbench* bench = nullptr;

std::vector<uint8_t> Pattern(size_t n, uint64_t seed) {
  std::vector<uint8_t> v(n);
  std::mt19937_64 rng(seed);
  for (auto& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

// ---- Device reads ---------------------------------------------------------------------------

class DeviceReads : public ::testing::TestWithParam<char> {};

TEST_P(DeviceReads, CompletionsSplitAtRcbAndReassemble) {
  System& s = GetParam() == 'a' ? bench->a : bench->b;
  const RootComplexConfig& rc = s.rc.config();
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  const uint64_t base = 0x1'2340'0000ull;  // 4-DW headers
  const std::vector<uint8_t> image = Pattern(1 << 20, seed);
  s.rc.memory().Write(base, image);
  std::vector<std::pair<uint64_t, uint32_t>> reads = {
      {0, 512}, {0x10, 300}, {0x3E, 70}, {0xFFF, 2}, {5, 1}};
  for (int i = 0; i < 60; ++i) reads.push_back({rng() % (1 << 19), 1 + rng() % 5000});
  const size_t first = s.ep.completion_log().size();
  ASSERT_TRUE(bench->runner.Run([&] {
    for (const auto& [offset, length] : reads) {
      std::vector<uint8_t> got(length);
      ASSERT_EQ(s.ep.ReadHost(base + offset, got.data(), length), CompletionStatus::kSuccess);
      ASSERT_EQ(got, std::vector<uint8_t>(image.begin() + offset, image.begin() + offset + length))
          << "read of " << length << " bytes at +" << offset;
    }
  }));
  const auto& log = s.ep.completion_log();
  ASSERT_GT(log.size(), first + reads.size());
  for (size_t i = first; i < log.size(); ++i) {
    const Tlp& c = log[i];
    SCOPED_TRACE(c.Describe());
    ASSERT_EQ(c.kind, TlpKind::kCompletionData);
    EXPECT_EQ(c.completer_id, kRootComplexId);
    EXPECT_LE(c.payload_bytes(), rc.max_payload);
    const uint32_t start = c.lower_address & ~3u;  // address bits [6:0] of its first DW
    const uint32_t carried = c.payload_bytes() - (c.lower_address & 3u);
    if (c.byte_count > carried) {  // not the last: ends on the RCB
      EXPECT_EQ((start + c.payload_bytes()) % rc.read_completion_boundary, 0u);
    }
    if (rc.one_rcb_per_completion) {
      EXPECT_LE(start % rc.read_completion_boundary + c.payload_bytes(),
                rc.read_completion_boundary);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, DeviceReads, ::testing::Values('a', 'b'), [](const auto& info) {
  return info.param == 'a' ? std::string("Rcb64UpToMps256") : std::string("Rcb128OnePerCompletion");
});

TEST(RootComplex, ReadTimeIsRequestLatencyMemoryAndCompletions) {
  System& s = bench->a;
  const LinkTiming& t = s.link.timing();
  std::vector<uint8_t> got(512);
  double elapsed = 0;
  ASSERT_TRUE(bench->runner.Run([&] {
    const double t0 = NowNs();
    s.ep.ReadHost(0x10000, got.data(), 512);
    elapsed = NowNs() - t0;
  }));
  // MRd on the wire, latency, memory, two 256-byte CplDs back to back, latency.
  const double expected = t.tlp_time_ns(12, 0) + 200 + 100 + 2 * t.tlp_time_ns(12, 256) + 200;
  EXPECT_NEAR(elapsed, expected, 0.01);
}

TEST(RootComplex, OutstandingReadsKeepTheLinkBusy) {
  System& s = bench->a;
  const std::vector<uint8_t> image = Pattern(1 << 20, 7);
  s.rc.memory().Write(0x4000'0000, image);
  std::vector<uint8_t> got(image.size());
  double elapsed = 0;
  ASSERT_TRUE(bench->runner.Run([&] {
    const double t0 = NowNs();
    s.ep.ReadHost(0x4000'0000, got.data(), got.size());
    elapsed = NowNs() - t0;
  }));
  EXPECT_EQ(got, image);
  const double ratio =
      image.size() / (elapsed * 1e-9) / s.link.timing().payload_limit_bytes_per_s();
  EXPECT_GE(ratio, 0.95);
  EXPECT_LE(ratio, 1.0);
}

// ---- Device writes, faults ------------------------------------------------------------------

TEST(RootComplex, DeviceWritesLandWithTheirByteEnables) {
  System& s = bench->a;
  for (uint64_t base : {0x1'0000'2000ull, 0x5000ull}) {
    s.rc.memory().Write(base, std::vector<uint8_t>(2048, 0xEE));
  }
  const std::vector<uint8_t> big = Pattern(1000, 1);
  const std::vector<uint8_t> small = {0xA1, 0xA2, 0xA3};
  ASSERT_TRUE(bench->runner.Run([&] {
    s.ep.WriteHost(0x1'0000'2003ull, big.data(), big.size());
    s.ep.WriteHost(0x5001, small.data(), small.size());
  }));
  auto expect = std::vector<uint8_t>(2048, 0xEE);
  std::copy(big.begin(), big.end(), expect.begin() + 3);
  EXPECT_EQ(s.rc.memory().Read(0x1'0000'2000ull, 2048), expect);
  expect.assign(2048, 0xEE);
  std::copy(small.begin(), small.end(), expect.begin() + 1);
  EXPECT_EQ(s.rc.memory().Read(0x5000, 2048), expect);
}

TEST(RootComplex, FaultRangesAnswerUnsupportedRequest) {
  System& s = bench->a;
  s.rc.memory().AddFault(0x9000, 16);
  const uint64_t ur = s.rc.stats().unsupported_requests;
  const uint64_t dropped = s.rc.stats().dropped_writes;
  std::vector<uint8_t> got(512);
  CompletionStatus status = CompletionStatus::kSuccess;
  const std::vector<uint8_t> v(8, 0x11);
  ASSERT_TRUE(bench->runner.Run([&] {
    status = s.ep.ReadHost(0x8F00, got.data(), got.size());
    s.ep.WriteHost(0x9008, v.data(), v.size());
  }));
  s.rc.memory().ClearFaults();
  EXPECT_EQ(status, CompletionStatus::kUnsupportedRequest);
  EXPECT_EQ(s.rc.stats().unsupported_requests, ur + 1);  // only the request touching 0x9000
  EXPECT_EQ(s.rc.stats().dropped_writes, dropped + 1);
  EXPECT_EQ(s.rc.memory().Read(0x9008, 8), std::vector<uint8_t>(8, 0));
}

// Fault kinds: CA instead of UR, a transient fault that fails only its first read, and poisoned
// completions, each counted.
TEST(RootComplex, FaultKindsAndTransientFaults) {
  System& s = bench->a;
  using Kind = model::HostMemory::FaultKind;
  s.rc.memory().AddFault(0xA000, 16, Kind::kAbort);
  s.rc.memory().AddFault(0xB000, 16, Kind::kUnsupported, /*times=*/1);
  s.rc.memory().AddFault(0xC000, 16, Kind::kPoisoned);
  const RootComplex::Stats before = s.rc.stats();
  std::vector<uint8_t> got(256);
  CompletionStatus ca = CompletionStatus::kSuccess, first = CompletionStatus::kSuccess,
                   second = CompletionStatus::kUnsupportedRequest;
  ASSERT_TRUE(bench->runner.Run([&] {
    ca = s.ep.ReadHost(0xA000, got.data(), got.size());
    first = s.ep.ReadHost(0xB000, got.data(), got.size());
    second = s.ep.ReadHost(0xB000, got.data(), got.size());
    s.ep.ReadHost(0xC000, got.data(), got.size());
  }));
  s.rc.memory().ClearFaults();
  EXPECT_EQ(ca, CompletionStatus::kCompleterAbort);
  EXPECT_EQ(first, CompletionStatus::kUnsupportedRequest);
  EXPECT_EQ(second, CompletionStatus::kSuccess);  // the transient fault is used up
  EXPECT_EQ(s.rc.stats().completer_aborts, before.completer_aborts + 1);
  EXPECT_EQ(s.rc.stats().unsupported_requests, before.unsupported_requests + 1);
  EXPECT_EQ(s.rc.stats().poisoned_reads, before.poisoned_reads + 1);
}

// ---- MSI ------------------------------------------------------------------------------------

TEST(RootComplex, MsiWakesTheWaitingDriver) {
  System& s = bench->a;
  const LinkTiming& t = s.link.timing();
  const uint64_t msi = s.rc.config().msi_address;
  std::optional<RootComplex::Interrupt> irq;
  double t0 = 0, woke = 0;
  ASSERT_TRUE(bench->runner.Run({[&] {
                                   t0 = NowNs();
                                   irq =
                                       s.rc.WaitForInterrupt(sc_core::sc_time(10, sc_core::SC_US));
                                   woke = NowNs() - t0;
                                 },
                                 [&] {
                                   sc_core::wait(1, sc_core::SC_US);
                                   s.ep.SendMsi(msi, 0xBEEF);
                                 }}));
  ASSERT_TRUE(irq.has_value());
  EXPECT_EQ(irq->data, 0xBEEFu);
  EXPECT_NEAR(woke, 1000 + t.tlp_time_ns(12, 4) + 200, 0.01);
  EXPECT_EQ(s.rc.memory().Read(msi, 4), std::vector<uint8_t>(4, 0));  // not a memory write
  EXPECT_EQ(s.rc.interrupts_pending(), 0u);
}

TEST(RootComplex, InterruptWaitReportsTheTimeout) {
  System& s = bench->a;
  std::optional<RootComplex::Interrupt> irq;
  double elapsed = 0;
  ASSERT_TRUE(bench->runner.Run([&] {
    const double t0 = NowNs();
    irq = s.rc.WaitForInterrupt(sc_core::sc_time(5, sc_core::SC_US));
    elapsed = NowNs() - t0;
  }));
  EXPECT_FALSE(irq.has_value());
  EXPECT_NEAR(elapsed, 5000.0, 1e-6);
}

TEST(RootComplex, InterruptBeforeTheWaitIsKept) {
  System& s = bench->b;
  std::optional<RootComplex::Interrupt> irq;
  double elapsed = -1;
  const uint64_t received = s.rc.interrupts_received();
  ASSERT_TRUE(bench->runner.Run([&] { s.ep.SendMsi(s.rc.config().msi_address, 7); }));
  ASSERT_TRUE(bench->runner.Run([&] {
    sc_core::wait(2, sc_core::SC_US);
    const double t0 = NowNs();
    irq = s.rc.WaitForInterrupt(sc_core::sc_time(1, sc_core::SC_US));
    elapsed = NowNs() - t0;
  }));
  ASSERT_TRUE(irq.has_value());
  EXPECT_EQ(irq->data, 7u);
  EXPECT_EQ(elapsed, 0.0);
  EXPECT_EQ(s.rc.interrupts_received(), received + 1);
}

// ---- BAR0 registers -------------------------------------------------------------------------

TEST(RootComplex, RegisterWriteThenReadBack) {
  System& s = bench->a;
  const LinkTiming& t = s.link.timing();
  uint32_t id = 0, control = 0;
  double read_ns = 0;
  ASSERT_TRUE(bench->runner.Run([&] {
    s.rc.WriteRegister(0x040, 0x3);
    id = s.rc.ReadRegister(0x000);
    const double t0 = NowNs();
    control = s.rc.ReadRegister(0x040);
    read_ns = NowNs() - t0;
  }));
  EXPECT_EQ(id, 0x54505531u);
  EXPECT_EQ(control, 0x3u);
  EXPECT_EQ(s.regs[0x040], 0x3u);
  // MRd down, CplD up: both with 3-DW headers.
  EXPECT_NEAR(read_ns, t.tlp_time_ns(12, 0) + 200 + t.tlp_time_ns(12, 4) + 200, 0.01);
}

TEST(RootComplex, RegisterReadWithoutCompletionTimesOut) {
  System& s = bench->a;
  s.ep.set_answer_register_reads(false);
  RootComplex::RegisterRead r;
  double elapsed = 0;
  std::string error;
  ASSERT_TRUE(bench->runner.Run([&] {
    const double t0 = NowNs();
    r = s.rc.TryReadRegister(0x044, sc_core::sc_time(2, sc_core::SC_US));
    elapsed = NowNs() - t0;
    try {
      s.rc.ReadRegister(0x044);
    } catch (const RegisterError& e) {
      error = e.what();
    }
  }));
  s.ep.set_answer_register_reads(true);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_NEAR(elapsed, s.link.timing().tlp_time_ns(12, 0) + 2000, 0.01);
  EXPECT_NE(error.find("BAR0 register 0x044: no completion within 10 us"), std::string::npos)
      << error;
}

TEST(RootComplex, DebugTransportReachesHostMemory) {
  System& s = bench->a;
  uint8_t out[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  tlm::tlm_generic_payload trans;
  trans.set_command(tlm::TLM_WRITE_COMMAND);
  trans.set_address(0xABCD'0000ull);
  trans.set_data_ptr(out);
  trans.set_data_length(8);
  EXPECT_EQ(s.ep.tx->transport_dbg(trans), 8u);
  EXPECT_EQ(s.rc.memory().Read(0xABCD'0000ull, 8), std::vector<uint8_t>(out, out + 8));
  uint8_t in[8] = {};
  trans.set_command(tlm::TLM_READ_COMMAND);
  trans.set_data_ptr(in);
  EXPECT_EQ(s.ep.tx->transport_dbg(trans), 8u);
  EXPECT_EQ(std::vector<uint8_t>(in, in + 8), std::vector<uint8_t>(out, out + 8));
  trans.set_address(uint64_t{1} << 48);  // beyond host memory
  EXPECT_EQ(s.ep.tx->transport_dbg(trans), 0u);
}

}  // namespace
}  // namespace tpu::sc

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tpu::sc::Testbench bench("tb");
  tpu::sc::bench = &bench;
  return RUN_ALL_TESTS();
}
