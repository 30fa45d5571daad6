// The PCIe link model (sc_models/pcie_link.h) simulated end to end: transfer times at gen1x1,
// gen3x16 and gen4x8 against the calculator's formula (within 1%), b_transport annotating
// instead of waiting, credits throttling a sender when the receiver is slow (header- and
// data-bound), order and completeness, the error responses, and the earliest-delivery bound a
// receiver clocked in its own process runs ahead to.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "sc_models/pcie_link.h"
#include "sc_models/tlp_payload.h"
#include "tests/sc_models/link_bench.h"
#include "tests/sc_models/sc_testing.h"

namespace tpu::sc {
namespace {

using testing::LinkBench;
using testing::NowNs;
using testing::TlpSink;
using testing::TlpSource;

PcieLinkConfig CreditConfig() {
  // The device takes at most 8 posted TLPs and 64 data credits (1 KiB) before it frees some;
  // the root port advertises the defaults.
  PcieLinkConfig c = PcieLinkConfig::FromName("gen3x16");
  c.device_credits.posted_header = 8;
  c.device_credits.posted_data = 64;
  return c;
}

class Testbench : public sc_core::sc_module {
 public:
  explicit Testbench(sc_core::sc_module_name name)
      : sc_core::sc_module(name),
        runner("runner"),
        gen1x1("gen1x1", PcieLinkConfig::FromName("gen1x1")),
        gen3x16("gen3x16", PcieLinkConfig::FromName("gen3x16")),
        gen4x8("gen4x8", PcieLinkConfig::FromName("gen4x8")),
        credits("credits", CreditConfig()) {}

  LinkBench& ByName(const std::string& name) {
    if (name == "gen1x1") return gen1x1;
    if (name == "gen3x16") return gen3x16;
    return gen4x8;
  }

  testing::JobRunner runner;
  LinkBench gen1x1;
  LinkBench gen3x16;
  LinkBench gen4x8;
  LinkBench credits;
};

Testbench* bench = nullptr;

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + 13 * i + (i >> 8));
  return v;
}

// Sends `data` as max-payload MWr TLPs from an MPS-aligned address, waiting out each.
void SendWrites(TlpSource& src, uint64_t address, const std::vector<uint8_t>& data, uint32_t mps) {
  for (size_t off = 0; off < data.size(); off += mps) {
    const uint32_t n = static_cast<uint32_t>(std::min<size_t>(mps, data.size() - off));
    src.SendAndWait(MakeMemWrite(kRootComplexId, address + off, data.data() + off, n));
  }
}

// ---- Transfer times -----------------------------------------------------------------------

class TransferTime : public ::testing::TestWithParam<std::tuple<std::string, uint64_t>> {};

TEST_P(TransferTime, MatchesFormulaWithinOnePercent) {
  const auto& [name, bytes] = GetParam();
  LinkBench& lb = bench->ByName(name);
  const LinkTiming& timing = lb.link.timing();
  const uint64_t address = 0x1000'0000;  // below 4 GiB: 3-DW headers
  const std::vector<uint8_t> data = Pattern(bytes, static_cast<uint8_t>(bytes));
  const size_t first = lb.down_sink.log.size();
  double t0 = 0;
  ASSERT_TRUE(bench->runner.Run([&] {
    t0 = NowNs();
    SendWrites(lb.down_src, address, data, timing.config().max_payload);
  }));
  ASSERT_EQ(lb.down_sink.log.size() - first, timing.SplitPayload(bytes).size());
  const double measured = lb.down_sink.log.back().time_ns - t0;
  const double expected = timing.transfer_time_ns(bytes, 12);
  EXPECT_NEAR(measured, expected, 0.01 * expected)
      << name << ", " << bytes << " bytes: measured " << measured << " ns, formula " << expected
      << " ns";
  // And every byte arrived where it belongs.
  std::vector<uint8_t> got;
  for (size_t i = first; i < lb.down_sink.log.size(); ++i) {
    const Tlp& t = lb.down_sink.log[i].tlp;
    EXPECT_EQ(t.address, address + got.size());
    got.insert(got.end(), t.data.begin(), t.data.end());
  }
  got.resize(bytes);
  EXPECT_EQ(got, data);
}

