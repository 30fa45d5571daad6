// The simulator a program links to run the host driver on the RTL: the system model
// (sc_models: PCIe link, root complex with host memory, weight DRAM) around the Verilated
// tpu_top of a built device configuration (testbench/host_if/built_devices.h: the default
// device of isa/devices.json unless the options name another), handed to the driver as a
// device::Platform. A program picks a simulated or a real device at link time, in its
// composition root (host_driver/cli/tpu_main.cpp for `tpu`); the driver above only ever sees
// the Platform and its DeviceBus.
//
// SystemC elaborates once per process: MakeSimulator may be called once (a second call throws
// std::logic_error); the platform then runs any number of jobs.
#ifndef TPU_TESTBENCH_SIMULATOR_SIMULATOR_H_
#define TPU_TESTBENCH_SIMULATOR_SIMULATOR_H_

#include <memory>
#include <string>

#include "common/harness_options.h"
#include "device/pcie_faults.h"
#include "device/pcie_link.h"
#include "device/platform.h"

namespace tpu::tb {

struct SimulatorOptions {
  // The device configuration (isa/devices.json) by name; "" = the list's default. A name the
  // list does not have, or a configuration this build did not verilate (TPU_BUILD_DEVICES),
  // makes MakeSimulator throw std::invalid_argument before anything is elaborated.
  std::string device;
  device::PcieLink link;  // generation and width the link model runs at (default gen3x16)
  HarnessOptions trace;   // the device's FST waveform, if any
  device::PcieFaults faults;  // injected on the link (docs/pcie_link.md section 8); none by default
};

std::unique_ptr<device::Platform> MakeSimulator(const SimulatorOptions& options);

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_SIMULATOR_SIMULATOR_H_
