#include "simulator/simulator.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "host_if/top_model.h"
#include "rtl_device_config.h"
#include "system/tpu_system.h"

namespace tpu::tb {
namespace {

// The Verilated configuration the simulator runs (testbench/host_if/CMakeLists.txt, K = 1).
constexpr int kDeviceConfig = 1;

// The Verilated model must be the device rtl_device_config.h describes (`tpu info` and the
// network checks rely on it).
void CheckAgainstConfig(const TopConfig& built) {
  const cli::RtlDeviceConfig want = cli::RtlDevice();
  const isa::DeviceLimits& l = built.limits;
  if (l.n != want.limits.n || l.ub_rows != want.limits.ub_rows ||
      l.acc_rows != want.limits.acc_rows || l.dram_bytes != want.limits.dram_bytes ||
      l.param_sets != want.limits.param_sets || built.dram_width != want.dram_width_bits ||
      built.max_payload != want.max_payload || built.max_read_req != want.max_read_request ||
      built.num_tags != want.dma_tags) {
    throw std::logic_error(
        "the Verilated device (configuration " + std::to_string(kDeviceConfig) +
        ") differs from host_driver/cli/rtl_device_config.h: keep the two in step");
  }
}

}  // namespace

std::unique_ptr<device::Platform> MakeSimulator(const SimulatorOptions& options) {
  static bool made = false;
  if (made) throw std::logic_error("the system model is elaborated once per process");
  made = true;
  std::unique_ptr<TopModel> model = MakeTopModel<kDeviceConfig>(options.trace);
  CheckAgainstConfig(model->config());
  sys::SystemConfig config;
  config.link = sc::PcieLinkConfig::FromName(options.link.ToString());
  config.clock_mhz = cli::RtlDevice().clock_mhz;
  return std::make_unique<sys::TpuSystem>(config, std::move(model));
}

}  // namespace tpu::tb
