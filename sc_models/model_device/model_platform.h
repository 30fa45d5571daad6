// The model device as a device::Platform (`--backend model`, composed in
// host_driver/cli/tpu_main.cpp): a machine whose device is the ModelDevice of a configuration of
// isa/devices.json, any of them (the model needs no Verilated build). Jobs run in the caller's
// thread; the device keeps its memories from one job to the next. The platform enumerates the
// device when it is made (ModelDevice::Enumerate: the host's bring-up, as the system model
// does before its first job), so device() is ready for BAR0 accesses and DMA.
#ifndef TPU_SC_MODELS_MODEL_DEVICE_MODEL_PLATFORM_H_
#define TPU_SC_MODELS_MODEL_DEVICE_MODEL_PLATFORM_H_

#include <functional>
#include <memory>
#include <string>

#include "device/pcie_link.h"
#include "device/platform.h"
#include "sc_models/model_device/model_device.h"

namespace tpu::sc {

class ModelPlatform : public device::Platform {
 public:
  ModelPlatform(const devices::DeviceConfig& device, const device::PcieLink& link)
      : device_(device, link) {
    device_.Enumerate();
  }

  isa::DeviceLimits limits() const override { return device_.config().limits; }
  void Run(const std::function<void(device::DeviceBus&)>& job) override { job(device_); }

  ModelDevice& device() { return device_; }

 private:
  ModelDevice device_;
};

// The platform of the configuration named `device` ("" = the list's default) on `link`.
// Throws std::invalid_argument naming the configurations when the list has no such name.
std::unique_ptr<ModelPlatform> MakeModelPlatform(const std::string& device,
                                                 const device::PcieLink& link = {});

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_MODEL_DEVICE_MODEL_PLATFORM_H_