INSTANTIATE_TEST_SUITE_P(Links, TransferTime,
                         ::testing::Combine(::testing::Values("gen1x1", "gen3x16", "gen4x8"),
                                            ::testing::Values(1, 4, 255, 256, 257, 4096, 1 << 20)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "B";
                         });

TEST(PcieLink, OneMebibyteRunsAtThePayloadLimit) {
  LinkBench& lb = bench->gen3x16;
  const std::vector<uint8_t> data = Pattern(1 << 20, 3);
  double t0 = 0, t1 = 0;
  ASSERT_TRUE(bench->runner.Run([&] {
    t0 = NowNs();
    SendWrites(lb.up_src, 0x2000'0000, data, 256);
    t1 = NowNs();  // the last TLP has been serialized
  }));
  const double limit = lb.link.timing().payload_limit_bytes_per_s();
  const double achieved = data.size() / ((t1 - t0) * 1e-9);
  EXPECT_NEAR(achieved / limit, 1.0, 1e-4) << achieved / 1e9 << " GB/s";
}

// ---- Loosely timed: annotate, do not wait ---------------------------------------------------

TEST(PcieLink, BTransportAnnotatesInsteadOfWaiting) {
  LinkBench& lb = bench->gen3x16;
  const std::vector<uint8_t> data = Pattern(256, 1);
  const Tlp tlp = MakeMemWrite(kRootComplexId, 0x1000, data.data(), 256);
  const double tlp_ns = lb.link.timing().tlp_time_ns(12, 256);
  ASSERT_TRUE(bench->runner.Run([&] {
    const sc_core::sc_time before = sc_core::sc_time_stamp();
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(lb.down_src.Send(tlp, &delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(sc_core::sc_time_stamp(), before);
    EXPECT_NEAR(delay.to_seconds() * 1e9, tlp_ns, 1e-3);
    // A second TLP at the same local time queues behind the first on the wire.
    EXPECT_EQ(lb.down_src.Send(tlp, &delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(sc_core::sc_time_stamp(), before);
    EXPECT_NEAR(delay.to_seconds() * 1e9, 2 * tlp_ns, 2e-3);
    sc_core::wait(delay);
  }));
}

TEST(PcieLink, TransmittersShareTheWire) {
  // Two transmitters hand over a TLP at the same time: one goes first, the other after it.
  LinkBench& lb = bench->gen3x16;
  const std::vector<uint8_t> data = Pattern(256, 2);
  const Tlp tlp = MakeMemWrite(kRootComplexId, 0x1000, data.data(), 256);
  const double tlp_ns = lb.link.timing().tlp_time_ns(12, 256);
  double d[2] = {0, 0};
  auto send = [&](int i) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(lb.down_src.Send(tlp, &delay), tlm::TLM_OK_RESPONSE);
    d[i] = delay.to_seconds() * 1e9;
    sc_core::wait(delay);
  };
  ASSERT_TRUE(bench->runner.Run({[&] { send(0); }, [&] { send(1); }}));
  EXPECT_NEAR(std::min(d[0], d[1]), tlp_ns, 1e-3);
  EXPECT_NEAR(std::max(d[0], d[1]), 2 * tlp_ns, 2e-3);
}

// ---- Flow control ---------------------------------------------------------------------------

// Sends `count` MWr of `bytes` each into the credit-limited bench's downstream (or upstream)
// with the sink taking 1 us a TLP. Returns when the sender finished, relative to its start.
double RunSlowReceiver(bool downstream, uint32_t bytes, int count, size_t* first) {
  LinkBench& lb = bench->credits;
  TlpSink& sink = downstream ? lb.down_sink : lb.up_sink;
  TlpSource& src = downstream ? lb.down_src : lb.up_src;
  PcieLinkDirection& dir = downstream ? lb.link.downstream : lb.link.upstream;
  sink.busy = sc_core::sc_time(1, sc_core::SC_US);
  dir.ResetStats();
  *first = sink.log.size();
  const std::vector<uint8_t> data = Pattern(bytes, 9);
  double t0 = 0, t1 = 0;
  EXPECT_TRUE(bench->runner.Run([&] {
    t0 = NowNs();
    for (int i = 0; i < count; ++i) {
      src.SendAndWait(MakeMemWrite(kRootComplexId, 0x4000'0000 + 4096ull * i, data.data(), bytes));
    }
    t1 = NowNs();
  }));
  sink.busy = sc_core::SC_ZERO_TIME;
  EXPECT_EQ(sink.log.size() - *first, static_cast<size_t>(count));
  return t1 - t0;
}

TEST(PcieLink, CreditsThrottleSenderWhenReceiverIsSlow) {
  // 64 data credits hold four 256-byte TLPs: the fifth waits until the first is consumed and
  // its credits are back (1 us of consumption + 200 ns of update), so the sender keeps pace
  // with the receiver instead of finishing at wire speed.
  const PcieLinkConfig c = CreditConfig();
  const LinkTiming& timing = bench->credits.link.timing();
  size_t first = 0;
  const double sender_ns = RunSlowReceiver(true, 256, 32, &first);
  const auto& stats = bench->credits.link.downstream.stats();
  EXPECT_EQ(stats.max_outstanding[static_cast<int>(CreditClass::kPosted)], 4u);
  EXPECT_GT(stats.credit_waits, 0u);
  EXPECT_GT(sender_ns, 26'000.0);
  // TLP i is delivered no earlier than TLP i-4's consumption + the credit update + its own
  // serialization + the latency.
  const auto& log = bench->credits.down_sink.log;
  const double min_gap = 1000.0 + c.credit_update_ns + timing.tlp_time_ns(12, 256) + c.latency_ns;
  for (size_t i = first + 4; i < log.size(); ++i) {
    EXPECT_GE(log[i].time_ns - log[i - 4].time_ns, min_gap - 1e-3) << "TLP " << i - first;
  }
  // The receiver is the bottleneck: one TLP a microsecond.
  EXPECT_NEAR(log.back().time_ns - log[first].time_ns, 31 * 1000.0, 1.0);

  // The root port's default credits (64 headers, 16 KiB) never stop 32 TLPs: the sender
  // finishes at wire speed while the slow receiver still takes 1 us each.
  const double free_ns = RunSlowReceiver(false, 256, 32, &first);
  EXPECT_NEAR(free_ns, 32 * timing.tlp_time_ns(12, 256), 1.0);
  EXPECT_EQ(bench->credits.link.upstream.stats().credit_waits, 0u);
}

TEST(PcieLink, CreditLoopLimitsAFastReceiver) {
  // With a receiver that consumes at once, four TLPs' worth of credits still throttle: TLP i
  // starts when TLP i-4's credits are back, one latency (delivery) and one credit update after
  // it ended: start(i) = max(end(i-1), end(i-4) + 200 + 200).
  LinkBench& lb = bench->credits;
  const double tlp_ns = lb.link.timing().tlp_time_ns(12, 256);
  const std::vector<uint8_t> data = Pattern(256, 4);
  const size_t first = lb.down_sink.log.size();
  double t0 = 0;
  ASSERT_TRUE(bench->runner.Run([&] {
    t0 = NowNs();
    for (int i = 0; i < 32; ++i) {
      lb.down_src.SendAndWait(MakeMemWrite(kRootComplexId, 0x1000ull * i, data.data(), 256));
    }
  }));
  std::vector<double> end;
  for (int i = 0; i < 32; ++i) {
    double start = i == 0 ? 0.0 : end[i - 1];
    if (i >= 4) start = std::max(start, end[i - 4] + 200 + 200);
    end.push_back(start + tlp_ns);
    EXPECT_NEAR(lb.down_sink.log[first + i].time_ns - t0, end[i] + 200, 1e-2) << "TLP " << i;
  }
}

TEST(PcieLink, HeaderCreditsBindForSmallTlps) {
  // 1-DW writes need one data credit each: the 8 header credits bind.
  size_t first = 0;
  const double sender_ns = RunSlowReceiver(true, 4, 24, &first);
  EXPECT_EQ(bench->credits.link.downstream.stats().max_outstanding[0], 8u);
  EXPECT_GT(sender_ns, 14'000.0);
}

// ---- Order, completeness, errors ------------------------------------------------------------

TEST(PcieLink, DeliversEveryTlpInOrder) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  LinkBench& lb = bench->gen4x8;
  std::vector<Tlp> sent[2];
  for (int who = 0; who < 2; ++who) {
    for (int i = 0; i < 200; ++i) {
      const uint64_t address = (uint64_t(who) << 40) + 0x10000ull * i + rng() % 64;
      const uint32_t bytes = 1 + rng() % 190;  // a DW span within the 256-byte MPS
      const std::vector<uint8_t> data = Pattern(bytes, static_cast<uint8_t>(rng()));
      Tlp t;
      switch (rng() % 3) {
        case 0:
          t = MakeMemWrite(kRootComplexId, address, data.data(), bytes);
          break;
        case 1:
          t = MakeMemRead(kRootComplexId, static_cast<uint8_t>(i), address, bytes);
          break;
        default: {
          const Tlp read = MakeMemRead(kDeviceId, static_cast<uint8_t>(i), address, bytes);
          t = SplitReadCompletions(read, Pattern(read.length_dw * 4, 5), kRootComplexId, {})[0];
          break;
        }
      }
      t.requester_id = static_cast<uint16_t>(who == 0 ? 0x0001 : 0x0002);
      sent[who].push_back(t);
    }
  }
  const size_t first = lb.down_sink.log.size();
  // Two senders share the direction, each with random pauses.
  auto sender = [&](int who) {
    std::mt19937_64 r(seed + who);
    for (const Tlp& t : sent[who]) {
      lb.down_src.SendAndWait(t);
      if (r() % 4 == 0) sc_core::wait(sc_core::sc_time(r() % 100, sc_core::SC_NS));
    }
  };
  ASSERT_TRUE(bench->runner.Run({[&] { sender(0); }, [&] { sender(1); }}));
  size_t next[2] = {0, 0};
  for (size_t i = first; i < lb.down_sink.log.size(); ++i) {
    const Tlp& got = lb.down_sink.log[i].tlp;
    const int who = got.requester_id == 0x0001 ? 0 : 1;
    ASSERT_LT(next[who], sent[who].size());
    EXPECT_EQ(EncodeTlp(got), EncodeTlp(sent[who][next[who]])) << got.Describe();
    ++next[who];
  }
  EXPECT_EQ(next[0], sent[0].size());
  EXPECT_EQ(next[1], sent[1].size());
  EXPECT_EQ(lb.link.downstream.in_flight(), 0u);
}

TEST(PcieLink, MalformedPayloadsGetErrorResponses) {
  LinkBench& lb = bench->gen3x16;
  const size_t first = lb.down_sink.log.size();
  const uint64_t rejected = lb.link.downstream.stats().rejected;
  const std::vector<uint8_t> data = Pattern(512, 1);
  std::vector<uint8_t> image = EncodeTlp(MakeMemWrite(kRootComplexId, 0x1000, data.data(), 8));
  ASSERT_TRUE(bench->runner.Run([&] {
    auto send = [&](std::vector<uint8_t> img, auto tweak) {
      tlm::tlm_generic_payload trans;
      SetTlpPayload(&trans, img.data(), img.size());
      tweak(trans);
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      lb.down_src.socket->b_transport(trans, delay);
      EXPECT_EQ(delay, sc_core::SC_ZERO_TIME);
      return trans.get_response_status();
    };
    auto none = [](tlm::tlm_generic_payload&) {};
    EXPECT_EQ(
        send(image, [](tlm::tlm_generic_payload& t) { t.set_command(tlm::TLM_READ_COMMAND); }),
        tlm::TLM_COMMAND_ERROR_RESPONSE);
    uint8_t be[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    EXPECT_EQ(send(image,
                   [&](tlm::tlm_generic_payload& t) {
                     t.set_byte_enable_ptr(be);
                     t.set_byte_enable_length(4);
                   }),
              tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    EXPECT_EQ(send(image, [](tlm::tlm_generic_payload& t) { t.set_streaming_width(4); }),
              tlm::TLM_BURST_ERROR_RESPONSE);
    std::vector<uint8_t> cut(image.begin(), image.end() - 4);
    EXPECT_EQ(send(cut, none), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_NE(lb.link.downstream.last_error().find("malformed TLP"), std::string::npos);
    // 512 bytes of payload: above the max payload size of 256.
    EXPECT_EQ(send(EncodeTlp(MakeMemWrite(kRootComplexId, 0x1000, data.data(), 512)), none),
              tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_NE(lb.link.downstream.last_error().find("exceeds the max payload size 256"),
              std::string::npos);
  }));
  EXPECT_EQ(lb.down_sink.log.size(), first);
  EXPECT_EQ(lb.link.downstream.stats().rejected, rejected + 5);
}

TEST(PcieLink, ReceiverErrorsAreCounted) {
  LinkBench& lb = bench->gen4x8;
  const uint64_t errors = lb.link.upstream.stats().receiver_errors;
  const uint8_t v[4] = {1, 2, 3, 4};
  Tlp t = MakeMemWrite(kDeviceId, 0x1000, v, 4);
  t.tag = 0x77;
  lb.up_sink.error_tag = 0x77;
  ASSERT_TRUE(bench->runner.Run([&] { lb.up_src.SendAndWait(t); }));
  lb.up_sink.error_tag = -1;
  EXPECT_EQ(lb.link.upstream.stats().receiver_errors, errors + 1);
  EXPECT_NE(lb.link.upstream.last_error().find("the receiver answered"), std::string::npos);
}

TEST(PcieLink, EarliestDeliveryBoundsTheNextDelivery) {
  // Idle: one latency from now. Frames on the wire: the first one's arrival, when it is
  // delivered. A busy receiver: the end of its busy time, when the next TLP is delivered.
  LinkBench& lb = bench->gen4x8;
  const PcieLinkDirection& down = lb.link.downstream;
  const std::vector<uint8_t> data = Pattern(256, 4);
  const Tlp tlp = MakeMemWrite(kRootComplexId, 0x3000, data.data(), 256);
  const sc_core::sc_time latency(lb.link.config().latency_ns, sc_core::SC_NS);
  const sc_core::sc_time busy(1, sc_core::SC_US);
  const size_t first = lb.down_sink.log.size();
  lb.down_sink.busy = busy;
  sc_core::sc_time arrival, busy_end;
  ASSERT_TRUE(bench->runner.Run([&] {
    const sc_core::sc_time t0 = sc_core::sc_time_stamp();
    EXPECT_EQ(down.EarliestDelivery(), t0 + latency);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    ASSERT_EQ(lb.down_src.Send(tlp, &delay), tlm::TLM_OK_RESPONSE);
    arrival = t0 + delay + latency;
    EXPECT_EQ(down.EarliestDelivery(), arrival);
    ASSERT_EQ(lb.down_src.Send(tlp, &delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(down.EarliestDelivery(), arrival);  // the second frame follows the first
    sc_core::wait(arrival + sc_core::sc_time(1, sc_core::SC_NS) - sc_core::sc_time_stamp());
    busy_end = arrival + busy;
    EXPECT_EQ(down.EarliestDelivery(), busy_end);  // the second has arrived and waits
    sc_core::wait(busy_end + busy + sc_core::sc_time(1, sc_core::SC_NS) -
                  sc_core::sc_time_stamp());
    EXPECT_EQ(down.EarliestDelivery(), sc_core::sc_time_stamp() + latency);
  }));
  lb.down_sink.busy = sc_core::SC_ZERO_TIME;
  const auto& log = lb.down_sink.log;
  ASSERT_EQ(log.size(), first + 2);
  EXPECT_NEAR(log[first].time_ns, arrival.to_seconds() * 1e9, 1e-3);
  EXPECT_NEAR(log[first + 1].time_ns, busy_end.to_seconds() * 1e9, 1e-3);
}

TEST(PcieLink, DebugTransportPassesThrough) {
  LinkBench& lb = bench->gen1x1;
  uint8_t buf[16] = {};
  tlm::tlm_generic_payload trans;
  trans.set_command(tlm::TLM_READ_COMMAND);
  trans.set_address(0x1234);
  trans.set_data_ptr(buf);
  trans.set_data_length(16);
  const unsigned calls = lb.up_sink.dbg_calls;
  EXPECT_EQ(lb.up_src.socket->transport_dbg(trans), 16u);
  EXPECT_EQ(lb.up_sink.dbg_calls, calls + 1);
}

}  // namespace
}  // namespace tpu::sc

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tpu::sc::Testbench bench("tb");
  tpu::sc::bench = &bench;
  return RUN_ALL_TESTS();
}
