// Configuration of the modeled PCIe link (docs/pcie_link.md) and its timing calculator, in plain
// C++ so that the formulas can be used and tested without SystemC: the generation and width,
// the per-TLP overhead, the DLLP share, the latency and the flow-control credits each receiver
// advertises; the bytes a TLP puts on the wire, the time of a transfer as a sequence of
// max-payload TLPs and the link's payload limit.
#ifndef TPU_SC_MODELS_PCIE_PCIE_LINK_CONFIG_H_
#define TPU_SC_MODELS_PCIE_PCIE_LINK_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "device/pcie_faults.h"
#include "device/pcie_link.h"

namespace tpu::sc {

// Bytes of one DLLP on the wire (ACK/NAK, UpdateFC): 4 bytes of DLLP, a 2-byte CRC and 2 bytes
// of framing (SDP + END symbols at Gen1/2, the 2-byte SDP token from Gen3).
inline constexpr uint32_t kDllpWireBytes = 8;
// A flow-control data credit covers 16 bytes (4 DWs) of payload.
inline constexpr uint32_t kCreditDataBytes = 16;

// Flow-control credits a receiver advertises, per class (PCIe's PH/PD, NPH/NPD, CplH/CplD).
// Header credits count TLPs, data credits count 16-byte units of payload; 0 means infinite,
// as in PCIe (root ports and endpoints advertise infinite completion credits).
struct FlowControlCredits {
  uint32_t posted_header = 64;
  uint32_t posted_data = 1024;  // 16 KiB
  uint32_t non_posted_header = 64;
  uint32_t non_posted_data = 64;
  uint32_t completion_header = 0;
  uint32_t completion_data = 0;
};

struct PcieLinkConfig {
  int generation = 3;               // 1..5: 2.5, 5, 8, 16, 32 GT/s per lane
  int lanes = 16;                   // 1, 2, 4, 8 or 16
  uint32_t max_payload = 256;       // MPS, bytes: 128 .. 4096, a power of two
  uint32_t max_read_request = 512;  // MRRS, bytes: 128 .. 4096, a power of two
  double latency_ns = 200.0;        // one way: last byte of a TLP sent -> TLP delivered
  bool ecrc = false;                // every TLP carries a 4-byte ECRC (TD = 1)
  // One DLLP (ACK or UpdateFC, kDllpWireBytes) per this many TLPs, charged to the direction that
  // carries the TLPs as kDllpWireBytes / tlps_per_dllp extra bytes per TLP; 0: no DLLP charge.
  uint32_t tlps_per_dllp = 4;
  FlowControlCredits device_credits;  // advertised by the device: limits host -> device TLPs
  FlowControlCredits host_credits;    // advertised by the root port: limits device -> host TLPs
  double credit_update_ns = 200.0;    // receiver consumes a TLP -> its credits usable again
  // The data link layer (docs/pcie_link.md section 8): a retraining after a REPLAY_NUM rollover
  // takes this long, during which neither direction sends (Recovery without equalization).
  double retrain_ns = 2000.0;
  device::PcieFaults faults;  // injected in both directions (none by default)

  // Throws std::invalid_argument naming the field and the allowed values.
  void Validate() const;
  // "gen3x16".
  std::string Name() const;
  // The defaults above with the generation and width of `link`.
  static PcieLinkConfig For(const device::PcieLink& link);
  // The same for a link name such as "gen4x8", parsed by device::ParsePcieLink (the one parser
  // of link names; std::invalid_argument saying what is expected).
  static PcieLinkConfig FromName(const std::string& name);
};

// Per-lane transfer rate in GT/s and line-code efficiency of a generation (1..5).
double TransferRateGts(int generation);
double EncodingEfficiency(int generation);  // 8/10 at Gen1/2, 128/130 from Gen3

// Bytes of per-TLP overhead besides the header, by field. Gen1/2: STP and END symbols (1 + 1),
// the 2-byte sequence number, the 4-byte LCRC. Gen3+: the 4-byte STP token, whose last two
// bytes carry the sequence number (there is no END), and the LCRC. Both come to 8 bytes.
uint32_t FramingBytes(int generation);         // 2 (Gen1/2) or 4 (Gen3+, the STP token)
uint32_t SequenceNumberBytes(int generation);  // 2 (Gen1/2) or 0 (Gen3+: inside the STP token)
inline constexpr uint32_t kLcrcBytes = 4;
inline constexpr uint32_t kEcrcBytes = 4;

// The timing of one configured link (both directions are alike). Times in nanoseconds.
class LinkTiming {
 public:
  // Validates the configuration (std::invalid_argument).
  explicit LinkTiming(const PcieLinkConfig& config);

  const PcieLinkConfig& config() const { return config_; }

  // Symbols per second on all lanes / 8: 16 GB/s at gen3x16.
  double line_rate_bytes_per_s() const;
  // After the line code: the bytes per second the data link layer can put on the wire
  // (15.754 GB/s at gen3x16). "Raw link rate" in the reports.
  double raw_rate_bytes_per_s() const;
  double byte_time_ns() const { return 1e9 / raw_rate_bytes_per_s(); }

  // Overhead of one TLP with a header of header_bytes (12 or 16): framing, sequence number,
  // header, ECRC if configured, LCRC.
  uint32_t tlp_overhead_bytes(uint32_t header_bytes) const;
  // Bytes of one TLP on the wire; payload_bytes is a whole number of DWs.
  uint32_t tlp_wire_bytes(uint32_t header_bytes, uint32_t payload_bytes) const;
  // The DLLP share charged to every TLP: kDllpWireBytes / tlps_per_dllp (0 if none).
  double dllp_bytes_per_tlp() const;
  // Time one TLP occupies its direction: (wire bytes + DLLP share) x byte time.
  double tlp_time_ns(uint32_t header_bytes, uint32_t payload_bytes) const;

  // Payload bytes (whole DWs) of the TLPs that carry `bytes` from an address aligned to the
  // max payload size: full max-payload TLPs, then the rest rounded up to DWs.
  std::vector<uint32_t> SplitPayload(uint64_t bytes) const;
  // Time to serialize those TLPs back to back (no latency).
  double serialization_time_ns(uint64_t bytes, uint32_t header_bytes = 12) const;
  // Time from the first TLP's first byte sent to the last TLP delivered: serialization plus
  // the one-way latency.
  double transfer_time_ns(uint64_t bytes, uint32_t header_bytes = 12) const;

  // MPS / (MPS + overhead + DLLP share): the fraction of the raw rate that is payload.
  double payload_efficiency(uint32_t header_bytes = 12) const;
  // raw rate x payload efficiency: the most payload per second a direction can carry.
  double payload_limit_bytes_per_s(uint32_t header_bytes = 12) const;

 private:
  PcieLinkConfig config_;
};

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_PCIE_PCIE_LINK_CONFIG_H_
