// The `rtl` backend of the layer commands: the layer lowered by the runtime
// (runtime::LowerDense), run by the host driver (device::Device) on the Verilated device inside
// the SystemC system model (testbench/system) over the modeled PCIe link, with the figures the
// run measured (cycles, stalls, PCIe bytes and bandwidth, simulated time).
//
// SystemC elaborates once per process, so a process makes at most one RtlBackend (a second
// one throws std::logic_error); the backend itself runs any number of layers.
#ifndef TPU_HOST_DRIVER_CLI_RTL_BACKEND_H_
#define TPU_HOST_DRIVER_CLI_RTL_BACKEND_H_

#include <memory>

#include "layer_backend.h"

namespace tpu::cli {

// The device the rtl backend simulates: N = 16, 4096 UB rows, 1024 accumulator rows, 4 MiB of
// weight DRAM, 64 parameter sets, 256-bit DRAM beats, MPS 256, MRRS 512, at 700 MHz.
std::unique_ptr<LayerBackend> MakeRtlBackend(const BackendOptions& options);

// MakeBackend with the rtl backend available (what the `tpu` tool uses).
std::unique_ptr<LayerBackend> MakeBackendWithRtl(const std::string& name,
                                                 const BackendOptions& options);

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_RTL_BACKEND_H_
