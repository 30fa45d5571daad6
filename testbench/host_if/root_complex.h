// A cycle model of the PCIe root complex seen from the device's TLP streams (docs/host_if.md
// section 1), free of Verilator: host memory behind it (tpu::model::HostMemory), BAR0 register
// reads and writes issued by the host, and completions for the device's memory reads.
//
// Enumeration: unless RcConfig::enumerate is false, the first TLPs the root complex sends
// enumerate the device as a host does (Enumerate: sc::EnumerationSteps, the system model's
// sequence): read its IDs, size BAR0 (write all ones, read the mask back) and assign it, set
// Device Control's MPS and MRRS to this configuration's, then set Memory Space and Bus Master
// Enable in Command; a value read that is not the expected one is a violation. Its
// configuration writes target sc::kDeviceId, which the device takes as its requester ID.
// Without Memory Space Enable (as of the last configuration write queued) a 1-DW read of BAR0
// must complete UR.
//
// Every TLP the device sends is checked (violations() lists what is wrong): fmt/type, reserved
// header bits, requester/completer ID (the ID of the device's last configuration write), 3-DW header below 4 GiB and 4-DW at or above, length
// against MPS (writes) and MRRS (reads), no 4 KiB crossing, byte-enable rules, tags below the
// device's tag count and not reused while outstanding, completions matching a register read.
//
// Memory writes land in host memory in arrival order (an MWr to the MSI address is recorded as
// an MSI instead); a memory read takes its data when it arrives, so a read the device sends
// before an earlier write returns stale data. Its completions are split at the 64-byte read
// completion boundary (optionally merged into random multiples of it up to MPS), sent after a
// random latency, and, optionally, interleaved across tags in random order (in address order
// within a tag). A read touching a fault range of the host memory gets its completions up to
// the failing 64-byte piece, then a completion with status CA or UR (or, optionally, every
// failing piece as a CplD with EP set and the rest as usual); a read touching a
// silent range is never answered (the device must time out). Received beats may come with
// random gaps; tx_ready may be withheld at random.
//
// TLPs are the one type of the simulation models (sc_models/pcie/tlp.h: sc::Tlp with its beat
// codec); the request rules (sc::CheckRequest) and the byte count / lower address of a
// register read's completion (sc::RequestByteCount, sc::RequestFirstByte) are the shared ones.
// This is the RTL tests' stimulus model, driving the Verilated TLP streams beat by beat; the
// system model's root complex (sc_models/root_complex.h) is its transaction-level counterpart
// on the modeled PCIe link, with the link's timing instead of random gaps and without the
// reordering, completion merging and injection of malformed traffic a stimulus model needs.
#ifndef TPU_TESTBENCH_HOST_IF_ROOT_COMPLEX_H_
#define TPU_TESTBENCH_HOST_IF_ROOT_COMPLEX_H_

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "model/host_memory.h"
#include "sc_models/pcie/config_space.h"
#include "sc_models/pcie/tlp.h"

namespace tpu::tb {

struct RcConfig {
  int max_payload = 256;       // MPS, bytes
  int max_read_req = 512;      // MRRS, bytes
  int num_tags = 16;           // the device uses tags [0, num_tags)
  int rcb = 64;                // read completion boundary, bytes
  uint64_t bar0 = 0xfe000000;  // BAR0 base address (register accesses use 3-DW headers)
  int min_latency = 8;         // cycles from a read request to its first completion
  int max_latency = 8;
  bool merge_completions = false;  // merge RCB pieces into random multiples up to MPS
  bool reorder = false;            // send due completions of different tags in random order
  double rx_gap = 0.0;             // probability of a cycle without a beat offered
  double tx_ready = 1.0;           // probability of tx_ready in a cycle
  sc::CompletionStatus fault_status = sc::CompletionStatus::kCompleterAbort;
  bool fault_poisoned = false;  // a failing piece comes as a poisoned CplD (EP), not a Cpl
  uint64_t seed = 1;
  bool enumerate = true;  // enumerate the device before any other TLP (see above)
  int tlp_width_bits = 128;  // the device's TLP streams: beats of 128, 256 or 512 bits
};


class RootComplex {
 public:
  RootComplex(model::HostMemory* memory, const RcConfig& config);

  const RcConfig& config() const { return config_; }
  int beat_dws() const { return config_.tlp_width_bits / 32; }  // DWs per stream beat
  void set_config(const RcConfig& config);  // timing and behaviour; keeps queued traffic
  model::HostMemory& memory() { return *memory_; }

  // MWr TLPs to this address are MSIs: recorded, not written to memory.
  void set_msi_address(uint64_t addr) { msi_addr_ = addr; }
  // Reads touching [addr, addr + length) are never answered.
  void AddSilentRange(uint64_t addr, uint64_t length) { silent_.push_back({addr, length}); }
  void ClearSilentRanges() { silent_.clear(); }
  // The device's reads a silent range left unanswered, in arrival order (a test answers them
  // late with Inject).
  const std::vector<sc::Tlp>& unanswered() const { return unanswered_; }
  bool Silent(uint64_t addr, uint64_t length) const;

