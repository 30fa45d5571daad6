// The runtime and device names every command uses, brought into tpu::cli so that commands read
// as before they moved out of the CLI (runtime/layer_backend.h, device/pcie_link.h).
#ifndef TPU_HOST_DRIVER_CLI_RUNTIME_NAMES_H_
#define TPU_HOST_DRIVER_CLI_RUNTIME_NAMES_H_

#include "device/pcie_link.h"
#include "runtime/layer_backend.h"

namespace tpu::cli {

using device::ParsePcieLink;
using device::PcieLink;
using runtime::BackendFactory;
using runtime::BackendOptions;
using runtime::kRtlUnavailable;
using runtime::LayerBackend;
using runtime::LayerResult;
using runtime::MakeBackend;
using runtime::RunStats;

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_RUNTIME_NAMES_H_
