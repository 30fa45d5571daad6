#include "sc_models/model_device/timing_link.h"

#include <algorithm>

#include "sc_models/pcie/pcie_link_config.h"

namespace tpu::sc {
namespace {

// The system model's host side (sys::SystemConfig, PcieLinkConfig defaults).
constexpr double kHostMemoryLatencyNs = 100.0;
// Cycles the device adds to a read's round trip: MRd formed and sent, completion received,
// checked and handed out of the completion buffer (docs/host_if.md: a beat is on rsp_* two
// cycles after it arrived), measured against the RTL (docs/model_calibration.md).
constexpr double kDeviceReadCycles = 12.0;

}  // namespace

HostTiming HostTimingFor(const devices::DeviceConfig& device, const device::PcieLink& link) {
  PcieLinkConfig config = PcieLinkConfig::For(link);
  config.max_payload = static_cast<uint32_t>(device.max_payload);
  config.max_read_request = static_cast<uint32_t>(device.max_read_request);
  const LinkTiming timing(config);
  const double cycles_per_ns = device.clock_mhz / 1000.0;
  HostTiming h;
  h.max_payload = device.max_payload;
  h.max_read_request = device.max_read_request;
  // The host interface's TLP streams: one beat of tlp_width_bits a cycle, one header beat per
  // TLP.
  h.beat_bytes = device.tlp_width_bits / 8;
  const double beat = static_cast<double>(h.beat_bytes);
  const double mps = static_cast<double>(device.max_payload);
  const double round_trip_ns = 2 * config.latency_ns + kHostMemoryLatencyNs +
                               timing.tlp_time_ns(12, 0) +
                               timing.tlp_time_ns(12, static_cast<uint32_t>(mps));
  h.read_latency = round_trip_ns * cycles_per_ns + kDeviceReadCycles;
  const double stream = beat * mps / (mps + beat);
  const double link_bytes = timing.payload_limit_bytes_per_s(12) / (device.clock_mhz * 1e6);
  h.read_bytes_per_cycle = std::min(stream, link_bytes);
  h.write_bytes_per_cycle =
      std::min(stream, timing.payload_limit_bytes_per_s(16) / (device.clock_mhz * 1e6));
  return h;
}

}  // namespace tpu::sc
