// The device the rtl backend simulates, for the parts of the tool that must know it without
// building it (`tpu info`, the network checks before a run): Verilated configuration 1 of
// testbench/host_if/CMakeLists.txt, `tpu_add_top_model(1 16 4096 1024 4194304 64 256 256 512 32
// 65536 64)`, at the system model's default clock. The rtl backend compares the model it builds
// with these figures and refuses to run if they differ, so the two cannot drift apart unseen.
#ifndef TPU_HOST_DRIVER_CLI_RTL_DEVICE_CONFIG_H_
#define TPU_HOST_DRIVER_CLI_RTL_DEVICE_CONFIG_H_

#include <cstdint>

#include "isa/isa_gen.h"

namespace tpu::cli {

struct RtlDeviceConfig {
  isa::DeviceLimits limits;
  int64_t dram_width_bits = 0;   // weight-DRAM read beat
  int64_t max_payload = 0;       // PCIe MPS, bytes
  int64_t max_read_request = 0;  // PCIe MRRS, bytes
  int64_t dma_tags = 0;          // DMA reads outstanding
  double clock_mhz = 0;          // sys::SystemConfig::clock_mhz
};

inline RtlDeviceConfig RtlDevice() {
  RtlDeviceConfig c;
  c.limits.n = 16;
  c.limits.ub_rows = 4096;
  c.limits.acc_rows = 1024;
  c.limits.dram_bytes = int64_t{4} << 20;
  c.limits.param_sets = 64;
  c.dram_width_bits = 256;
  c.max_payload = 256;
  c.max_read_request = 512;
  c.dma_tags = 32;
  c.clock_mhz = 700.0;
  return c;
}

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_RTL_DEVICE_CONFIG_H_
