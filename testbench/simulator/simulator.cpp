#include "simulator/simulator.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "devices/devices_gen.h"
#include "host_if/built_devices.h"
#include "sc_models/system/tpu_system.h"

namespace tpu::tb {
namespace {

// The Verilated model must be the device the list describes (`tpu info` and the network
// checks rely on it): a stale build would otherwise run another device than it reports.
void CheckAgainstConfig(const sys::TopConfig& built, const devices::DeviceConfig& want) {
  const isa::DeviceLimits& l = built.limits;
  if (l.n != want.limits.n || l.ub_rows != want.limits.ub_rows ||
      l.acc_rows != want.limits.acc_rows || l.dram_bytes != want.limits.dram_bytes ||
      l.param_sets != want.limits.param_sets || built.dram_width != want.dram_width_bits ||
      built.max_payload != want.max_payload || built.max_read_req != want.max_read_request ||
      built.num_tags != want.dma_tags || built.tlp_width_bits != want.tlp_width_bits) {
    throw std::logic_error(std::string("the Verilated device differs from device ") + want.name +
                           " of isa/devices.json: rebuild (cmake --build build)");
  }
}

}  // namespace

std::unique_ptr<device::Platform> MakeSimulator(const SimulatorOptions& options) {
  // The device first: a bad name must not leave an elaborated system (or a waveform) behind.
  const devices::DeviceConfig& device =
      BuiltDevice(options.device.empty() ? devices::kDefaultDevice : options.device);
  static bool made = false;
  if (made) throw std::logic_error("the system model is elaborated once per process");
  made = true;
  std::unique_ptr<sys::TopModel> model = MakeBuiltTopModel(device, options.trace);
  CheckAgainstConfig(model->config(), device);
  sys::SystemConfig config;
  config.link = sc::PcieLinkConfig::For(options.link);
  config.link.max_payload = static_cast<uint32_t>(device.max_payload);
  config.link.max_read_request = static_cast<uint32_t>(device.max_read_request);
  config.link.faults = options.faults;
  config.clock_mhz = device.clock_mhz;
  return std::make_unique<sys::TpuSystem>(config, std::move(model));
}

}  // namespace tpu::tb
