// The host driver's handle on one TPU (docs/driver.md): register access, DMA buffers in host
// memory, the instruction ring and the completion interrupt, over any DeviceBus. The driver
// speaks only the contract of docs/host_if.md: BAR0 registers, host memory and MSIs.
//
//   tpu::device::Device dev(bus);          // reads ID, VERSION and the capabilities
//   dev.Reset();                           // soft reset, MSI and ring set up
//   tpu::device::DmaBuffer x = dev.AllocateDma(bytes);
//   dev.host_memory().Write(x.address, data);
//   tpu::device::RunResult r = dev.Run(program);  // HALT -> MSI; throws on error or hang
//   r.perf[tpu::regs::kPerfMxuBusy] ...
#ifndef TPU_DEVICE_DEVICE_H_
#define TPU_DEVICE_DEVICE_H_

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "device/device_bus.h"
#include "isa/isa.h"

namespace tpu::device {

// What the device reports about itself (ID, VERSION, CAP_* registers).
struct DeviceInfo {
  uint32_t id = 0;  // regs::kIdReset ("TPU1")
  uint32_t isa_version = 0;
  uint32_t hw_version = 0;
  isa::DeviceLimits limits;  // N, UB rows, accumulator rows, DRAM bytes, parameter sets
  uint32_t max_payload = 0;       // CAP_DMA
  uint32_t max_read_request = 0;  // CAP_DMA
};

struct DeviceOptions {
  // Host memory the driver owns: the instruction ring first, then the DMA buffers. Above 4 GiB
  // by default, so that every transfer uses 64-bit addresses.
  uint64_t host_base = uint64_t{1} << 32;
  uint64_t host_size = uint64_t{1} << 30;
  uint32_t max_ring_slots = 65536;  // a longer program is streamed as the device takes slots
  uint16_t msi_data = 0x51;         // MSI_DATA: what the device's interrupt writes
  double run_timeout_ns = 1e9;      // simulated time a Run may take before the device is hung
  double poll_interval_ns = 2000;   // while streaming a long program: RING_HEAD poll period
  // WATCHDOG: cycles a running device may go without progress before it stops with error
  // WATCHDOG (0 = off). Well above the completion timeout (65536 cycles), so that a read never
  // answered is reported as such (DMA_ERROR_CAUSE timeout), and far below run_timeout_ns.
  uint32_t watchdog_cycles = 1u << 20;
};

// The device failed: an error code it reported (code != 0), an ID that is not a TPU, or a hang
// (no interrupt within the timeout; hung() true). what() says which, with the registers that
// explain it (STATUS, ERROR_CODE and its name, ERROR_INDEX, DMA_ERROR_CAUSE, RING_HEAD/TAIL,
// cycles).
class DeviceError : public std::runtime_error {
 public:
  DeviceError(const std::string& what, bool hung, uint32_t code, uint32_t index,
              uint32_t dma_cause = 0)
      : std::runtime_error(what), hung_(hung), code_(code), index_(index), dma_cause_(dma_cause) {}
  bool hung() const { return hung_; }
  uint32_t code() const { return code_; }            // ERROR_CODE (0: none)
  uint32_t index() const { return index_; }          // ERROR_INDEX
  uint32_t dma_cause() const { return dma_cause_; }  // DMA_ERROR_CAUSE (0: no read failed)

