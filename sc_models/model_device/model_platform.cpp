#include "sc_models/model_device/model_platform.h"

#include "devices/device_lookup.h"
#include "devices/devices_gen.h"

namespace tpu::sc {

std::unique_ptr<ModelPlatform> MakeModelPlatform(const std::string& device,
                                                 const device::PcieLink& link) {
  const devices::DeviceConfig& config =
      devices::DeviceNamed(device.empty() ? devices::kDefaultDevice : device);
  return std::make_unique<ModelPlatform>(config, link);
}

}  // namespace tpu::sc
