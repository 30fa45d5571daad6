// The link's data link layer (sc_models/pcie_link.h, docs/pcie_link.md section 8) under injected
// faults, end to end: traffic both ways through corrupted and dropped TLPs and DLLPs arrives
// exactly once and in order (over more than 4096 TLPs: sequence numbers wrap), with the faults,
// NAKs, replays, replay timeouts and retrainings counted and nothing lost; the same seed gives
// the same run; a link without faults counts none and keeps its timing; a transmitter with 2048
// TLPs unacknowledged waits for an ACK.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

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

PcieLinkConfig Faulty(double tlp_corrupt, double tlp_drop, double dllp_corrupt, double dllp_drop,
                      uint64_t seed) {
  PcieLinkConfig c = PcieLinkConfig::FromName("gen3x16");
  c.faults.tlp_corrupt = tlp_corrupt;
  c.faults.tlp_drop = tlp_drop;
  c.faults.dllp_corrupt = dllp_corrupt;
  c.faults.dllp_drop = dllp_drop;
  c.faults.seed = seed;
  return c;
}

// Receivers that take everything: the faults, not the credits, set the pace.
PcieLinkConfig Unlimited(PcieLinkConfig c) {
  c.device_credits = FlowControlCredits{0, 0, 0, 0, 0, 0};
  c.host_credits = c.device_credits;
  return c;
}

PcieLinkConfig FarAway() {
  // A 100 us one-way latency: 2048 TLPs (36 us at gen3x16) leave long before the first ACK.
  PcieLinkConfig c = Unlimited(PcieLinkConfig::FromName("gen3x16"));
  c.latency_ns = 100000;
  return c;
}

class Testbench : public sc_core::sc_module {
 public:
  explicit Testbench(sc_core::sc_module_name name)
      : sc_core::sc_module(name),
        runner("runner"),
        clean("clean", PcieLinkConfig::FromName("gen3x16")),
        reference("reference", PcieLinkConfig::FromName("gen3x16")),
        goal("goal", Faulty(1e-2, 1e-3, 1e-2, 1e-3, 7)),
        heavy("heavy", Unlimited(Faulty(0.05, 0.05, 0.1, 0.1, 11))),
        heavy_again("heavy_again", Unlimited(Faulty(0.05, 0.05, 0.1, 0.1, 11))),
        blackout("blackout", Unlimited(Faulty(0, 0.45, 0, 0.45, 3))),
        far("far", FarAway()) {}
  testing::JobRunner runner;
  LinkBench clean, reference, goal, heavy, heavy_again, blackout, far;
};

Testbench* bench = nullptr;

// Sends `count` MWr TLPs of `bytes` each (address = 64 x index) into `src`, waiting out each
// one's delay.
void Stream(TlpSource& src, uint32_t count, uint32_t bytes) {
  std::vector<uint8_t> data(bytes);
  for (uint32_t i = 0; i < count; ++i) {
    for (uint32_t b = 0; b < bytes; ++b) data[b] = static_cast<uint8_t>(i * 7 + b);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(src.Send(MakeMemWrite(0, uint64_t{i} * 64, data.data(), bytes), &delay),
              tlm::TLM_OK_RESPONSE);
    sc_core::wait(delay);
  }
}

// Every TLP arrived exactly once and in order, with its payload intact.
void ExpectExactlyOnceInOrder(const TlpSink& sink, size_t first, uint32_t count, uint32_t bytes) {
  ASSERT_EQ(sink.log.size() - first, count);
  for (uint32_t i = 0; i < count; ++i) {
    const Tlp& t = sink.log[first + i].tlp;
    ASSERT_EQ(t.address, uint64_t{i} * 64) << "TLP " << i;
    for (uint32_t b = 0; b < bytes; ++b) {
      ASSERT_EQ(t.data[b], static_cast<uint8_t>(i * 7 + b)) << "TLP " << i;
    }
  }
}

// Runs `count` TLPs each way through `lb` at once; checks delivery both ways.
void RunBothWays(LinkBench& lb, uint32_t count, uint32_t bytes) {
  const size_t down0 = lb.down_sink.log.size(), up0 = lb.up_sink.log.size();
  ASSERT_TRUE(bench->runner.Run({[&] { Stream(lb.down_src, count, bytes); },
                                 [&] { Stream(lb.up_src, count, bytes); }}));
  ExpectExactlyOnceInOrder(lb.down_sink, down0, count, bytes);
  ExpectExactlyOnceInOrder(lb.up_sink, up0, count, bytes);
  EXPECT_EQ(lb.link.downstream.in_flight(), 0u);
  EXPECT_EQ(lb.link.upstream.in_flight(), 0u);
  for (const PcieLinkDirection* d : {&lb.link.downstream, &lb.link.upstream}) {
    EXPECT_EQ(d->errors().lost, 0u) << d->name();
    EXPECT_EQ(d->dll_transmitter().outstanding(), 0u) << d->name();  // all acknowledged
  }
}

