// The PCIe data link layer's protocol (docs/pcie_link.md section 8), in plain C++ with times
// passed in, so that its state machines can be driven and tested without SystemC; the link
// module (sc_models/pcie_link.h) runs one transmitter and one receiver per direction.
//
// On the wire a TLP travels as a frame: the 2-byte sequence number field (4 reserved bits, the
// 12-bit sequence number), the TLP's byte image, then the 4-byte LCRC (PCIe's CRC-32 over the
// sequence number field and the TLP). The receiver recomputes the LCRC over what arrived: a bit
// flipped anywhere in the frame is found by the check, not told by a flag. ACK and NAK are
// 6-byte DLLPs (type, 12-bit sequence number, 16-bit CRC).
//
//   DllTransmitter                                   DllReceiver
//   Transmit(tlp) -> frame (seq, LCRC), kept  ───►   Receive(frame) -> accept / duplicate /
//   for replay; REPLAY_TIMER runs                    out of order / bad LCRC, and the DLLP to send
//   OnDllp(ACK/NAK) purges, NAK replays      ◄───    ACK: every ack_every TLPs or when the
//   OnReplayTimeout replays; every 4th replay         ACK latency timer expires; NAK once per
//   without progress (REPLAY_NUM rollover) retrains   error until the expected TLP arrives
#ifndef TPU_SC_MODELS_PCIE_DATA_LINK_LAYER_H_
#define TPU_SC_MODELS_PCIE_DATA_LINK_LAYER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "sc_models/pcie/pcie_link_config.h"

namespace tpu::sc {

inline constexpr uint32_t kSeqModulo = 4096;       // 12-bit sequence numbers
inline constexpr uint32_t kMaxOutstanding = 2048;  // unacknowledged TLPs a transmitter may have
inline constexpr size_t kSeqFieldBytes = 2;
inline constexpr size_t kFrameOverheadBytes = kSeqFieldBytes + kLcrcBytes;
inline constexpr size_t kDllpBytes = 6;  // 4 bytes of DLLP and its 16-bit CRC (without framing)

// PCIe's LCRC: CRC-32 with the polynomial 04C11DB7h, seed FFFFFFFFh, bits taken least
// significant first, the remainder complemented (as Ethernet's FCS).
uint32_t Lcrc32(const uint8_t* data, size_t size);
// A DLLP's CRC: CRC-16 with the polynomial 100Bh, seed FFFFh, bits least significant first,
// complemented.
uint16_t DllpCrc16(const uint8_t* data, size_t size);

// (a + n) mod 4096 and (to - from) mod 4096.
uint16_t SeqAdd(uint16_t a, uint32_t n);
uint32_t SeqDistance(uint16_t from, uint16_t to);

// The frame of a TLP image with sequence number seq.
std::vector<uint8_t> EncodeFrame(uint16_t seq, const uint8_t* tlp, size_t size);
// True if the frame's LCRC matches its contents; then *seq is its sequence number. The TLP is
// frame[kSeqFieldBytes .. size - kLcrcBytes).
bool CheckFrame(const uint8_t* frame, size_t size, uint16_t* seq);

enum class DllpType : uint8_t { kAck = 0x00, kNak = 0x10 };
struct Dllp {
  DllpType type = DllpType::kAck;
  uint16_t seq = 0;  // the last TLP received in order (AckNak_Seq_Num)
  bool operator==(const Dllp& o) const { return type == o.type && seq == o.seq; }
};
std::array<uint8_t, kDllpBytes> EncodeDllp(const Dllp& dllp);
// nullopt if the CRC fails or the type is not ACK/NAK (the receiver discards it).
std::optional<Dllp> DecodeDllp(const std::array<uint8_t, kDllpBytes>& bytes);

// The data link layer's timers of a configured link (nanoseconds).
struct DllTimers {
  double ack_latency_ns = 0;     // a receiver acknowledges a TLP at most this late
  double replay_timeout_ns = 0;  // REPLAY_TIMER limit, including the link's round trip
  double retrain_ns = 0;         // a retraining after a REPLAY_NUM rollover
  uint32_t ack_every = 0;        // also acknowledge after this many TLPs (0: only the timer)
};
// The spec's values for the configured generation, width and MPS (docs/pcie_link.md 8.2):
// AckLatency = (MPS + 28) x AckFactor / width + InternalDelay symbol times, REPLAY_TIMER three
// times that, plus 2 x latency_ns (the table assumes a negligible flight time; the model's
// one-way latency is not); ack_every = tlps_per_dllp; retrain_ns from the configuration.
DllTimers SpecDllTimers(const PcieLinkConfig& config);

// The transmitter side: sequence numbers, the replay buffer, REPLAY_TIMER and REPLAY_NUM.
class DllTransmitter {
 public:
  enum class Action { kNone, kReplay, kRetrainAndReplay };
  struct Counters {
    uint64_t transmitted = 0;      // TLPs framed (each once)
    uint64_t acknowledged = 0;     // TLPs purged from the replay buffer
    uint64_t naks = 0;             // NAKs received
    uint64_t replays = 0;          // replays started (NAK or timeout)
    uint64_t replay_timeouts = 0;  // REPLAY_TIMER expiries
    uint64_t retrains = 0;         // REPLAY_NUM rollovers
    uint64_t stale_dllps = 0;      // ACK/NAK naming a sequence number not outstanding
  };

