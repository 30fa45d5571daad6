// A device-side PCIe endpoint (docs/pcie_link.md section 5): the device end of the PcieLink for
// the tests, the benchmark and the functional device model. Receives TLPs on `rx` (from
// link.downstream.out) and sends on `tx` (into link.upstream.in).
//
// - BAR0: 1-DW MWr and MRd to [bar0_address, bar0_address + 4 KiB) call the register
//   handlers; a read is answered with a CplD (or, if reads are set not to be answered, not at
//   all, to let tests see the host's timeout).
// - DMA (call from an SC_THREAD): ReadHost issues MRd of up to the max read request size, never
//   across 4 KiB, with up to max_outstanding_reads tags in flight, and reassembles their
//   completions (ReadReassembler checks each); WriteHost sends MWr of up to the max payload
//   size; SendMsi sends the 1-DW MSI write.
#ifndef TPU_SC_MODELS_PCIE_ENDPOINT_H_
#define TPU_SC_MODELS_PCIE_ENDPOINT_H_

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <systemc>
#include <tlm>
#include <vector>

#include "sc_models/pcie/tlp.h"

namespace tpu::sc {

struct PcieEndpointConfig {
  uint64_t bar0_address = 0xF000'0000;  // as RootComplexConfig::bar0_address
  uint32_t max_payload = 256;
  uint32_t max_read_request = 512;
  uint32_t max_outstanding_reads = 32;  // tags in flight, 1..256
  bool answer_register_reads = true;
  bool log_completions = false;  // keep every completion received (completion_log())
};

class PcieEndpoint : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PcieEndpoint> rx;     // host -> device TLPs
  tlm_utils::simple_initiator_socket<PcieEndpoint> tx;  // device -> host TLPs

  using RegisterReadHandler = std::function<uint32_t(uint32_t offset)>;
  using RegisterWriteHandler = std::function<void(uint32_t offset, uint32_t value)>;

  struct Stats {
    uint64_t register_reads = 0;
    uint64_t register_writes = 0;
    uint64_t read_requests = 0;  // MRd sent
    uint64_t completions = 0;    // Cpl/CplD received for them
    uint64_t bytes_read = 0;
    uint64_t write_requests = 0;  // MWr sent (MSI included)
    uint64_t bytes_written = 0;
    uint64_t unexpected = 0;  // TLPs that fit nothing (dropped)
  };

  SC_HAS_PROCESS(PcieEndpoint);
  PcieEndpoint(sc_core::sc_module_name name, const PcieEndpointConfig& config);

  void SetRegisterHandlers(RegisterReadHandler read, RegisterWriteHandler write);
  void set_answer_register_reads(bool answer) { config_.answer_register_reads = answer; }

  // ---- DMA: from an SC_THREAD ---------------------------------------------------------------
  // Reads [address, address + length) of host memory into out; returns kSuccess or the status
  // of the first completion that failed (the remaining requests still complete).
  CompletionStatus ReadHost(uint64_t address, uint8_t* out, uint64_t length);
  // Writes host memory (posted); returns once the last MWr has been sent.
  void WriteHost(uint64_t address, const uint8_t* data, uint64_t length);
  void SendMsi(uint64_t address, uint32_t data);

  const Stats& stats() const { return stats_; }
  const std::vector<Tlp>& completion_log() const { return completion_log_; }

 private:
  struct Outstanding {
    std::unique_ptr<ReadReassembler> reassembler;
    uint8_t* out = nullptr;
    CompletionStatus* status = nullptr;  // first failure of the ReadHost call
    uint32_t* pending = nullptr;         // requests of that call still in flight
  };

  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void ResponderThread();
  void Send(const Tlp& tlp);

  PcieEndpointConfig config_;
  RegisterReadHandler on_read_;
  RegisterWriteHandler on_write_;
  std::vector<Outstanding> tags_;  // by tag; reassembler null when free
  uint32_t in_flight_ = 0;
  uint32_t next_tag_ = 0;
  sc_core::sc_event tag_free_event_;
  std::deque<Tlp> responses_;  // register-read completions to send
  sc_core::sc_event responses_event_;
  std::vector<Tlp> completion_log_;
  Stats stats_;
};

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_PCIE_ENDPOINT_H_
