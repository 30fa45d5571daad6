#include "sc_models/pcie/pcie_link_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace tpu::sc {
namespace {

constexpr int kMaxGeneration = 5;

bool IsPowerOfTwo(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

bool ValidLanes(int lanes) {
  return lanes == 1 || lanes == 2 || lanes == 4 || lanes == 8 || lanes == 16;
}

void CheckGeneration(int generation) {
  if (generation < 1 || generation > kMaxGeneration) {
    throw std::invalid_argument("PCIe generation " + std::to_string(generation) +
                                " is not modeled (expected 1..5)");
  }
}

void CheckSize(const char* what, uint32_t bytes) {
  if (!IsPowerOfTwo(bytes) || bytes < 128 || bytes > 4096) {
    throw std::invalid_argument(std::string(what) + " of " + std::to_string(bytes) +
                                " bytes is not allowed (expected 128, 256, ..., 4096)");
  }
}

void CheckTime(const char* what, double ns) {
  if (!std::isfinite(ns) || ns < 0.0) {
    throw std::invalid_argument(std::string(what) + " must be a finite time >= 0 ns, not " +
                                std::to_string(ns));
  }
}

// A finite data-credit limit must hold at least one max-payload TLP, or such a TLP would never
// be sent.
void CheckCredits(const char* receiver, const FlowControlCredits& c, uint32_t max_payload) {
  const uint32_t need = max_payload / kCreditDataBytes;
  auto check = [&](const char* cls, uint32_t data) {
    if (data != 0 && data < need) {
      throw std::invalid_argument(
          std::string(receiver) + " " + cls + " data credits (" + std::to_string(data) +
          ") cannot hold one " + std::to_string(max_payload) +
          "-byte TLP (need >= " + std::to_string(need) + " or 0 = infinite)");
    }
  };
  check("posted", c.posted_data);
  check("completion", c.completion_data);
}

}  // namespace

double TransferRateGts(int generation) {
  CheckGeneration(generation);
  return device::PcieLink{generation, 1}.GigaTransfersPerLane();
}

double EncodingEfficiency(int generation) {
  CheckGeneration(generation);
  return device::PcieLink{generation, 1}.EncodingEfficiency();
}

uint32_t FramingBytes(int generation) {
  CheckGeneration(generation);
  return generation <= 2 ? 2 : 4;
}

uint32_t SequenceNumberBytes(int generation) {
  CheckGeneration(generation);
  return generation <= 2 ? 2 : 0;
}

void PcieLinkConfig::Validate() const {
  CheckGeneration(generation);
  if (!ValidLanes(lanes)) {
    throw std::invalid_argument("PCIe link width x" + std::to_string(lanes) +
                                " is not modeled (expected 1, 2, 4, 8 or 16)");
  }
  CheckSize("max payload size", max_payload);
  CheckSize("max read request size", max_read_request);
  CheckTime("link latency", latency_ns);
  CheckTime("credit update latency", credit_update_ns);
  CheckTime("retraining time", retrain_ns);
  for (const auto& [what, p] : {std::pair<const char*, double>{"tlp_corrupt", faults.tlp_corrupt},
                                {"tlp_drop", faults.tlp_drop},
                                {"dllp_corrupt", faults.dllp_corrupt},
                                {"dllp_drop", faults.dllp_drop}}) {
    if (!(p >= 0.0 && p <= 0.5)) {
      throw std::invalid_argument(std::string("fault probability ") + what + " = " +
                                  std::to_string(p) + " is not in 0 .. 0.5");
    }
  }
  CheckCredits("device", device_credits, max_payload);
  CheckCredits("host", host_credits, max_payload);
}

std::string PcieLinkConfig::Name() const { return device::PcieLink{generation, lanes}.ToString(); }

PcieLinkConfig PcieLinkConfig::For(const device::PcieLink& link) {
  PcieLinkConfig c;
  c.generation = link.generation;
  c.lanes = link.lanes;
  return c;
}

PcieLinkConfig PcieLinkConfig::FromName(const std::string& name) {
  return For(device::ParsePcieLink(name));
}

LinkTiming::LinkTiming(const PcieLinkConfig& config) : config_(config) { config_.Validate(); }

double LinkTiming::line_rate_bytes_per_s() const {
  return TransferRateGts(config_.generation) * 1e9 * config_.lanes / 8.0;
}

double LinkTiming::raw_rate_bytes_per_s() const {
  return line_rate_bytes_per_s() * EncodingEfficiency(config_.generation);
}

uint32_t LinkTiming::tlp_overhead_bytes(uint32_t header_bytes) const {
  return FramingBytes(config_.generation) + SequenceNumberBytes(config_.generation) + header_bytes +
         (config_.ecrc ? kEcrcBytes : 0) + kLcrcBytes;
}

uint32_t LinkTiming::tlp_wire_bytes(uint32_t header_bytes, uint32_t payload_bytes) const {
  return tlp_overhead_bytes(header_bytes) + payload_bytes;
}

double LinkTiming::dllp_bytes_per_tlp() const {
  return config_.tlps_per_dllp == 0 ? 0.0
                                    : static_cast<double>(kDllpWireBytes) / config_.tlps_per_dllp;
}

double LinkTiming::tlp_time_ns(uint32_t header_bytes, uint32_t payload_bytes) const {
  return (tlp_wire_bytes(header_bytes, payload_bytes) + dllp_bytes_per_tlp()) * byte_time_ns();
}

std::vector<uint32_t> LinkTiming::SplitPayload(uint64_t bytes) const {
  std::vector<uint32_t> tlps;
  while (bytes > 0) {
    const uint64_t chunk = std::min<uint64_t>(bytes, config_.max_payload);
    tlps.push_back(static_cast<uint32_t>((chunk + 3) / 4 * 4));
    bytes -= chunk;
  }
  return tlps;
}

double LinkTiming::serialization_time_ns(uint64_t bytes, uint32_t header_bytes) const {
  double t = 0.0;
  for (uint32_t payload : SplitPayload(bytes)) t += tlp_time_ns(header_bytes, payload);
  return t;
}

double LinkTiming::transfer_time_ns(uint64_t bytes, uint32_t header_bytes) const {
  return serialization_time_ns(bytes, header_bytes) + config_.latency_ns;
}

double LinkTiming::payload_efficiency(uint32_t header_bytes) const {
  const double mps = config_.max_payload;
  return mps / (mps + tlp_overhead_bytes(header_bytes) + dllp_bytes_per_tlp());
}

double LinkTiming::payload_limit_bytes_per_s(uint32_t header_bytes) const {
  return raw_rate_bytes_per_s() * payload_efficiency(header_bytes);
}

}  // namespace tpu::sc
