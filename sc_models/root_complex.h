// The root complex with host memory (docs/pcie_link.md section 4): the host end of the
// PcieLink. Receives the device's TLPs on `rx` (from link.upstream.out) and sends its own on
// `tx` (into link.downstream.in), one TLP image per generic payload (sc_models/pcie_link.h).
//
// - Host memory: the 48-bit sparse byte store of the reference machine (model::HostMemory,
//   with its fault ranges), reached by the driver through memory().
// - MWr from the device: applied to host memory with its byte enables, except a write to the
//   configured MSI address, which is recorded as an interrupt (WaitForInterrupt).
// - MRd from the device: memory_latency_ns after it arrives, its data is read and sent as
//   CplDs split at the read completion boundary and the max payload size (CompletionSplit);
//   a read that breaks the rules (above MRRS, across 4 KiB) gets a Cpl with status UR instead;
//   one that touches a fault range of host memory is answered as its kind says (UR, CA,
//   poisoned CplDs, or never: model::HostMemory::FaultKind); and with completion faults
//   configured (`--pcie-faults cpl_ur=,cpl_ca=,cpl_poison=,cpl_drop=`) any read is answered
//   so with that probability, drawn from a generator seeded with the faults' seed.
// - The driver's side (call from an SC_THREAD): WriteRegister / ReadRegister send 1-DW MWr /
//   MRd to BAR0 and, for reads, wait for the completion with a timeout; WaitForInterrupt
//   waits for an MSI with a timeout.
// - Configuration (from an SC_THREAD): ConfigRead / ConfigWrite send CfgRd0 / CfgWr0 to the
//   device (target ID kDeviceId) and wait for their completion; Enumerate runs the host's
//   bring-up (sc::EnumerationSteps: IDs, BAR0 sizing and address, MPS and MRRS as configured,
//   Memory Space and Bus Master Enable) before the device is used.
// Debug transport on `rx` (transport_dbg) reads and writes host memory directly, the address
// being the host address.
// The RTL tests' cycle-level stimulus model with the same role is testbench/host_if/root_complex.h
// (same TLP type and request rules, plus random gaps, reordering and injected traffic).
#ifndef TPU_SC_MODELS_ROOT_COMPLEX_H_
#define TPU_SC_MODELS_ROOT_COMPLEX_H_

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "device/pcie_faults.h"
#include "model/host_memory.h"
#include "sc_models/pcie/config_space.h"
#include "sc_models/pcie/tlp.h"

namespace tpu::sc {

struct RootComplexConfig {
  uint64_t bar0_address = 0xF000'0000;     // where the device's BAR0 is mapped (below 4 GiB)
  uint64_t msi_address = 0xFEE0'0000;      // MWr to this address are interrupts, not memory
  uint32_t read_completion_boundary = 64;  // RCB: 64 or 128
  bool one_rcb_per_completion = false;     // see CompletionSplit
  uint32_t max_payload = 256;              // MPS, as the link's
  uint32_t max_read_request = 512;         // MRRS the device is allowed, as the link's
  double memory_latency_ns = 100.0;        // MRd arrival -> its first completion is sent
  double register_timeout_ns = 100'000.0;  // default wait for a register read's completion
  device::PcieFaults faults;  // its cpl_* probabilities and seed: completion faults
};

// A register read that did not complete: timed out, or completed with an error status.
class RegisterError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RootComplex : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<RootComplex> rx;     // device -> host TLPs
  tlm_utils::simple_initiator_socket<RootComplex> tx;  // host -> device TLPs

  struct Interrupt {
    uint32_t data = 0;  // the MSI write's first DW
    sc_core::sc_time time;
  };
  struct RegisterRead {
    bool timed_out = false;
    CompletionStatus status = CompletionStatus::kSuccess;
    uint32_t value = 0;
    bool ok() const { return !timed_out && status == CompletionStatus::kSuccess; }
  };
  struct Stats {
    uint64_t reads_served = 0;      // MRd answered with data
    uint64_t completions_sent = 0;  // CplD and Cpl
    uint64_t bytes_read = 0;        // host bytes the device read
    uint64_t writes = 0;            // MWr applied to memory
    uint64_t bytes_written = 0;
    uint64_t dropped_writes = 0;        // MWr to a fault range or beyond 48 bits
    uint64_t unsupported_requests = 0;  // MRd answered with UR (rules, range or fault)
    uint64_t completer_aborts = 0;      // MRd answered with CA (fault)
    uint64_t poisoned_reads = 0;        // MRd answered with poisoned CplDs (fault)
    uint64_t unanswered_reads = 0;      // MRd never answered (fault)
    uint64_t unexpected_completions = 0;
    uint64_t malformed = 0;
  };

