// The system model (docs/system.md): the Verilated device (RtlDevice) on the modeled
// PCIe link (sc_models/pcie_link.h) to a root complex with host memory, and the weight DRAM
// on the device's DRAM pins, elaborated once; the host driver reaches it through a
// device::DeviceBus (SystemBus) from a SystemC thread.
//
//   // MakeTopModel<K>: the Verilated devices of testbench/host_if/top_model.h.
//   tpu::sys::TpuSystem system(config, tpu::tb::MakeTopModel<1>(trace_options));
//   system.Run([&](tpu::device::DeviceBus& bus) {
//     tpu::device::Device dev(bus);
//     ... dev.Run(program) ...
//   });
//
// SystemC elaborates once per process: build one TpuSystem and call Run as often as needed
// (simulated time goes on between runs).
#ifndef TPU_SC_MODELS_SYSTEM_TPU_SYSTEM_H_
#define TPU_SC_MODELS_SYSTEM_TPU_SYSTEM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "device/device_bus.h"
#include "device/platform.h"
#include "sc_models/pcie_link.h"
#include "sc_models/root_complex.h"
#include "sc_models/system/rtl_device.h"
#include "sc_models/system/top_model.h"
#include "sc_models/weight_dram.h"

namespace tpu::sys {

struct SystemConfig {
  sc::PcieLinkConfig link;  // default Gen3 x16, MPS 256, MRRS 512
  double clock_mhz = 700.0;  // the device's clock (TPU v1's by default)
  int dram_latency_cycles = 20;
  double host_memory_latency_ns = 100.0;  // root complex: MRd arrival -> first completion
  RtlDeviceConfig device;                 // clock_mhz is taken from above
};

// The driver's bus over the root complex; its calls block in simulated time, so they must
// come from a SystemC thread (TpuSystem::Run's job). Its counters are the link's payload bytes
// and the RTL's cycles.
class SystemBus : public device::DeviceBus {
 public:
  SystemBus(sc::RootComplex* rc, const sc::PcieLink* link, RtlDevice* device, double clock_mhz)
      : rc_(rc), link_(link), device_(device), clock_mhz_(clock_mhz) {}
  void WriteRegister(uint32_t offset, uint32_t value) override;
  uint32_t ReadRegister(uint32_t offset) override;
  model::HostMemory& host_memory() override { return rc_->memory(); }
  uint64_t msi_address() const override { return rc_->config().msi_address; }
  std::optional<uint32_t> WaitForInterrupt(double timeout_ns) override;
  double now_ns() const override;
  device::BusCounters counters() const override;
  void SetCycleHook(uint64_t every, std::function<void(uint64_t cycle)> hook) override;

 private:
  sc::RootComplex* rc_;
  const sc::PcieLink* link_;
  RtlDevice* device_;
  double clock_mhz_;
};

// A TLM initiator on the weight DRAM's socket (the RTL uses its cycle-level port): tools and
// tests read or write the DRAM through it, timed or with transport_dbg.
class DramAccess : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<DramAccess> socket;
  explicit DramAccess(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") {}
};

class TpuSystem : public device::Platform {
 public:
  // model: a Verilated tpu_top (tb::MakeTopModel<K>, testbench/host_if/top_model.h); the
  // link's MPS and MRRS must not exceed the ones it was built with (std::invalid_argument
  // otherwise; enumeration sets them in its Device Control), and the DRAM must match.
  TpuSystem(const SystemConfig& config, std::unique_ptr<TopModel> model);

  // Runs `job` in a SystemC thread with the bus and simulates until it returns; the first call
  // enumerates the device first (sc::RootComplex::Enumerate: the host's bring-up, which sets
  // the link's MPS and MRRS in the device and enables its BAR0 and bus mastering). Rethrows
  // what the job throws; throws std::runtime_error if the simulation runs out of events while the
  // job still waits (nothing could ever wake it).
  void Run(const std::function<void(device::DeviceBus&)>& job) override;
  // The Verilated device's limits (what its capability registers report).
  isa::DeviceLimits limits() const override { return device_.top_config().limits; }

  const SystemConfig& config() const { return config_; }
  sc::PcieLink& link() { return link_; }
  sc::RootComplex& root_complex() { return rc_; }
  sc::WeightDram& dram() { return dram_; }
  RtlDevice& device() { return device_; }
  DramAccess& dram_access() { return dram_access_; }
  double now_ns() const;

 private:
  SystemConfig config_;
  sc::PcieLink link_;
  sc::RootComplex rc_;
  sc::WeightDram dram_;
  RtlDevice device_;
  DramAccess dram_access_;
  SystemBus bus_;
  bool enumerated_ = false;
};

}  // namespace tpu::sys

#endif  // TPU_SC_MODELS_SYSTEM_TPU_SYSTEM_H_
