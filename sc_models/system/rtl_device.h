// The Verilated device (rtl/tpu_top.sv, through the pin-level TopModel of
// sc_models/system/top_model.h) as a SystemC module on the modeled PCIe link: the TLP bridge
// between the link's TLM-2.0 payloads (sc_models/pcie_link.h: one TLP byte image per payload)
// and the RTL's TLP streams of TopConfig::tlp_width_bits (docs/host_if.md section 1; the beat
// codec of sc_models/pcie/tlp.h), and the clock that drives the RTL and the weight DRAM's
// cycle-level port.
//
// - Receive: a TLP the link delivers on `rx` is cut into beats (sc::TlpImageToBeats: header
//   DWs in beat 0, payload from beat 1) and queued; the RTL takes one beat per cycle when rx_ready. The returned delay
//   is the time the queue needs to drain below rx_buffer_beats, so the link holds the next TLP
//   back as a receiver whose buffer is full would (the RTL never loses a beat).
// - Transmit: beats the RTL sends are collected into a TLP image (sc::TlpBeatsToImage); complete TLPs wait in a queue
//   of tx_buffer_tlps that a thread sends through `tx` one after the other (each returns once
//   serialized); tx_ready is withheld while that queue is full.
// - Clock: one RTL cycle per period while anything is in flight; when the device has been
//   quiet (queue stopped, no DMA, nothing to send or receive, no DRAM beats, no beat taken)
//   for kQuietCycles, the clock stops until the next TLP arrives, so that an idle system has no
//   events and sc_start() returns (the RTL's cycle count then lags simulated time; its
//   counters only count while it runs).
// - Lookahead (conservative, exact): with the link direction that feeds `rx` known
//   (SetInputLink), one activation of the clock thread steps every cycle before the horizon,
//   the earliest time anything but the device itself could change its inputs: the link's next
//   possible delivery (PcieLinkDirection::EarliestDelivery: a TLP not yet on the wire arrives
//   one latency later at least) and the time TxThread frees a slot of the TLP queue. The run
//   stops early at a cycle that completes a TLP (the thread catches up with that cycle's time
//   before TxThread sends it), when the device turns quiet and before a cycle hook. A TLP that
//   the link delivers at the very time of a cycle is taken by that cycle (the order the
//   kernel gave the one-cycle-per-activation clock in every run compared). stats() does not
//   count cycles ahead of sc_time_stamp(); every figure compared (make run, bench_system's
//   cases at N = 8, 16 and 32) is the same as with one activation per cycle.
// - Speed (docs/performance.md, "System simulation speed"): the Verilated tpu_top's
//   evaluation is ~90% of a system run's time (the kernel's share fell from ~5% to ~3% with
//   the lookahead: ~138 k activations -> ~4 k for the 256x512x256 layer at N = 16). The
//   system runs at 0.13x / 0.29x / 0.59x the MXU alone at N = 8 / 16 / 32 (CPU time, one
//   run); 0.5x at N <= 16 needs RTL changes: the host DMA's input logic, the pool unit and
//   the controller cost as much as the array every cycle.
#ifndef TPU_SC_MODELS_SYSTEM_RTL_DEVICE_H_
#define TPU_SC_MODELS_SYSTEM_RTL_DEVICE_H_

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "sc_models/pcie/tlp.h"
#include "sc_models/ports/memory_ports.h"
#include "sc_models/system/top_model.h"

namespace tpu::sc {
class PcieLinkDirection;
}  // namespace tpu::sc

namespace tpu::sys {

struct RtlDeviceConfig {
  double clock_mhz = 700.0;
  uint32_t rx_buffer_beats = 64;  // receive queue the link may fill without waiting
  uint32_t tx_buffer_tlps = 4;    // complete TLPs waiting for the link
};

class RtlDevice : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<RtlDevice> rx;     // from link.downstream.out
  tlm_utils::simple_initiator_socket<RtlDevice> tx;  // into link.upstream.in

