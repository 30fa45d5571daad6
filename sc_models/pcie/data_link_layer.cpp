#include "sc_models/pcie/data_link_layer.h"

#include <cmath>
#include <stdexcept>

namespace tpu::sc {
namespace {

// Bit-serial CRCs, least significant bit first: the polynomials reflected.
constexpr uint32_t kLcrcPolyReflected = 0xEDB88320u;  // 04C11DB7h
constexpr uint16_t kDllpPolyReflected = 0xD008u;      // 100Bh

uint32_t Crc32Step(uint32_t crc, uint8_t byte) {
  crc ^= byte;
  for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (kLcrcPolyReflected & (0u - (crc & 1u)));
  return crc;
}

// The LCRC a byte at a time (every TLP is framed and checked: the bit loop would dominate).
struct Crc32Table {
  uint32_t entry[256];
  Crc32Table() {
    for (uint32_t i = 0; i < 256; ++i) entry[i] = Crc32Step(0, static_cast<uint8_t>(i));
  }
};

uint16_t Crc16Step(uint16_t crc, uint8_t byte) {
  crc = static_cast<uint16_t>(crc ^ byte);
  for (int b = 0; b < 8; ++b) {
    crc = static_cast<uint16_t>((crc >> 1) ^ (kDllpPolyReflected & (0u - (crc & 1u))));
  }
  return crc;
}

// The spec's AckFactor by max payload size and width (symbol times per byte, roughly the
// number of max-size TLPs a receiver may coalesce into one ACK).
double AckFactor(uint32_t mps, int lanes) {
  if (mps <= 256) return lanes <= 4 ? 1.4 : lanes == 8 ? 2.5 : 3.0;
  return lanes <= 8 ? 1.0 : 2.0;
}

// The spec's InternalDelay in symbol times: 19 at 2.5 GT/s, 70 at 5 GT/s, 115 from 8 GT/s.
double InternalDelaySymbols(int generation) {
  return generation == 1 ? 19.0 : generation == 2 ? 70.0 : 115.0;
}

// A symbol time: 10 UI with 8b/10b, 8 UI (one byte per lane) with 128b/130b.
double SymbolTimeNs(int generation) {
  return (generation <= 2 ? 10.0 : 8.0) / TransferRateGts(generation);
}

constexpr uint32_t kTlpOverheadSymbols = 28;

}  // namespace

uint32_t Lcrc32(const uint8_t* data, size_t size) {
  static const Crc32Table table;
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) crc = (crc >> 8) ^ table.entry[(crc ^ data[i]) & 0xFF];
  return ~crc;
}

uint16_t DllpCrc16(const uint8_t* data, size_t size) {
  uint16_t crc = 0xFFFFu;
  for (size_t i = 0; i < size; ++i) crc = Crc16Step(crc, data[i]);
  return static_cast<uint16_t>(~crc);
}

uint16_t SeqAdd(uint16_t a, uint32_t n) { return static_cast<uint16_t>((a + n) % kSeqModulo); }

uint32_t SeqDistance(uint16_t from, uint16_t to) {
  return (static_cast<uint32_t>(to) + kSeqModulo - from) % kSeqModulo;
}

std::vector<uint8_t> EncodeFrame(uint16_t seq, const uint8_t* tlp, size_t size) {
  std::vector<uint8_t> frame(size + kFrameOverheadBytes);
  frame[0] = static_cast<uint8_t>((seq >> 8) & 0x0F);  // 4 reserved bits, seq[11:8]
  frame[1] = static_cast<uint8_t>(seq & 0xFF);
  std::copy(tlp, tlp + size, frame.begin() + kSeqFieldBytes);
  const uint32_t lcrc = Lcrc32(frame.data(), kSeqFieldBytes + size);
  for (size_t i = 0; i < kLcrcBytes; ++i) {
    frame[kSeqFieldBytes + size + i] = static_cast<uint8_t>(lcrc >> (8 * i));
  }
  return frame;
}

bool CheckFrame(const uint8_t* frame, size_t size, uint16_t* seq) {
  if (size < kFrameOverheadBytes) return false;
  const size_t body = size - kLcrcBytes;
  uint32_t lcrc = 0;
  for (size_t i = 0; i < kLcrcBytes; ++i) lcrc |= uint32_t{frame[body + i]} << (8 * i);
  if (Lcrc32(frame, body) != lcrc) return false;
  // Reserved bits set: the transmitter never sends them, so the frame is not ours.
  if ((frame[0] & 0xF0) != 0) return false;
  *seq = static_cast<uint16_t>(((frame[0] & 0x0F) << 8) | frame[1]);
  return true;
}

std::array<uint8_t, kDllpBytes> EncodeDllp(const Dllp& d) {
  std::array<uint8_t, kDllpBytes> b{};
  b[0] = static_cast<uint8_t>(d.type);
  b[1] = 0;
  b[2] = static_cast<uint8_t>((d.seq >> 8) & 0x0F);
  b[3] = static_cast<uint8_t>(d.seq & 0xFF);
  const uint16_t crc = DllpCrc16(b.data(), 4);
  b[4] = static_cast<uint8_t>(crc);
  b[5] = static_cast<uint8_t>(crc >> 8);
  return b;
}

std::optional<Dllp> DecodeDllp(const std::array<uint8_t, kDllpBytes>& b) {
  const uint16_t crc = static_cast<uint16_t>(b[4] | (b[5] << 8));
  if (DllpCrc16(b.data(), 4) != crc) return std::nullopt;
  if ((b[0] != static_cast<uint8_t>(DllpType::kAck) &&
       b[0] != static_cast<uint8_t>(DllpType::kNak)) ||
      b[1] != 0 || (b[2] & 0xF0) != 0) {
    return std::nullopt;
  }
  return Dllp{static_cast<DllpType>(b[0]), static_cast<uint16_t>(((b[2] & 0x0F) << 8) | b[3])};
}

