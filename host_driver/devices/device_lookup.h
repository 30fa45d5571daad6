// Looking a device configuration up by the name a user gave (`tpu --device NAME`), with the
// message that lists the configurations when the name is not one of them.
#ifndef TPU_HOST_DRIVER_DEVICES_DEVICE_LOOKUP_H_
#define TPU_HOST_DRIVER_DEVICES_DEVICE_LOOKUP_H_

#include <stdexcept>
#include <string>
#include <string_view>

#include "devices/devices_gen.h"

namespace tpu::devices {

// "n16_small, n16, ...": every configuration's name, by index.
inline std::string DeviceNames() {
  std::string names;
  for (const DeviceConfig& d : kDevices) names += std::string(names.empty() ? "" : ", ") + d.name;
  return names;
}

// The configuration named `name`; throws std::invalid_argument
// "no device 'x'; devices: n16_small, n16, ..." if the list has none.
inline const DeviceConfig& DeviceNamed(std::string_view name) {
  const DeviceConfig* device = FindDevice(name);
  if (device == nullptr) {
    throw std::invalid_argument("no device '" + std::string(name) + "'; devices: " +
                                DeviceNames());
  }
  return *device;
}

}  // namespace tpu::devices

#endif  // TPU_HOST_DRIVER_DEVICES_DEVICE_LOOKUP_H_