TEST(LinkFaults, GoalRatesDeliverEverythingOnceInOrderOverSequenceWraps) {
  LinkBench& lb = bench->goal;
  RunBothWays(lb, 6000, 256);
  for (const PcieLinkDirection* d : {&lb.link.downstream, &lb.link.upstream}) {
    const device::LinkErrorCounters& e = d->errors();
    EXPECT_EQ(e.tlps_sent, 6000u);
    // 1% of ~6,000 transmissions corrupted: dozens, each NAKed or covered by a NAK in flight.
    EXPECT_GT(e.tlps_corrupted, 20u) << d->name();
    EXPECT_GT(e.naks, 10u) << d->name();
    EXPECT_GT(e.tlps_replayed, e.tlps_corrupted) << d->name();  // a replay resends a window
    EXPECT_EQ(d->dll_receiver().next_seq(), 6000 % kSeqModulo);
  }
}

TEST(LinkFaults, HeavyFaultsTimeOutAndRetrainAndStillDeliver) {
  LinkBench& lb = bench->heavy;
  RunBothWays(lb, 1500, 64);
  uint64_t timeouts = 0, dllps_lost = 0;
  for (const PcieLinkDirection* d : {&lb.link.downstream, &lb.link.upstream}) {
    timeouts += d->errors().replay_timeouts;
    dllps_lost += d->errors().dllps_dropped + d->errors().dllps_corrupted;
    EXPECT_GT(d->errors().tlps_dropped, 0u);
    // Drops show as gaps (out of order), lost ACKs as replays of what had arrived (duplicates).
    EXPECT_GT(d->dll_receiver().counters().out_of_order, 0u) << d->name();
    EXPECT_GT(d->dll_receiver().counters().duplicates, 0u) << d->name();
  }
  EXPECT_GT(dllps_lost, 0u);
  EXPECT_GT(timeouts, 0u);  // lost NAKs and ACKs are recovered by the REPLAY_TIMER
}

TEST(LinkFaults, RolloverRetrainsTheLinkForItsTime) {
  // 45% of TLPs and DLLPs dropped: replays fail often enough for REPLAY_NUM to roll over.
  LinkBench& lb = bench->blackout;
  const double t0 = NowNs();
  RunBothWays(lb, 300, 16);
  const double elapsed = NowNs() - t0;
  uint64_t retrains = 0;
  sc_core::sc_time retrain_time = sc_core::SC_ZERO_TIME;
  for (const PcieLinkDirection* d : {&lb.link.downstream, &lb.link.upstream}) {
    retrains += d->errors().retrains;
    retrain_time += d->stats().retrain_time;
  }
  EXPECT_GT(retrains, 0u);
  EXPECT_EQ(retrain_time, sc_core::sc_time(lb.link.config().retrain_ns * double(retrains),
                                           sc_core::SC_NS));
  // A retraining blocks the wire: the run lasts at least as long as one direction's
  // retrainings (300 TLPs of 16 bytes alone take about 5 us).
  const uint64_t most = std::max(lb.link.downstream.errors().retrains,
                                 lb.link.upstream.errors().retrains);
  EXPECT_GE(elapsed, double(most) * lb.link.config().retrain_ns);
}

TEST(LinkFaults, SameSeedSameRun) {
  RunBothWays(bench->heavy_again, 1500, 64);
  // `heavy` ran the same traffic with the same seed (run it first if this test runs alone).
  if (bench->heavy.down_sink.log.empty()) RunBothWays(bench->heavy, 1500, 64);
  for (auto [a, b] : {std::pair{&bench->heavy.link.downstream, &bench->heavy_again.link.downstream},
                      std::pair{&bench->heavy.link.upstream, &bench->heavy_again.link.upstream}}) {
    const device::LinkErrorCounters &x = a->errors(), &y = b->errors();
    EXPECT_EQ(x.tlps_corrupted, y.tlps_corrupted);
    EXPECT_EQ(x.tlps_dropped, y.tlps_dropped);
    EXPECT_EQ(x.naks, y.naks);
    EXPECT_EQ(x.tlps_replayed, y.tlps_replayed);
    EXPECT_EQ(x.replay_timeouts, y.replay_timeouts);
    EXPECT_EQ(x.retrains, y.retrains);
    EXPECT_EQ(x.dllps_dropped, y.dllps_dropped);
  }
}

