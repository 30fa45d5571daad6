// The Verilated device (rtl/tpu_top.sv, through the pin-level TopModel of
// sc_models/system/top_model.h) as a SystemC module on the modeled PCIe link: the TLP bridge
// between the link's TLM-2.0 payloads (sc_models/pcie_link.h: one TLP byte image per payload)
// and the RTL's 128-bit TLP streams (docs/host_if.md section 1; the beat codec of
// sc_models/pcie/tlp.h), and the clock that drives the RTL and the weight DRAM's cycle-level
// port.
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
#ifndef TPU_SC_MODELS_SYSTEM_RTL_DEVICE_H_
#define TPU_SC_MODELS_SYSTEM_RTL_DEVICE_H_

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

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
  const Stats& stats() const { return stats_; }
  // The RTL's outputs in the last cycle (status pins: running, done, error, drop counters).
  const TopOutputs& pins() const { return out_; }
  // Called every `every` cycles from the clock thread (progress lines); 0 disables.
  void SetCycleHook(uint64_t every, std::function<void(uint64_t cycle)> hook);

  static constexpr int kQuietCycles = 64;

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void ClockThread();
  void TxThread();
  void Step();
  bool Quiet() const;
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
  TopOutputs out_;
  int quiet_ = 0;
  uint64_t hook_every_ = 0;
  std::function<void(uint64_t)> hook_;
  Stats stats_;
};

}  // namespace tpu::sys

#endif  // TPU_SC_MODELS_SYSTEM_RTL_DEVICE_H_
