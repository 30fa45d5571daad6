// The modeled PCIe link (docs/pcie_link.md): two directions, each carrying whole TLPs from a
// transmitter to a receiver with the timing of the configured generation and width.
//
// Each direction has a TLM-2.0 target socket `in` (the transmitter's TLPs) and an initiator
// socket `out` (to the receiver). A TLP is a generic payload with the WRITE command whose data
// is the TLP's byte image (sc_models/pcie/tlp.h: header DWs, then payload), length = streaming
// width = image size, no byte enables; the address is not used.
//
// Loosely timed, b_transport only. The transmitter's b_transport returns once the TLP has been
// serialized: its delay grows by the time to wait for credits, for the wire to be free and to
// serialize the TLP. The link copies the image, so the transmitter's payload is free again at
// return. It calls wait() only when the TLP lacks flow-control credits that no consumed TLP
// has yet promised back; otherwise it only annotates. The direction's own thread delivers each
// TLP latency_ns after its last byte was sent (b_transport on `out`, zero delay in), then waits
// the delay the receiver returns (the receiver is busy that long: the next TLP waits) and gives
// the TLP's credits back credit_update_ns after that. Receivers must copy what they keep of a
// TLP's data: the link reuses the buffer once b_transport returns.
//
// Response status to the transmitter: OK once accepted; COMMAND_ERROR for other than WRITE,
// BYTE_ENABLE_ERROR with byte enables, BURST_ERROR if the streaming width is not the length,
// GENERIC_ERROR for a malformed image or a payload above the max payload size (last_error()
// says why). A receiver's error response is counted (stats().receiver_errors). Debug
// transport (transport_dbg) passes through to the receiver untimed: the device reaches host
// memory that way (RootComplex), and the host the device's.
//
// Data link layer (sc_models/pcie/data_link_layer.h, docs/pcie_link.md section 8): each TLP
// travels as a frame with a sequence number and LCRC and is kept for replay until the far
// receiver's ACK DLLP (which travels on the other direction, after the ACK latency timer or
// tlps_per_dllp TLPs) comes back; a bad LCRC or a gap is NAKed and replayed, a lost ACK or NAK
// is covered by the REPLAY_TIMER, every 4th replay without progress retrains the link (neither
// direction sends for retrain_ns). The receiver's transaction layer sees each TLP exactly once
// and in order; a transmitter with 2048 TLPs unacknowledged waits (wait()) for an ACK. With
// config.faults, frames and DLLPs are corrupted or dropped on the wire at random (seeded). Each
// direction counts what happened to its TLPs (errors()); a TLP acknowledged but not delivered
// exactly once throws std::logic_error out of the simulation.
#ifndef TPU_SC_MODELS_PCIE_LINK_H_
#define TPU_SC_MODELS_PCIE_LINK_H_

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "device/pcie_faults.h"
#include "sc_models/pcie/data_link_layer.h"
#include "sc_models/pcie/pcie_link_config.h"
#include "sc_models/pcie/tlp.h"

namespace tpu::sc {

// One direction of the link.
class PcieLinkDirection : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PcieLinkDirection> in;      // TLPs from the transmitter
  tlm_utils::simple_initiator_socket<PcieLinkDirection> out;  // TLPs to the receiver

  struct Stats {
    uint64_t tlps = 0;             // delivered
    uint64_t payload_bytes = 0;    // delivered
    uint64_t wire_bytes = 0;       // serialized TLP bytes (without the DLLP share)
    uint64_t rejected = 0;         // payloads answered with an error status
    uint64_t receiver_errors = 0;  // deliveries the receiver answered with an error status
    uint64_t credit_waits = 0;     // TLPs that had to wait for credits
    sc_core::sc_time credit_wait_time = sc_core::SC_ZERO_TIME;  // summed over those TLPs
    std::array<uint64_t, 3> max_outstanding{};  // most TLPs holding credits, per CreditClass
    sc_core::sc_time last_delivery = sc_core::SC_ZERO_TIME;
    sc_core::sc_time retrain_time = sc_core::SC_ZERO_TIME;  // link retraining, summed
  };

