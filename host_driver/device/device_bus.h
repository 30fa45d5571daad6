// What tpu::Device needs of the machine it runs on: BAR0 register accesses, the host memory
// its DMA buffers live in, and the interrupt (MSI) line. The SystemC system model implements it
// over the modeled PCIe link (sc_models/system/tpu_system.h, SystemBus); the cycle-level bench
// of the device tests implements it over its root-complex model. The driver above it never
// sees an RTL signal.
//
// Calls may block for simulated time (from an SC_THREAD in SystemC, by clocking the device in a
// cycle bench); they return when the access is done.
#ifndef TPU_DEVICE_DEVICE_BUS_H_
#define TPU_DEVICE_DEVICE_BUS_H_

#include <cstdint>
#include <functional>
#include <optional>

#include "device/host_memory.h"
#include "device/pcie_faults.h"

namespace tpu::device {

// What the machine has measured since it started, for the figures of a run (a run's figures are
// the difference of two readings). A machine leaves empty what it cannot measure.
struct BusCounters {
  std::optional<uint64_t> payload_bytes_to_device;    // PCIe TLP payload, host -> device
  std::optional<uint64_t> payload_bytes_from_device;  // PCIe TLP payload, device -> host
  std::optional<double> payload_limit_bytes_per_s;    // the link's, per direction
  std::optional<uint64_t> device_cycles;              // device clock cycles simulated
  std::optional<double> clock_mhz;                    // the device's clock
  // The PCIe data link layer's counters per direction (a simulated link's; pcie_faults.h).
  std::optional<LinkErrorCounters> link_to_device;
  std::optional<LinkErrorCounters> link_from_device;
  // The cycles and bytes are a timing model's estimate, not a simulation's count (the model
  // device, docs/model.md).
  bool timing_estimated = false;
};

class DeviceBus {
 public:
  virtual ~DeviceBus() = default;

  // Posted write of one BAR0 register (byte offset).
  virtual void WriteRegister(uint32_t offset, uint32_t value) = 0;
  // Read of one BAR0 register; throws std::runtime_error (naming the offset) if no successful
  // completion comes back within the bus's register timeout.
  virtual uint32_t ReadRegister(uint32_t offset) = 0;

  // Host memory as the CPU sees it: the driver writes DMA buffers and the instruction ring
  // here directly (no PCIe traffic) and reads results back.
  virtual HostMemory& host_memory() = 0;

  // The host address an MSI must be written to to count as an interrupt.
  virtual uint64_t msi_address() const = 0;
  // The data of the oldest MSI not yet taken, waiting up to timeout_ns of simulated time for
  // one; nullopt if none came.
  virtual std::optional<uint32_t> WaitForInterrupt(double timeout_ns) = 0;

  // Simulated time now, in nanoseconds.
  virtual double now_ns() const = 0;

  // Figures the machine measures (none by default).
  virtual BusCounters counters() const { return {}; }
  // Calls hook(device cycle) about every `every` device cycles while the machine simulates
  // (progress lines of long runs); every = 0 or an empty hook stops the calls. A machine that
  // does not count cycles ignores it (the default).
  virtual void SetCycleHook(uint64_t every, std::function<void(uint64_t cycle)> hook) {
    (void)every;
    (void)hook;
  }
};

}  // namespace tpu::device

#endif  // TPU_DEVICE_DEVICE_BUS_H_