  // Host side: BAR0 accesses, sent in order after the completions already due.
  void WriteReg(uint32_t offset, uint32_t value, uint8_t be = 0xf);
  int ReadReg(uint32_t offset, uint8_t be = 0xf);           // returns a handle
  std::optional<uint32_t> ReadResult(int handle) const;     // the value once completed
  // Any MRd (its tag replaced by a host tag), like ReadReg: a 1-DW read of BAR0 must complete
  // with its data, any other with a Cpl whose byte count and lower address are the request's
  // (sc::MakeErrorCompletion's); the completion's status is kept.
  int Request(sc::Tlp read);
  // A non-posted request sc::Tlp cannot hold (locked read, I/O, configuration, atomics) as
  // raw beats, its tag (DW1 bits 15:8) replaced by a host tag: it must complete without data,
  // byte count 4, lower address 0 (for an MRdLk: one full DW at a 128-byte aligned address).
  int RequestBeats(std::vector<sc::TlpBeat> beats);
  // Type 0 configuration requests to sc::kDeviceId (handles as for Request; a read's value by
  // ReadResult, a write completes without data).
  int ConfigRead(uint16_t offset);
  int ConfigWrite(uint16_t offset, uint32_t value, uint8_t be = 0xf);
  // Queues the enumeration described above (the constructor does unless config.enumerate is
  // false).
  void Enumerate();
  uint16_t device_id() const { return device_id_; }
  // The status of a request's completion, once it came.
  std::optional<sc::CompletionStatus> RequestStatus(int handle) const;
  void Inject(const sc::Tlp& t);                            // any TLP, queued like a host access
  void InjectBeats(const std::vector<sc::TlpBeat>& beats);  // raw beats (malformed, other TLPs)

  // One cycle: BeginCycle draws this cycle's gaps and readiness; the harness drives rx_* and
  // tx_ready into the device, evaluates it, and reports the handshakes.
  void BeginCycle(uint64_t cycle);
  bool rx_valid() const { return rx_valid_; }
  const sc::TlpBeat& rx_beat() const { return cur_[pos_]; }
  void OnRxTaken();
  bool tx_ready() const { return tx_ready_; }
  void OnTxBeat(const sc::TlpBeat& beat);

  struct Msi {
    uint64_t cycle;
    uint32_t data;
    uint64_t writes_before;  // MWr TLPs (not MSIs) received before it
  };
  const std::vector<Msi>& msis() const { return msis_; }
  const std::vector<std::string>& violations() const { return violations_; }
  bool idle() const;  // nothing queued or being sent, no read of the device outstanding
  size_t reads_outstanding() const;

  struct Stats {
    uint64_t mrd = 0, mwr = 0, cpl_sent = 0, reg_cpl = 0;
    uint64_t bytes_requested = 0, bytes_written = 0;
    uint64_t tx_beats = 0, rx_beats = 0;
  };
  const Stats& stats() const { return stats_; }

 private:
  struct Range {
    uint64_t addr, length;
  };
  struct Pending {  // a completion waiting to be sent
    uint64_t due;
    uint64_t seq;
    std::vector<sc::TlpBeat> beats;
  };

  void Violation(const std::string& what);
  void OnDeviceTlp(const sc::Tlp& t);
  void OnRead(const sc::Tlp& t);
  void OnWrite(const sc::Tlp& t);
  void OnCompletion(const sc::Tlp& t);
  void CheckRequest(const sc::Tlp& t);
  bool PickNext();
  bool Draw(double p);

  model::HostMemory* memory_;
  RcConfig config_;
  std::mt19937_64 rng_;
  uint64_t cycle_ = 0, seq_ = 0;
  std::optional<uint64_t> msi_addr_;
  std::vector<Range> silent_;
  std::vector<sc::Tlp> unanswered_;

  std::deque<std::vector<sc::TlpBeat>> host_queue_;  // register accesses, injections
  std::map<int, std::deque<Pending>> cpl_queue_;     // per device tag, in address order
  std::vector<bool> tag_busy_;                       // device tags with completions owed
  std::vector<sc::TlpBeat> cur_;                     // the TLP being sent on rx
  size_t pos_ = 0;
  bool rx_valid_ = false, tx_ready_ = true;
  int cur_tag_ = -1;  // device tag of cur_ (a completion)

  std::vector<sc::TlpBeat> tx_beats_;  // TLP being received from the device
  struct RegRead {
    bool register_read = false;  // a 1-DW MRd of BAR0: completes with its data if successful
    bool config_read = false;    // a CfgRd0: completes with its data
    bool config_write = false;   // a CfgWr0: completes without data
    uint16_t completer = 0;      // the completer ID its completion must carry
    std::optional<sc::ConfigStep> step;  // an enumeration read: its value is checked
    uint32_t byte_count = 4;     // what its completion must carry
    uint8_t lower_address = 0;
    std::optional<uint32_t> value;
    std::optional<sc::CompletionStatus> status;
  };
  int NextHostTag();
  std::vector<RegRead> reg_reads_;
  std::map<int, int> reg_tag_;  // host tag -> handle
  int next_host_tag_ = 0;
  // The device's ID and Memory Space Enable as of the last configuration write queued.
  uint16_t device_id_ = 0;
  bool memory_enabled_ = false;

  std::vector<Msi> msis_;
  std::vector<std::string> violations_;
  Stats stats_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_ROOT_COMPLEX_H_
