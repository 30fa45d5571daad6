#include "top_bench_bus.h"

#include <cmath>
#include <utility>

#include "common/harness_options.h"
#include "host_if/top_model.h"

namespace tpu::tb {

TopBenchBus::TopBenchBus(TopBench& bench, uint64_t msi_address)
    : bench_(bench), msi_address_(msi_address) {
  bench_.rc().set_msi_address(msi_address);
  taken_ = bench_.rc().msis().size();  // MSIs from before this bus are not ours
}

void TopBenchBus::WriteRegister(uint32_t offset, uint32_t value) { bench_.WriteReg(offset, value); }

uint32_t TopBenchBus::ReadRegister(uint32_t offset) { return bench_.ReadReg(offset); }

std::optional<uint32_t> TopBenchBus::WaitForInterrupt(double timeout_ns) {
  const uint64_t cycles = timeout_ns > 0 ? static_cast<uint64_t>(std::ceil(timeout_ns)) : 0;
  for (uint64_t i = 0;; ++i) {
    if (taken_ < bench_.rc().msis().size()) return bench_.rc().msis()[taken_++].data;
    if (i >= cycles) return std::nullopt;
    bench_.Step();
  }
}

std::unique_ptr<TopBench> MakeDeviceBench(uint64_t seed, const std::string& name) {
  auto model = MakeTopModel<0>(TestHarnessOptions(name));
  const RcConfig rc = DeviceRc(model->config(), seed);
  return std::make_unique<TopBench>(std::move(model), rc, seed);
}

}  // namespace tpu::tb