  SC_HAS_PROCESS(PcieLinkDirection);
  // receiver_credits: what the receiver at `out` advertises.
  PcieLinkDirection(sc_core::sc_module_name name, const PcieLinkConfig& config,
                    const FlowControlCredits& receiver_credits);

  const LinkTiming& timing() const { return timing_; }
  const DllTimers& dll_timers() const { return timers_; }
  const Stats& stats() const { return stats_; }
  // The data link layer's counters of this direction's TLPs (since the start: a run's figures
  // are the difference of two readings).
  const device::LinkErrorCounters& errors() const { return errors_; }
  // Zeroes the counters (the maxima restart from the TLPs now holding credits); errors() are
  // kept.
  void ResetStats();
  const std::string& last_error() const { return last_error_; }
  // TLPs accepted and not yet delivered to the receiver.
  size_t in_flight() const { return static_cast<size_t>(accepted_ - consumed_); }
  // Time at which the transmitter side is free again (end of the last TLP and its DLLP share).
  sc_core::sc_time wire_free() const { return wire_free_; }
  // A time before which the receiver is certainly given no TLP (b_transport on `out`): the
  // end of the receiver's busy time (the delay its b_transport returned) while it is busy,
  // sc_time_stamp() while an accepted TLP waits for it, the arrival of the first frame on the
  // wire, and otherwise one latency from now (a TLP sent from now on arrives later). Never
  // later than the next delivery. A receiver clocked in its own process may run ahead up to
  // it (sys::RtlDevice).
  sc_core::sc_time EarliestDelivery() const;
  // The data link layer's state machines (tests).
  const DllTransmitter& dll_transmitter() const { return tx_; }
  const DllReceiver& dll_receiver() const { return rx_; }
  // The direction whose wire carries this one's ACK/NAK DLLPs (PcieLink pairs them; a
  // direction on its own sends its DLLPs on no wire, with the same latency).
  void SetReverse(PcieLinkDirection* reverse) { reverse_ = reverse; }

 private:
  // Credits of one class: limits (0 = infinite), taken, and returns already scheduled (their
  // times never decrease: TLPs are consumed in order).
  struct Pool {
    uint64_t header_limit = 0;
    uint64_t data_limit = 0;
    uint64_t header_taken = 0;
    uint64_t data_taken = 0;
    uint64_t outstanding = 0;  // TLPs holding credits
    struct Return {
      sc_core::sc_time at;
      uint32_t header;
      uint32_t data;
    };
    std::deque<Return> returns;
  };
  // What the link keeps of an accepted TLP besides its frame.
  struct TlpInfo {
    uint64_t index;  // accepted TLPs before it: the order the receiver must see
    CreditClass credit_class;
    uint32_t data_credits;
    uint32_t payload_bytes;
    uint32_t header_bytes;
  };
  // A frame on the wire.
  struct Frame {
    std::vector<uint8_t> bytes;  // as it arrives (a corrupted frame has a bit flipped)
    sc_core::sc_time arrival;
    bool dropped;
    TlpInfo info;
  };
  // An accepted TLP waiting for the receiver's transaction layer.
  struct Received {
    std::vector<uint8_t> image;
    TlpInfo info;
  };
  // An ACK/NAK on its way back to the transmitter.
  struct DllpInFlight {
    std::array<uint8_t, kDllpBytes> bytes;
    sc_core::sc_time arrival;
  };

  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  // Puts a frame on the wire from `earliest` on, after what is already there; returns its end.
  sc_core::sc_time Serialize(const std::vector<uint8_t>& frame, const TlpInfo& info,
                             const sc_core::sc_time& earliest);
  // The receiver's data link layer: checks the frames that have arrived by now.
  void ProcessArrivals();
  // Runs ProcessArrivals when a frame arrives (also while the transaction layer is busy).
  void ReceiveThread();
  // The receiver's transaction layer: takes accepted TLPs in order, as fast as it consumes.
  void DeliverThread();
  // The receiver's ACK latency timer.
  void AckTimerThread();
  // The transmitter's data link layer: ACK/NAK arrivals and the REPLAY_TIMER.
  void TransmitterThread();
  // Sends an ACK/NAK back to the transmitter, with faults. `extra`: a NAK or the ACK of a
  // duplicate, which occupies the reverse wire (regular ACKs are the DLLP share).
  void SendDllp(const Dllp& dllp, bool extra);
  // Replays the unacknowledged frames (after a retraining if asked).
  void Replay(DllTransmitter::Action action);
  // Flips one bit of `bytes` at random.
  void FlipBit(uint8_t* bytes, size_t size);
  [[noreturn]] void Lost(const std::string& why);
  bool Reject(tlm::tlm_generic_payload& trans, tlm::tlm_response_status status,
              const std::string& why);
  // Applies the returns that are due by now.
  void FoldReturns(Pool* pool);
  // Earliest time >= t at which pool has header and data credits for one TLP, counting the
  // returns already scheduled; false if even all of them are not enough.
  bool CreditTime(const Pool& pool, uint32_t data, const sc_core::sc_time& t,
                  sc_core::sc_time* when) const;