  SC_HAS_PROCESS(RootComplex);
  RootComplex(sc_core::sc_module_name name, const RootComplexConfig& config);

  const RootComplexConfig& config() const { return config_; }
  model::HostMemory& memory() { return memory_; }
  const Stats& stats() const { return stats_; }

  // ---- driver API: from an SC_THREAD -------------------------------------------------------
  // Posted 1-DW MWr to BAR0 + offset; returns once it has been sent.
  void WriteRegister(uint32_t offset, uint32_t value);
  // 1-DW MRd to BAR0 + offset, waiting up to `timeout` for its completion.
  RegisterRead TryReadRegister(uint32_t offset, const sc_core::sc_time& timeout);
  // As TryReadRegister with the configured timeout; throws RegisterError naming the register
  // on a timeout or an error status.
  uint32_t ReadRegister(uint32_t offset);
  // Type 0 configuration read / write of the register at byte offset `offset` of the device,
  // waiting up to the register timeout for the completion; throw RegisterError naming the
  // register on a timeout or an error status.
  uint32_t ConfigRead(uint16_t offset);
  void ConfigWrite(uint16_t offset, uint32_t value, uint8_t first_be = 0xF);
  // The bring-up described above (once, before any BAR0 access); throws std::runtime_error if
  // the device answers unexpectedly.
  void Enumerate();
  // The oldest interrupt not yet taken, waiting up to `timeout` for one; nullopt on timeout.
  std::optional<Interrupt> WaitForInterrupt(const sc_core::sc_time& timeout);
  // Notified at every MSI.
  const sc_core::sc_event& interrupt_event() const { return interrupt_event_; }
  uint64_t interrupts_received() const { return interrupts_received_; }
  size_t interrupts_pending() const { return interrupts_.size(); }

 private:
  struct PendingRead {  // a device MRd waiting for memory
    Tlp request;
    sc_core::sc_time ready;
    CompletionStatus status;  // not success: answered with a Cpl of this status
    bool poisoned = false;    // CplDs with EP set
  };
  // The injected answer to a device MRd (a fault range's kind, or a drawn completion fault).
  std::optional<model::HostMemory::FaultKind> CompletionFault(const Tlp& tlp);
  struct RegisterSlot {  // a register read or configuration request waiting for its completion
    bool busy = false;
    bool completed = false;
    bool expect_data = true;  // a read (CplD of one DW); a configuration write: a Cpl
    CompletionStatus status = CompletionStatus::kSuccess;
    uint32_t value = 0;
    sc_core::sc_event done;
  };

  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  void OnWrite(const Tlp& tlp);
  void OnRead(const Tlp& tlp);
  void OnCompletion(const Tlp& tlp);
  void CompleterThread();
  // b_transport on tx and wait for the annotated delay.
  void Send(const Tlp& tlp);
  // Sends a non-posted request (its tag replaced by a free one) and waits up to `timeout` for
  // its completion.
  RegisterRead Transact(Tlp request, const sc_core::sc_time& timeout);
  // Transact with the register timeout; throws RegisterError naming `what` unless it succeeds.
  uint32_t TransactOrThrow(const Tlp& request, const std::string& what);

  RootComplexConfig config_;
  model::HostMemory memory_;
  std::deque<PendingRead> reads_;
  sc_core::sc_event reads_event_;
  std::array<RegisterSlot, 256> slots_;  // by tag
  uint8_t next_tag_ = 0;
  sc_core::sc_event slot_free_event_;
  std::deque<Interrupt> interrupts_;
  uint64_t interrupts_received_ = 0;
  sc_core::sc_event interrupt_event_;
  Stats stats_;
  std::mt19937_64 fault_rng_;
};

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_ROOT_COMPLEX_H_