  explicit DllTransmitter(double replay_timeout_ns);

  uint32_t outstanding() const { return static_cast<uint32_t>(buffer_.size()); }
  // 2048 TLPs unacknowledged: the next TLP must wait for an ACK.
  bool full() const { return outstanding() >= kMaxOutstanding; }
  // Frames a TLP with the next sequence number and keeps the frame for replay. Requires
  // !full() (std::logic_error otherwise).
  const std::vector<uint8_t>& Transmit(const uint8_t* tlp, size_t size);
  // A frame's last byte leaves at end_ns: the REPLAY_TIMER starts if it is not running.
  void Sent(double end_ns);
  // An ACK or NAK with a good CRC arrived at now_ns: purges what it acknowledges (progress
  // resets REPLAY_NUM and restarts the timer); a NAK then asks for a replay.
  Action OnDllp(const Dllp& dllp, double now_ns);
  // The REPLAY_TIMER expired (now_ns >= *replay_deadline()): a replay.
  Action OnReplayTimeout(double now_ns);
  // The replay asked for finished sending at end_ns: the REPLAY_TIMER restarts from there.
  void ReplaySent(double end_ns);

  std::optional<double> replay_deadline() const { return deadline_; }
  // The frames a replay sends, oldest first.
  const std::deque<std::vector<uint8_t>>& unacknowledged() const { return buffer_; }
  uint16_t next_seq() const { return next_seq_; }
  uint16_t acked_seq() const { return acked_seq_; }
  int replay_num() const { return replay_num_; }
  const Counters& counters() const { return counters_; }

 private:
  Action Replay();

  double replay_timeout_ns_;
  uint16_t next_seq_ = 0;             // NEXT_TRANSMIT_SEQ
  uint16_t acked_seq_ = kSeqModulo - 1;  // ACKD_SEQ
  int replay_num_ = 0;                // REPLAY_NUM, 2 bits
  std::optional<double> deadline_;    // REPLAY_TIMER running until then
  std::deque<std::vector<uint8_t>> buffer_;
  Counters counters_;
};

// The receiver side: the expected sequence number, NAK_SCHEDULED and ACK coalescing.
class DllReceiver {
 public:
  enum class Verdict { kAccepted, kBadLcrc, kDuplicate, kOutOfOrder };
  struct Result {
    Verdict verdict;
    std::optional<Dllp> dllp;  // to send now
  };
  struct Counters {
    uint64_t accepted = 0, bad_lcrc = 0, duplicates = 0, out_of_order = 0, acks = 0, naks = 0;
  };

  DllReceiver(double ack_latency_ns, uint32_t ack_every);

  // A frame arrived at now_ns. Accepted: its TLP goes to the transaction layer; an ACK may be
  // due. Duplicate: discarded, ACKed at once. Out of order or a bad LCRC: discarded, NAKed
  // unless a NAK is already scheduled.
  Result Receive(const uint8_t* frame, size_t size, double now_ns);
  // When the ACK latency timer expires (TLPs accepted and not yet acknowledged).
  std::optional<double> ack_deadline() const { return ack_deadline_; }
  // The timer expired: the ACK to send (nullopt if nothing is pending any more).
  std::optional<Dllp> OnAckTimer(double now_ns);

  uint16_t next_seq() const { return next_seq_; }
  const Counters& counters() const { return counters_; }

 private:
  Dllp Ack();
  Dllp Nak();
  uint16_t last_seq() const { return SeqAdd(next_seq_, kSeqModulo - 1); }

  double ack_latency_ns_;
  uint32_t ack_every_;
  uint16_t next_seq_ = 0;  // NEXT_RCV_SEQ
  bool nak_scheduled_ = false;
  uint32_t pending_ = 0;  // accepted, not yet acknowledged
  std::optional<double> ack_deadline_;
  Counters counters_;
};

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_PCIE_DATA_LINK_LAYER_H_
