#include "simulator/simulator.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "devices/devices_gen.h"
#include "host_if/top_model.h"
#include "sc_models/system/tpu_system.h"

namespace tpu::tb {
namespace {

// The device the simulator runs: the default of isa/devices.json, Verilated as vtpu_top_<index>.
constexpr const devices::DeviceConfig& kDevice = devices::DefaultDevice();

// The Verilated model must be the device the list describes (`tpu info` and the network
// checks rely on it): a stale build would otherwise run another device than it reports.
void CheckAgainstConfig(const TopConfig& built) {
  const devices::DeviceConfig& want = kDevice;
  const isa::DeviceLimits& l = built.limits;
  if (l.n != want.limits.n || l.ub_rows != want.limits.ub_rows ||
      l.acc_rows != want.limits.acc_rows || l.dram_bytes != want.limits.dram_bytes ||
      l.param_sets != want.limits.param_sets || built.dram_width != want.dram_width_bits ||
      built.max_payload != want.max_payload || built.max_read_req != want.max_read_request ||
      built.num_tags != want.dma_tags) {
    throw std::logic_error(std::string("the Verilated device differs from device ") + want.name +
                           " of isa/devices.json: rebuild (cmake --build build)");
  }
}

}  // namespace

std::unique_ptr<device::Platform> MakeSimulator(const SimulatorOptions& options) {
  static bool made = false;
  if (made) throw std::logic_error("the system model is elaborated once per process");
  made = true;
  std::unique_ptr<TopModel> model = MakeTopModel<kDevice.index>(options.trace);
  CheckAgainstConfig(model->config());
  sys::SystemConfig config;
  config.link = sc::PcieLinkConfig::For(options.link);
  config.clock_mhz = kDevice.clock_mhz;
  return std::make_unique<sys::TpuSystem>(config, std::move(model));
}

}  // namespace tpu::tb