DllTimers SpecDllTimers(const PcieLinkConfig& c) {
  const double symbol = SymbolTimeNs(c.generation);
  const double ack_symbols =
      std::floor((c.max_payload + kTlpOverheadSymbols) * AckFactor(c.max_payload, c.lanes) /
                     c.lanes +
                 InternalDelaySymbols(c.generation));
  DllTimers t;
  t.ack_latency_ns = ack_symbols * symbol;
  t.replay_timeout_ns = 3.0 * ack_symbols * symbol + 2.0 * c.latency_ns;
  t.retrain_ns = c.retrain_ns;
  t.ack_every = c.tlps_per_dllp;
  return t;
}

// ---------------------------------------------------------------------------------------------
// Transmitter

DllTransmitter::DllTransmitter(double replay_timeout_ns) : replay_timeout_ns_(replay_timeout_ns) {}

const std::vector<uint8_t>& DllTransmitter::Transmit(const uint8_t* tlp, size_t size) {
  if (full()) {
    throw std::logic_error("DllTransmitter: 2048 TLPs are unacknowledged; wait for an ACK");
  }
  buffer_.push_back(EncodeFrame(next_seq_, tlp, size));
  next_seq_ = SeqAdd(next_seq_, 1);
  ++counters_.transmitted;
  return buffer_.back();
}

void DllTransmitter::Sent(double end_ns) {
  if (!deadline_) deadline_ = end_ns + replay_timeout_ns_;
}

DllTransmitter::Action DllTransmitter::OnDllp(const Dllp& dllp, double now_ns) {
  // The sequence number must be ACKD_SEQ or one of the outstanding TLPs; anything else is a
  // DLLP protocol error and is discarded.
  const uint32_t progress = SeqDistance(acked_seq_, dllp.seq);
  if (progress > outstanding()) {
    ++counters_.stale_dllps;
    return Action::kNone;
  }
  if (progress > 0) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + progress);
    counters_.acknowledged += progress;
    acked_seq_ = dllp.seq;
    replay_num_ = 0;
    deadline_.reset();
    if (!buffer_.empty()) deadline_ = now_ns + replay_timeout_ns_;
  }
  if (dllp.type == DllpType::kAck) return Action::kNone;
  ++counters_.naks;
  if (buffer_.empty()) return Action::kNone;  // it acknowledged everything there was
  return Replay();
}

DllTransmitter::Action DllTransmitter::OnReplayTimeout(double now_ns) {
  (void)now_ns;
  deadline_.reset();
  if (buffer_.empty()) return Action::kNone;
  ++counters_.replay_timeouts;
  return Replay();
}

DllTransmitter::Action DllTransmitter::Replay() {
  ++counters_.replays;
  deadline_.reset();  // held while the replay is sent; ReplaySent restarts it
  replay_num_ = (replay_num_ + 1) & 3;
  if (replay_num_ == 0) {
    ++counters_.retrains;
    return Action::kRetrainAndReplay;
  }
  return Action::kReplay;
}

void DllTransmitter::ReplaySent(double end_ns) {
  deadline_.reset();
  if (!buffer_.empty()) deadline_ = end_ns + replay_timeout_ns_;
}

// ---------------------------------------------------------------------------------------------
// Receiver

DllReceiver::DllReceiver(double ack_latency_ns, uint32_t ack_every)
    : ack_latency_ns_(ack_latency_ns), ack_every_(ack_every) {}

Dllp DllReceiver::Ack() {
  pending_ = 0;
  ack_deadline_.reset();
  ++counters_.acks;
  return Dllp{DllpType::kAck, last_seq()};
}

Dllp DllReceiver::Nak() {
  // A NAK acknowledges everything before NEXT_RCV_SEQ too.
  pending_ = 0;
  ack_deadline_.reset();
  nak_scheduled_ = true;
  ++counters_.naks;
  return Dllp{DllpType::kNak, last_seq()};
}

DllReceiver::Result DllReceiver::Receive(const uint8_t* frame, size_t size, double now_ns) {
  uint16_t seq = 0;
  if (!CheckFrame(frame, size, &seq)) {
    ++counters_.bad_lcrc;
    return {Verdict::kBadLcrc, nak_scheduled_ ? std::nullopt : std::optional<Dllp>(Nak())};
  }
  if (seq == next_seq_) {
    ++counters_.accepted;
    next_seq_ = SeqAdd(next_seq_, 1);
    nak_scheduled_ = false;
    ++pending_;
    if (ack_every_ != 0 && pending_ >= ack_every_) return {Verdict::kAccepted, Ack()};
    if (!ack_deadline_) ack_deadline_ = now_ns + ack_latency_ns_;
    return {Verdict::kAccepted, std::nullopt};
  }
  const uint32_t behind = SeqDistance(seq, next_seq_);
  if (behind <= kMaxOutstanding) {
    // Already received: the transmitter missed the ACK; tell it again at once.
    ++counters_.duplicates;
    return {Verdict::kDuplicate, Ack()};
  }
  ++counters_.out_of_order;  // a TLP before it was lost
  return {Verdict::kOutOfOrder, nak_scheduled_ ? std::nullopt : std::optional<Dllp>(Nak())};
}

std::optional<Dllp> DllReceiver::OnAckTimer(double now_ns) {
  (void)now_ns;
  ack_deadline_.reset();
  if (pending_ == 0) return std::nullopt;
  return Ack();
}

}  // namespace tpu::sc
