// tpu::device::DeviceBus over the cycle-level device bench (testbench/host_if/top_bench.h):
// register accesses are TLPs through the root-complex model, host memory is the bench's, and
// waiting for an interrupt clocks the device (1 cycle = 1 ns) until the root complex records
// an MSI.
//
//   auto bench = tpu::tb::MakeDeviceBench(seed, "device_dense");
//   tpu::tb::TopBenchBus bus(*bench);
//   tpu::device::Device dev(bus);
#ifndef TPU_TESTS_DEVICE_TOP_BENCH_BUS_H_
#define TPU_TESTS_DEVICE_TOP_BENCH_BUS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "device/device_bus.h"
#include "host_if/top_bench.h"

namespace tpu::tb {

class TopBenchBus : public device::DeviceBus {
 public:
  static constexpr uint64_t kDefaultMsiAddress = 0xfee00000;

  // Points the root complex's MSI detection at `msi_address`.
  explicit TopBenchBus(TopBench& bench, uint64_t msi_address = kDefaultMsiAddress);

  void WriteRegister(uint32_t offset, uint32_t value) override;
  uint32_t ReadRegister(uint32_t offset) override;
  model::HostMemory& host_memory() override { return bench_.host(); }
  uint64_t msi_address() const override { return msi_address_; }
  // Clocks the bench until an MSI not yet taken is there, at most ceil(timeout_ns) cycles.
  std::optional<uint32_t> WaitForInterrupt(double timeout_ns) override;
  double now_ns() const override { return static_cast<double>(bench_.cycle()); }

  TopBench& bench() { return bench_; }
  size_t interrupts_taken() const { return taken_; }

 private:
  TopBench& bench_;
  uint64_t msi_address_;
  size_t taken_ = 0;  // MSIs of rc().msis() already returned
};

// The device of configuration 0 (MakeTopModel<0>) with an ideal-timing root complex sized to
// it (40-cycle read latency), traced like the other RTL tests (TPU_TRACE=1).
std::unique_ptr<TopBench> MakeDeviceBench(uint64_t seed, const std::string& name);

}  // namespace tpu::tb

#endif  // TPU_TESTS_DEVICE_TOP_BENCH_BUS_H_
