// The host side of the timing model (timing_model.h): what a device of a configuration sees of
// the PCIe link and the host memory in the system model (sc_models/system: Gen G x L, MPS and
// MRRS of the configuration, 200 ns one-way link latency, 100 ns host-memory latency): the round
// trip of a read, and the payload bytes per device cycle each direction sustains. Cycles are
// device clock cycles.
#ifndef TPU_SC_MODELS_MODEL_DEVICE_TIMING_LINK_H_
#define TPU_SC_MODELS_MODEL_DEVICE_TIMING_LINK_H_

#include <cstdint>

#include "device/pcie_link.h"
#include "devices/devices_gen.h"

namespace tpu::sc {

struct HostTiming {
  // MRd leaving the device -> its first completion beat usable by the client (the core or the
  // ring), cycles.
  double read_latency = 0;
  // Payload bytes per cycle the device receives (completions; the receive stream of
  // beat_bytes a cycle with one header beat per completion, or the link) and sends (the core's
  // write beats, the transmit stream with a header beat per MWr, or the link).
  double read_bytes_per_cycle = 0;
  double write_bytes_per_cycle = 0;
  int64_t max_read_request = 512;  // bytes of one MRd
  int64_t max_payload = 256;       // bytes of one CplD / MWr
  int64_t beat_bytes = 16;         // the TLP streams' and DMA engines' beat (tlp_width_bits / 8)
};

// The figures for `device` on `link` as the system model runs it.
HostTiming HostTimingFor(const devices::DeviceConfig& device, const device::PcieLink& link);

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_MODEL_DEVICE_TIMING_LINK_H_