TEST(LinkFaults, NoFaultsCountNothingAndKeepTheTiming) {
  LinkBench& lb = bench->clean;
  const double t0 = NowNs();
  RunBothWays(lb, 5000, 256);
  for (const PcieLinkDirection* d : {&lb.link.downstream, &lb.link.upstream}) {
    const device::LinkErrorCounters& e = d->errors();
    EXPECT_EQ(e.tlps_sent, 5000u);
    EXPECT_EQ(e.tlps_corrupted + e.tlps_dropped + e.naks + e.tlps_replayed + e.replay_timeouts +
                  e.retrains + e.dllps_corrupted + e.dllps_dropped + e.lost,
              0u);
  }
  // 5000 back-to-back 256-byte TLPs: the formula's serialization time plus the latency.
  const LinkTiming& timing = lb.link.timing();
  const double expected = 5000 * timing.tlp_time_ns(12, 256) + timing.config().latency_ns;
  // (Each TLP's time is rounded to the picosecond.)
  EXPECT_NEAR(lb.down_sink.log.back().time_ns - t0, expected, 1e-4 * expected);
}

TEST(LinkFaults, ThroughputLossFollowsTheReplayRate) {
  // A one-way stream at the goal's rates loses about what docs/pcie_link.md's formula predicts.
  LinkBench& lb = bench->goal;
  LinkBench& ref = bench->reference;
  const uint32_t count = 20000;
  double t0 = NowNs();
  ASSERT_TRUE(bench->runner.Run([&] { Stream(ref.down_src, count, 256); }));
  const double clean_ns = ref.down_sink.log.back().time_ns - t0;
  const device::LinkErrorCounters before = lb.link.downstream.errors();
  const size_t first = lb.down_sink.log.size();
  t0 = NowNs();
  ASSERT_TRUE(bench->runner.Run([&] { Stream(lb.down_src, count, 256); }));
  ExpectExactlyOnceInOrder(lb.down_sink, first, count, 256);
  const double faulty_ns = lb.down_sink.log.back().time_ns - t0;
  const device::LinkErrorCounters e = lb.link.downstream.errors().Since(before);
  // Measured against two predictions (docs/pcie_link.md section 8.4): the replay rate's (the
  // wire time of the replayed TLPs and the retrainings over the clean time) and the one made
  // from the fault rates before running (go-back-N: each TLP error costs a window of W TLPs).
  const double measured = faulty_ns / clean_ns - 1.0;
  const LinkTiming& timing = lb.link.timing();
  const PcieLinkConfig& c = lb.link.config();
  const double tlp_ns = timing.tlp_time_ns(12, 256);
  const double from_replays =
      (double(e.tlps_replayed) * tlp_ns + double(e.retrains) * c.retrain_ns) / clean_ns;
  const double p = c.faults.tlp_corrupt + c.faults.tlp_drop;
  const double window =
      (2 * c.latency_ns + kDllpWireBytes * timing.byte_time_ns()) / tlp_ns + 2.0;
  const double from_rates = p * window / (1.0 - p);
  std::printf("clean %.1f ns, faulty %.1f ns: measured loss %.4f, predicted from the replays "
              "%.4f, from the fault rates %.4f (W = %.1f; %llu replayed, %llu corrupted, %llu "
              "dropped, %llu timeouts, %llu retrains)\n",
              clean_ns, faulty_ns, measured, from_replays, from_rates, window,
              (unsigned long long)e.tlps_replayed, (unsigned long long)e.tlps_corrupted,
              (unsigned long long)e.tlps_dropped, (unsigned long long)e.replay_timeouts,
              (unsigned long long)e.retrains);
  EXPECT_GT(e.tlps_replayed, 0u);
  EXPECT_NEAR(measured, from_replays, 0.1 * from_replays);
  EXPECT_NEAR(measured, from_rates, 0.15 * from_rates);
}

TEST(LinkFaults, TransmitterWaitsWith2048Unacknowledged) {
  LinkBench& lb = bench->far;
  const double t0 = NowNs();
  double sent_2048 = 0, sent_2049 = 0;
  ASSERT_TRUE(bench->runner.Run([&] {
    std::vector<uint8_t> data(16, 1);
    for (uint32_t i = 0; i < 2100; ++i) {
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      EXPECT_EQ(lb.down_src.Send(MakeMemWrite(0, uint64_t{i} * 64, data.data(), 16), &delay),
                tlm::TLM_OK_RESPONSE);
      sc_core::wait(delay);
      if (i == 2047) sent_2048 = NowNs() - t0;
      if (i == 2048) sent_2049 = NowNs() - t0;
      EXPECT_LE(lb.link.downstream.dll_transmitter().outstanding(), kMaxOutstanding);
    }
  }));
  const double round_trip = 2 * lb.link.config().latency_ns;
  EXPECT_LT(sent_2048, 0.5 * round_trip);  // 2048 leave at the wire's pace
  EXPECT_GT(sent_2049, round_trip);        // the 2049th waits for the first ACK
  EXPECT_EQ(lb.down_sink.log.size(), 2100u);
  EXPECT_EQ(lb.link.downstream.errors().replay_timeouts, 0u);
}

}  // namespace
}  // namespace tpu::sc

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tpu::sc::Testbench bench("tb");
  tpu::sc::bench = &bench;
  return RUN_ALL_TESTS();
}
