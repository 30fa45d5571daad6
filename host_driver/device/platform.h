// A machine with a TPU in it, as the runtime sees it: it knows the device's limits before
// anything runs, and it hands a job the device's bus for as long as the job runs. The system
// model (sc_models/system/tpu_system.h) runs each job in a SystemC thread while it simulates;
// a machine with a real card would call the job with the card's bus. Which machine a program
// uses is decided where the program is composed (host_driver/cli/tpu_main.cpp for `tpu`).
#ifndef TPU_DEVICE_PLATFORM_H_
#define TPU_DEVICE_PLATFORM_H_

#include <functional>

#include "device/device_bus.h"
#include "isa/isa_gen.h"

namespace tpu::device {

class Platform {
 public:
  virtual ~Platform() = default;

  // The device's limits (N, UB and accumulator rows, weight DRAM, parameter sets), as its
  // capability registers will report them.
  virtual isa::DeviceLimits limits() const = 0;

  // Runs `job` with the device's bus and returns when it is done; rethrows what the job throws.
  // The device keeps its memories' contents from one job to the next.
  virtual void Run(const std::function<void(DeviceBus&)>& job) = 0;
};

}  // namespace tpu::device

#endif  // TPU_DEVICE_PLATFORM_H_