  struct Stats {
    uint64_t cycles = 0;      // RTL cycles clocked
    uint64_t tlps_in = 0;     // TLPs the link delivered
    uint64_t tlps_out = 0;    // TLPs sent into the link
    uint64_t rx_stall_cycles = 0;  // a beat waited and the RTL was not ready
    uint64_t tx_wait_cycles = 0;   // the RTL had a beat and the TLP queue was full
  };

  SC_HAS_PROCESS(RtlDevice);
  // dram: the weight DRAM's cycle-level port (sc::WeightDram::cycle_port()), clocked here.
  RtlDevice(sc_core::sc_module_name name, std::unique_ptr<TopModel> model,
            sc::DramPortModel* dram, const RtlDeviceConfig& config);

  const TopConfig& top_config() const { return model_->config(); }
  sc_core::sc_time period() const { return period_; }
  // As of sc_time_stamp() (not counting cycles the device has run ahead).
  Stats stats() const;
  // The RTL's outputs in the last cycle stepped, which may be up to the lookahead ahead of
  // sc_time_stamp() (status pins: running, done, error, drop counters).
  const TopOutputs& pins() const { return out_; }
  // Called every `every` cycles from the clock thread (progress lines); 0 disables.
  void SetCycleHook(uint64_t every, std::function<void(uint64_t cycle)> hook);
  // The link direction that delivers to `rx`: with it, the clock runs ahead up to the next
  // time a TLP could arrive (see above); without, one cycle per activation.
  void SetInputLink(const sc::PcieLinkDirection* link) { input_link_ = link; }

  static constexpr int kQuietCycles = 64;
  // The clock thread's stack (it runs the model's eval: rtl_device.cpp).
  static constexpr std::size_t kClockThreadStackBytes = std::size_t{16} << 20;

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void ClockThread();
  void TxThread();
  void Step();
  bool Quiet() const;
  // The time before which no input of the device can change but by its own cycles.
  sc_core::sc_time Horizon() const;
  // Whether the cycle at local time t may be stepped in the running activation.
  bool MayRunAhead(const sc_core::sc_time& t, const sc_core::sc_time& horizon) const;
  void OnTxBeat(const sc::TlpBeat& beat);

  std::unique_ptr<TopModel> model_;
  sc::DramPortModel* dram_;
  RtlDeviceConfig config_;
  sc_core::sc_time period_;
  std::deque<sc::TlpBeat> rx_beats_;
  sc_core::sc_event rx_event_;
  std::vector<sc::TlpBeat> tx_beats_;  // beats of the TLP being collected
  std::deque<std::vector<uint8_t>> tx_tlps_;
  sc_core::sc_event tx_event_;
  // TxThread's payload. A member, not a local of the thread: SystemC never unwinds the stack of
  // a thread that is still waiting when the simulation ends, so a local's destructor never runs
  // (LeakSanitizer reports the payload's extension array).
  tlm::tlm_generic_payload tx_trans_;
  TopOutputs out_;
  int quiet_ = 0;
  uint64_t hook_every_ = 0;
  std::function<void(uint64_t)> hook_;
  Stats stats_;
  // Lookahead: the counters after each cycle stepped ahead of sc_time_stamp() in the last
  // activation, and before the first of them.
  struct AheadCycle {
    sc_core::sc_time time;
    Stats stats;
  };
  std::vector<AheadCycle> ahead_;
  Stats behind_;
  const sc::PcieLinkDirection* input_link_ = nullptr;
  bool tlp_sent_ = false;    // the last cycle completed a TLP (TxThread not told yet)
  bool tx_in_link_ = false;  // TxThread is inside the link's b_transport
  bool tx_waiting_ = false;  // TxThread waits until tx_done_at_ to pop the TLP it sent
  sc_core::sc_time tx_done_at_;
};

}  // namespace tpu::sys

#endif  // TPU_SC_MODELS_SYSTEM_RTL_DEVICE_H_
