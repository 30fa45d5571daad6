// The registry of the device configurations this build verilated: the cache option
// TPU_BUILD_DEVICES (cmake/TpuDevices.cmake, README.md) picks which configurations of
// isa/devices.json get a tpu_top model; CMake generates the registry from that choice, so a
// configuration added to the list is offered here without a code change.
//
// Two libraries: tpu_built_devices (BuiltDevices, IsBuilt, BuiltDevice: which devices are
// built, no Verilated code; the model-level tests iterate over it) and vtpu_top_built
// (MakeBuiltTopModel: tb::MakeTopModel<K> of every built K; it links every built model).
#ifndef TPU_TESTBENCH_HOST_IF_BUILT_DEVICES_H_
#define TPU_TESTBENCH_HOST_IF_BUILT_DEVICES_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/harness_options.h"
#include "devices/devices_gen.h"
#include "sc_models/system/top_model.h"

namespace tpu::tb {

// Every built configuration, by index.
const std::vector<const devices::DeviceConfig*>& BuiltDevices();

bool IsBuilt(const devices::DeviceConfig& device);

// The configuration named `name` if this build verilated it. Throws std::invalid_argument
// "no device 'x'; devices: n16_small, n16, ..." for a name the list does not have, and for a
// configuration not built a message that says so and gives the command that builds it
// (cmake -B <build> -DTPU_BUILD_DEVICES=...).
const devices::DeviceConfig& BuiltDevice(std::string_view name);

// Why `device` cannot run here (not built) and the command that builds it.
std::string NotBuiltMessage(const devices::DeviceConfig& device);

// tb::MakeTopModel<device.index> (testbench/host_if/top_model.h); throws std::invalid_argument
// (NotBuiltMessage) for a configuration this build did not verilate.
std::unique_ptr<sys::TopModel> MakeBuiltTopModel(const devices::DeviceConfig& device,
                                                 const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_BUILT_DEVICES_H_