 private:
  bool hung_;
  uint32_t code_;
  uint32_t index_;
  uint32_t dma_cause_;
};

// "CA on a READ_HOST read (tag 3)": DMA_ERROR_CAUSE in words; "" for 0.
std::string DmaCauseText(uint32_t dma_cause);
// The cause field's name ("UR", "CA", "STATUS", "POISONED", "TIMEOUT", "MALFORMED"; "NONE").
std::string DmaCauseName(uint32_t dma_cause);

// "DMA_ERROR at instruction 7 [CA on a READ_HOST read (tag 3)]", "WATCHDOG": what the device
// reported, in one line (for reports of recovered errors).
std::string ErrorSummary(const DeviceError& e);

// The retry policy (docs/driver.md, "Recovery"): true if `e` is a failure of the transport that
// a soft reset and a rerun of the same program may get past: a DMA_ERROR or RING_FETCH_ERROR
// whose DMA_ERROR_CAUSE names a failed completion (UR, CA, another status, poisoned, timeout,
// malformed), and WATCHDOG. Decode, field and ordering errors (the program is wrong), a
// DMA_ERROR without a cause, and a device that does not answer are not retried.
bool Retryable(const DeviceError& e);

// A span of host memory the device may DMA from or to.
struct DmaBuffer {
  uint64_t address = 0;
  uint64_t size = 0;
};

// The performance counters of a run (docs/controller.md section 4), in regs::kPerf* order.
using PerfCounters = std::array<uint64_t, 10>;

struct RunResult {
  PerfCounters perf{};
  double start_ns = 0;  // simulated time the doorbell was rung
  double end_ns = 0;    // simulated time the completion interrupt arrived
  uint64_t instructions = 0;
};

class Device {
 public:
  // Reads ID, VERSION and the capabilities and writes WATCHDOG (options.watchdog_cycles);
  // throws DeviceError if the ID is not "TPU1" and std::invalid_argument if the options' host
  // region cannot hold a ring.
  Device(DeviceBus& bus, const DeviceOptions& options = {});

  const DeviceInfo& info() const { return info_; }
  const DeviceOptions& options() const { return options_; }
  DeviceBus& bus() { return bus_; }
  HostMemory& host_memory() { return bus_.host_memory(); }

  uint32_t ReadRegister(uint32_t offset) { return bus_.ReadRegister(offset); }
  void WriteRegister(uint32_t offset, uint32_t value) { bus_.WriteRegister(offset, value); }

  // CONTROL.soft_reset, then MSI (address, data, both interrupt events unmasked, irq_enable)
  // and the interrupt status cleared. Run() calls it when the device is not ready for a
  // program (first use, after an error or a hang).
  void Reset();

  // Host memory for DMA: `bytes` at a multiple of `align` (a power of two) after the ring's
  // largest size; throws std::length_error when the region is exhausted. ReleaseDma() frees
  // every buffer.
  DmaBuffer AllocateDma(uint64_t bytes, uint64_t align = 64);
  void ReleaseDma();
  // The host memory after the ring: where a lowering may place its images.
  DmaBuffer dma_region() const;

  // Runs `program` (it must end in HALT) from slot 0 of a ring sized to it (or streamed through
  // the largest ring as the device takes slots), waits for the completion interrupt and
  // returns the performance counters. Throws DeviceError on an error the device reports
  // (code, index and the instruction's name) or when no interrupt comes within the options'
  // timeout (hung), and std::invalid_argument for an empty program.
  RunResult Run(const isa::Program& program);
  // The same for a program as instructions (encoded first; std::invalid_argument names an
  // instruction that cannot be encoded).
  RunResult Run(const std::vector<isa::Instr>& program);

  // The ten 64-bit counters (each read as PERF_i_LO then PERF_i_HI).
  PerfCounters ReadPerf();

 private:
  // Writes `count` encoded instructions into consecutive ring slots from `slot` (not past the
  // ring's end) in one host-memory write: a long program is one write per pass over the ring,
  // not one per instruction.
  void WriteSlots(uint64_t ring_base, uint32_t slot, const isa::Words* words, uint32_t count);
  [[noreturn]] void ThrowHung(const std::string& why, double waited_ns);
  [[noreturn]] void ThrowError(const isa::Program& program);

  DeviceBus& bus_;
  DeviceOptions options_;
  DeviceInfo info_;
  uint64_t dma_next_ = 0;
  bool ready_ = false;  // reset done and no error or hang since
  std::vector<uint8_t> slot_bytes_;  // on a big-endian host: instructions for the ring, as bytes
};

}  // namespace tpu::device

#endif  // TPU_DEVICE_DEVICE_H_
