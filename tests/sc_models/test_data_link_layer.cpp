// The data link layer's state machines (sc_models/pcie/data_link_layer.h) driven by hand: the
// CRCs (a known check value, every single-bit flip of a frame and of a DLLP found), sequence
// numbers wrapping over 10,000 TLPs, NAK and replay, the REPLAY_TIMER, REPLAY_NUM rolling over
// into a retraining, duplicates, out-of-order TLPs, the 2048-outstanding rule, a lost ACK
// recovered by the timer, and the spec's timer values.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "sc_models/pcie/data_link_layer.h"

namespace tpu::sc {
namespace {

constexpr double kTimeout = 1000.0;
constexpr double kAckLatency = 300.0;

// A TLP-like image whose bytes say which TLP it is.
std::vector<uint8_t> Image(uint32_t n, size_t size = 16) {
  std::vector<uint8_t> v(size);
  for (size_t i = 0; i < size; ++i) v[i] = static_cast<uint8_t>((n >> (8 * (i % 4))) + i);
  return v;
}

// Transmits TLPs 0 .. count-1, the n-th one's last byte leaving at 10 x n ns; returns the frames.
std::vector<std::vector<uint8_t>> TransmitAll(DllTransmitter& tx, uint32_t count) {
  std::vector<std::vector<uint8_t>> frames;
  for (uint32_t n = 0; n < count; ++n) {
    const auto image = Image(n);
    frames.push_back(tx.Transmit(image.data(), image.size()));
    tx.Sent(10.0 * n);
  }
  return frames;
}

// The TLP image inside an accepted frame.
std::vector<uint8_t> Body(const std::vector<uint8_t>& frame) {
  return std::vector<uint8_t>(frame.begin() + kSeqFieldBytes, frame.end() - kLcrcBytes);
}

TEST(DataLinkLayer, CrcsMatchTheirCheckValues) {
  const char* digits = "123456789";
  const auto* d = reinterpret_cast<const uint8_t*>(digits);
  EXPECT_EQ(Lcrc32(d, 9), 0xCBF43926u);  // CRC-32 (04C11DB7h reflected) check value
  // The DLLP CRC of a DLLP is stable and an encoded DLLP decodes to itself.
  for (uint16_t seq : {0, 1, 2047, 4095}) {
    for (DllpType type : {DllpType::kAck, DllpType::kNak}) {
      const auto bytes = EncodeDllp({type, seq});
      const auto back = DecodeDllp(bytes);
      ASSERT_TRUE(back.has_value());
      EXPECT_EQ(*back, (Dllp{type, seq}));
    }
  }
}

TEST(DataLinkLayer, LcrcFindsEverySingleBitFlip) {
  for (size_t size : {12u, 16u, 268u}) {
    const std::vector<uint8_t> frame = EncodeFrame(0x5A5, Image(7, size).data(), size);
    uint16_t seq = 0;
    ASSERT_TRUE(CheckFrame(frame.data(), frame.size(), &seq));
    EXPECT_EQ(seq, 0x5A5);
    EXPECT_EQ(Body(frame), Image(7, size));
    for (size_t bit = 0; bit < frame.size() * 8; ++bit) {
      std::vector<uint8_t> bad = frame;
      bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      EXPECT_FALSE(CheckFrame(bad.data(), bad.size(), &seq)) << "bit " << bit << " of " << size;
    }
  }
}

TEST(DataLinkLayer, DllpCrcFindsEverySingleBitFlip) {
  const auto good = EncodeDllp({DllpType::kNak, 0x9C3});
  for (size_t bit = 0; bit < kDllpBytes * 8; ++bit) {
    auto bad = good;
    bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    EXPECT_FALSE(DecodeDllp(bad).has_value()) << "bit " << bit;
  }
}

TEST(DataLinkLayer, SequenceNumbersWrapOverTenThousandTlps) {
  DllTransmitter tx(kTimeout);
  DllReceiver rx(kAckLatency, 4);
  double now = 0;
  uint32_t acks = 0;
  for (uint32_t n = 0; n < 10000; ++n) {
    const std::vector<uint8_t> image = Image(n);
    const std::vector<uint8_t> frame = tx.Transmit(image.data(), image.size());
    EXPECT_EQ((frame[0] << 8 | frame[1]), static_cast<int>(n % kSeqModulo));
    tx.Sent(now += 10);
    const DllReceiver::Result r = rx.Receive(frame.data(), frame.size(), now);
    ASSERT_EQ(r.verdict, DllReceiver::Verdict::kAccepted) << n;
    if (r.dllp) {
      ++acks;
      EXPECT_EQ(r.dllp->type, DllpType::kAck);
      EXPECT_EQ(r.dllp->seq, n % kSeqModulo);
      EXPECT_EQ(tx.OnDllp(*r.dllp, now), DllTransmitter::Action::kNone);
    }
    EXPECT_LE(tx.outstanding(), 4u);
  }
  EXPECT_EQ(acks, 2500u);  // one ACK per 4 TLPs
  EXPECT_EQ(tx.outstanding(), 0u);
  EXPECT_FALSE(tx.replay_deadline().has_value());
  EXPECT_EQ(tx.next_seq(), 10000 % kSeqModulo);
  EXPECT_EQ(rx.next_seq(), 10000 % kSeqModulo);
  EXPECT_EQ(tx.counters().acknowledged, 10000u);
  EXPECT_EQ(rx.counters().accepted, 10000u);
}

TEST(DataLinkLayer, BadLcrcIsNakedOnceAndReplayed) {
  DllTransmitter tx(kTimeout);
  DllReceiver rx(kAckLatency, 0);
  std::vector<std::vector<uint8_t>> frames = TransmitAll(tx, 5);
  EXPECT_EQ(rx.Receive(frames[0].data(), frames[0].size(), 100).verdict,
            DllReceiver::Verdict::kAccepted);
  EXPECT_EQ(rx.Receive(frames[1].data(), frames[1].size(), 110).verdict,
            DllReceiver::Verdict::kAccepted);
  frames[2][5] ^= 0x10;  // corrupted on the wire
  const DllReceiver::Result bad = rx.Receive(frames[2].data(), frames[2].size(), 120);
  EXPECT_EQ(bad.verdict, DllReceiver::Verdict::kBadLcrc);
  ASSERT_TRUE(bad.dllp.has_value());
  EXPECT_EQ(*bad.dllp, (Dllp{DllpType::kNak, 1}));
  // The TLPs after it are out of order; the NAK is already scheduled: no second one.
  for (int i : {3, 4}) {
    const DllReceiver::Result r = rx.Receive(frames[i].data(), frames[i].size(), 130);
    EXPECT_EQ(r.verdict, DllReceiver::Verdict::kOutOfOrder);
    EXPECT_FALSE(r.dllp.has_value());
  }
  EXPECT_EQ(rx.counters().naks, 1u);
  // The NAK acknowledges 0 and 1 and replays 2, 3, 4.
  EXPECT_EQ(tx.OnDllp(*bad.dllp, 300), DllTransmitter::Action::kReplay);
  EXPECT_EQ(tx.replay_num(), 1);
  ASSERT_EQ(tx.unacknowledged().size(), 3u);
  EXPECT_FALSE(tx.replay_deadline().has_value());  // held while the replay is sent
  tx.ReplaySent(350);
  EXPECT_EQ(*tx.replay_deadline(), 350 + kTimeout);
  for (size_t i = 0; i < 3; ++i) {
    const auto& f = tx.unacknowledged()[i];
    const DllReceiver::Result r = rx.Receive(f.data(), f.size(), 400);
    EXPECT_EQ(r.verdict, DllReceiver::Verdict::kAccepted) << i;
    EXPECT_EQ(Body(f), Image(static_cast<uint32_t>(2 + i)));
  }
  const auto ack = rx.OnAckTimer(400 + kAckLatency);
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(*ack, (Dllp{DllpType::kAck, 4}));
  EXPECT_EQ(tx.OnDllp(*ack, 800), DllTransmitter::Action::kNone);
  EXPECT_EQ(tx.outstanding(), 0u);
  EXPECT_EQ(tx.replay_num(), 0);
}

TEST(DataLinkLayer, ReplayTimerStartsOnSendAndRestartsOnProgress) {
  DllTransmitter tx(kTimeout);
  const auto image = Image(1);
  tx.Transmit(image.data(), image.size());
  tx.Sent(50);
  tx.Transmit(image.data(), image.size());
  tx.Sent(60);  // already running: unchanged
  EXPECT_EQ(*tx.replay_deadline(), 50 + kTimeout);
  // An ACK of the first restarts it for the second.
  EXPECT_EQ(tx.OnDllp({DllpType::kAck, 0}, 500), DllTransmitter::Action::kNone);
  EXPECT_EQ(*tx.replay_deadline(), 500 + kTimeout);
  EXPECT_EQ(tx.OnReplayTimeout(1500), DllTransmitter::Action::kReplay);
  EXPECT_EQ(tx.counters().replay_timeouts, 1u);
  EXPECT_EQ(tx.unacknowledged().size(), 1u);
  tx.ReplaySent(1520);
  EXPECT_EQ(*tx.replay_deadline(), 1520 + kTimeout);
  // The last ACK stops it.
  EXPECT_EQ(tx.OnDllp({DllpType::kAck, 1}, 1600), DllTransmitter::Action::kNone);
  EXPECT_FALSE(tx.replay_deadline().has_value());
}

TEST(DataLinkLayer, ReplayNumRollsOverIntoARetraining) {
  DllTransmitter tx(kTimeout);
  const auto image = Image(3);
  tx.Transmit(image.data(), image.size());
  tx.Sent(0);
  double t = 0;
  std::vector<DllTransmitter::Action> actions;
  for (int i = 0; i < 8; ++i) {
    t = *tx.replay_deadline();
    actions.push_back(tx.OnReplayTimeout(t));
    tx.ReplaySent(t + 10);
  }
  using A = DllTransmitter::Action;
  EXPECT_EQ(actions, (std::vector<A>{A::kReplay, A::kReplay, A::kReplay, A::kRetrainAndReplay,
                                     A::kReplay, A::kReplay, A::kReplay, A::kRetrainAndReplay}));
  EXPECT_EQ(tx.counters().retrains, 2u);
  EXPECT_EQ(tx.counters().replays, 8u);
  // Progress resets REPLAY_NUM: three more replays before the next retraining.
  tx.Transmit(image.data(), image.size());
  EXPECT_EQ(tx.OnReplayTimeout(t + 2000), A::kReplay);
  EXPECT_EQ(tx.replay_num(), 1);
  EXPECT_EQ(tx.OnDllp({DllpType::kAck, 0}, t + 2100), A::kNone);
  EXPECT_EQ(tx.replay_num(), 0);
  EXPECT_EQ(tx.OnDllp({DllpType::kNak, 0}, t + 2200), A::kReplay);
  EXPECT_EQ(tx.OnDllp({DllpType::kNak, 0}, t + 2300), A::kReplay);
  EXPECT_EQ(tx.OnDllp({DllpType::kNak, 0}, t + 2400), A::kReplay);
  EXPECT_EQ(tx.OnDllp({DllpType::kNak, 0}, t + 2500), A::kRetrainAndReplay);
}

TEST(DataLinkLayer, DuplicateIsDiscardedAndAckedAtOnce) {
  DllTransmitter tx(kTimeout);
  DllReceiver rx(kAckLatency, 4);
  const auto image = Image(9);
  const auto frame = tx.Transmit(image.data(), image.size());
  EXPECT_EQ(rx.Receive(frame.data(), frame.size(), 0).verdict, DllReceiver::Verdict::kAccepted);
  EXPECT_EQ(*rx.ack_deadline(), kAckLatency);
  const DllReceiver::Result again = rx.Receive(frame.data(), frame.size(), 10);
  EXPECT_EQ(again.verdict, DllReceiver::Verdict::kDuplicate);
  ASSERT_TRUE(again.dllp.has_value());
  EXPECT_EQ(*again.dllp, (Dllp{DllpType::kAck, 0}));
  EXPECT_FALSE(rx.ack_deadline().has_value());  // that ACK covered the pending one
  EXPECT_EQ(rx.counters().accepted, 1u);
  EXPECT_EQ(rx.counters().duplicates, 1u);
}

TEST(DataLinkLayer, OutOfOrderIsDiscardedAndNakedOnce) {
  DllTransmitter tx(kTimeout);
  DllReceiver rx(kAckLatency, 4);
  const std::vector<std::vector<uint8_t>> frames = TransmitAll(tx, 4);
  // Frame 0 is lost: 1, 2, 3 are ahead.
  const DllReceiver::Result first = rx.Receive(frames[1].data(), frames[1].size(), 0);
  EXPECT_EQ(first.verdict, DllReceiver::Verdict::kOutOfOrder);
  ASSERT_TRUE(first.dllp.has_value());
  EXPECT_EQ(*first.dllp, (Dllp{DllpType::kNak, 4095}));  // nothing received yet
  EXPECT_FALSE(rx.Receive(frames[2].data(), frames[2].size(), 1).dllp.has_value());
  // The NAK names ACKD_SEQ: no progress, a replay of all four.
  EXPECT_EQ(tx.OnDllp(*first.dllp, 5), DllTransmitter::Action::kReplay);
  EXPECT_EQ(tx.unacknowledged().size(), 4u);
  for (const auto& f : tx.unacknowledged()) {
    EXPECT_EQ(rx.Receive(f.data(), f.size(), 10).verdict, DllReceiver::Verdict::kAccepted);
  }
  // Frame 3's original, still on the wire, now arrives late: a duplicate.
  EXPECT_EQ(rx.Receive(frames[3].data(), frames[3].size(), 20).verdict,
            DllReceiver::Verdict::kDuplicate);
  EXPECT_EQ(rx.counters().naks, 1u);
  EXPECT_EQ(rx.counters().accepted, 4u);
}

TEST(DataLinkLayer, TransmitterStallsWith2048Unacknowledged) {
  DllTransmitter tx(kTimeout);
  const auto image = Image(0);
  for (uint32_t n = 0; n < kMaxOutstanding; ++n) {
    EXPECT_FALSE(tx.full()) << n;
    tx.Transmit(image.data(), image.size());
  }
  EXPECT_TRUE(tx.full());
  EXPECT_THROW(tx.Transmit(image.data(), image.size()), std::logic_error);
  EXPECT_EQ(tx.OnDllp({DllpType::kAck, 0}, 10), DllTransmitter::Action::kNone);
  EXPECT_FALSE(tx.full());
  EXPECT_EQ(tx.outstanding(), kMaxOutstanding - 1);
  // An ACK naming a sequence number never sent is discarded.
  EXPECT_EQ(tx.OnDllp({DllpType::kAck, 3000}, 20), DllTransmitter::Action::kNone);
  EXPECT_EQ(tx.counters().stale_dllps, 1u);
  EXPECT_EQ(tx.outstanding(), kMaxOutstanding - 1);
}

TEST(DataLinkLayer, LostAckIsRecoveredByTheReplayTimer) {
  DllTransmitter tx(kTimeout);
  DllReceiver rx(kAckLatency, 0);
  for (uint32_t n = 0; n < 3; ++n) {
    const auto image = Image(n);
    const auto frame = tx.Transmit(image.data(), image.size());
    tx.Sent(10.0 * n);
    EXPECT_EQ(rx.Receive(frame.data(), frame.size(), 100.0 + n).verdict,
              DllReceiver::Verdict::kAccepted);
  }
  ASSERT_TRUE(rx.OnAckTimer(100 + kAckLatency).has_value());  // this ACK is lost on the wire
  EXPECT_EQ(tx.OnReplayTimeout(*tx.replay_deadline()), DllTransmitter::Action::kReplay);
  std::optional<Dllp> ack;
  for (const auto& f : tx.unacknowledged()) {
    const DllReceiver::Result r = rx.Receive(f.data(), f.size(), 1100);
    EXPECT_EQ(r.verdict, DllReceiver::Verdict::kDuplicate);
    ack = r.dllp;
  }
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(*ack, (Dllp{DllpType::kAck, 2}));
  EXPECT_EQ(tx.OnDllp(*ack, 1200), DllTransmitter::Action::kNone);
  EXPECT_EQ(tx.outstanding(), 0u);
  EXPECT_EQ(rx.counters().accepted, 3u);
}

TEST(DataLinkLayer, TimersFollowTheSpecTables) {
  // 2.5 GT/s (4 ns symbols): the spec's Ack latency and REPLAY_TIMER tables in symbol times,
  // plus the modeled round trip on the replay timer.
  struct Case {
    int lanes;
    uint32_t mps;
    double ack_symbols, replay_symbols;
  };
  for (const Case& c : {Case{1, 128, 237, 711}, Case{16, 128, 48, 144}, Case{8, 256, 107, 321},
                        Case{16, 256, 72, 216}, Case{4, 512, 154, 462}, Case{16, 1024, 150, 450},
                        Case{1, 4096, 4143, 12429}}) {
    PcieLinkConfig config;
    config.generation = 1;
    config.lanes = c.lanes;
    config.max_payload = c.mps;
    const DllTimers t = SpecDllTimers(config);
    EXPECT_DOUBLE_EQ(t.ack_latency_ns, 4.0 * c.ack_symbols) << c.lanes << " " << c.mps;
    EXPECT_DOUBLE_EQ(t.replay_timeout_ns, 4.0 * c.replay_symbols + 2 * config.latency_ns)
        << c.lanes << " " << c.mps;
    EXPECT_EQ(t.ack_every, config.tlps_per_dllp);
    EXPECT_EQ(t.retrain_ns, config.retrain_ns);
  }
  // gen3x16, MPS 256: (284 x 3 / 16 + 115) symbols of 1 ns.
  const DllTimers g3 = SpecDllTimers(PcieLinkConfig::FromName("gen3x16"));
  EXPECT_DOUBLE_EQ(g3.ack_latency_ns, 168.0);
  EXPECT_DOUBLE_EQ(g3.replay_timeout_ns, 504.0 + 400.0);
}

}  // namespace
}  // namespace tpu::sc