  LinkTiming timing_;
  sc_core::sc_time latency_;
  sc_core::sc_time credit_update_;
  std::array<Pool, 3> pools_;
  sc_core::sc_time wire_free_ = sc_core::SC_ZERO_TIME;
  sc_core::sc_event returns_event_;  // new credit returns were scheduled
  tlm::tlm_generic_payload deliver_;
  Stats stats_;
  std::string last_error_;

  // Data link layer.
  DllTimers timers_;
  device::PcieFaults faults_;
  std::mt19937_64 rng_;
  DllTransmitter tx_;
  DllReceiver rx_;
  PcieLinkDirection* reverse_ = nullptr;
  std::deque<TlpInfo> unacked_info_;   // parallel to tx_.unacknowledged()
  std::deque<Frame> wire_;             // frames by arrival time
  std::deque<Received> received_;      // accepted, for the transaction layer
  std::deque<DllpInFlight> dllps_;     // by arrival time
  sc_core::sc_event wire_event_;       // a frame was put on the wire
  sc_core::sc_event received_event_;   // a TLP was accepted
  sc_core::sc_event ack_timer_event_;  // the ACK latency timer was (re)started
  sc_core::sc_event tx_event_;         // a DLLP is on its way or the REPLAY_TIMER moved
  sc_core::sc_event purged_event_;     // the replay buffer shrank
  uint64_t accepted_ = 0;   // TLPs accepted from the transmitter
  uint64_t delivered_ = 0;  // TLPs accepted by the receiver's data link layer, in order
  uint64_t consumed_ = 0;   // TLPs the receiver's transaction layer took
  // DeliverThread waits for the receiver (the delay its b_transport returned) until then.
  bool receiver_busy_ = false;
  sc_core::sc_time receiver_busy_until_ = sc_core::SC_ZERO_TIME;
  device::LinkErrorCounters errors_;
};

// The link: downstream carries host -> device TLPs (the root complex transmits into
// downstream.in, the device receives from downstream.out), upstream device -> host.
class PcieLink : public sc_core::sc_module {
 public:
  PcieLink(sc_core::sc_module_name name, const PcieLinkConfig& config);

  const PcieLinkConfig& config() const { return config_; }
  const LinkTiming& timing() const { return downstream.timing(); }

  PcieLinkDirection downstream;  // receiver credits: config.device_credits
  PcieLinkDirection upstream;    // receiver credits: config.host_credits

 private:
  PcieLinkConfig config_;
};

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_PCIE_LINK_H_
