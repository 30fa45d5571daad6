// The model device (`--backend model`, docs/model.md): a TPU that the host driver cannot tell
// from the RTL device through its DeviceBus, executed by the ISA reference machine
// (host_driver/model/machine.h) instead of simulated cycle by cycle, with its time taken from
// the timing model (timing_model.h). Plain C++, no SystemC.
//
// As seen through BAR0 (docs/registers.md, the generated map) it is the RTL's tpu_top: ID,
// VERSION and the capability registers of its device configuration (isa/devices.json), soft
// reset, IRQ_STATUS / IRQ_MASK / CONTROL.irq_enable and the MSI (a 4-byte write of MSI_DATA to
// MSI_ADDR: an interrupt when it is msi_address(), a host-memory write otherwise), the
// instruction ring fetched from host memory at the doorbell (RING_FETCH_ERROR when a slot
// cannot be read), the ten performance counters with PERF_i_HI latched by PERF_i_LO, every
// error code with the failing instruction's index (decode errors, NO_TILE, DMA_ERROR on a
// faulted host range, TOKEN_OVERFLOW; DEADLOCK as model::SimulateSchedule finds it),
// DMA_ERROR_CAUSE from the fault range's kind, and WATCHDOG for a read never answered.
//
// Configuration space: the RTL's (sc::ConfigSpace), read and written with ConfigRead /
// ConfigWrite (one link round trip each); ModelPlatform enumerates the device with the system
// model's sequence when it makes it. As on the RTL, BAR0 reads throw and BAR0 writes are
// dropped while Memory Space Enable is clear, and a doorbell while Bus Master Enable is clear
// starts nothing until it is set (the program waits).
//
// Time: the device does a program's work at the doorbell (the reference machine in program
// order, so host memory holds the results at once) but shows it only when simulated time
// reaches the program's end, the doorbell plus the timing model's cycles: until then STATUS
// says running, and the MSI arrives then. Time moves only when the driver waits
// (WaitForInterrupt) or reads a register (one link round trip each).
#ifndef TPU_SC_MODELS_MODEL_DEVICE_MODEL_DEVICE_H_
#define TPU_SC_MODELS_MODEL_DEVICE_MODEL_DEVICE_H_

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "device/device_bus.h"
#include "device/pcie_link.h"
#include "devices/devices_gen.h"
#include "isa/isa_gen.h"
#include "model/machine.h"
#include "sc_models/model_device/timing_model.h"
#include "sc_models/model_device/timing_worker.h"
#include "sc_models/pcie/config_space.h"

namespace tpu::sc {

class ModelDevice : public device::DeviceBus {
 public:
  // The ten counters, in regs::kPerf* order.
  using Perf = std::array<uint64_t, 10>;

  // Where the host's interrupt controller takes MSIs (the root complex's, sc_models).
  static constexpr uint64_t kMsiAddress = 0xFEE0'0000;
  // Where the enumeration maps BAR0 (the root complex's default, sc_models).
  static constexpr uint32_t kBar0Address = 0xF000'0000;

  // Throws std::invalid_argument for a configuration the ISA does not support.
  ModelDevice(const devices::DeviceConfig& device, const device::PcieLink& link);

  // DeviceBus.
  void WriteRegister(uint32_t offset, uint32_t value) override;
  uint32_t ReadRegister(uint32_t offset) override;
  // The reference machine's host memory: what the driver writes here is what the device's DMA
  // reads; fault ranges (model::HostMemory::AddFault) make DMA and ring fetches fail.
  model::HostMemory& host_memory() override { return machine_.host(); }
  uint64_t msi_address() const override { return kMsiAddress; }
  std::optional<uint32_t> WaitForInterrupt(double timeout_ns) override;
  double now_ns() const override { return now_ns_; }
  // Payload bytes each way (register accesses, instruction fetch, DMA, MSIs), device cycles of
  // the programs run, the clock; `timing_estimated` is set: the figures are the timing
  // model's.
  device::BusCounters counters() const override;

  // Type 0 configuration requests (the function's ID is sc::kDeviceId once written).
  uint32_t ConfigRead(uint16_t offset);
  void ConfigWrite(uint16_t offset, uint32_t value, uint8_t first_be = 0xF);
  // The host's bring-up (sc::EnumerationSteps with the device's MPS and MRRS); throws
  // std::runtime_error if the device answers unexpectedly.
  void Enumerate();

  const devices::DeviceConfig& config() const { return device_; }
  // The device's memories (UB, accumulators, weight DRAM, parameters), for tests.
  model::Machine& machine() { return machine_; }

 private:
  // A completion (HALT or an error) the device shows at `at_ns`.
  struct Completion {
    double at_ns = 0;
    bool error = false;        // ERROR_CODE = code, ERROR_INDEX = index
    bool fetch_error = false;  // RING_FETCH_ERROR
    uint8_t code = 0;
    uint32_t index = 0;
    Perf perf{};
  };

  void Advance(double to_ns);  // applies a completion due by then
  void Doorbell();
  void SoftReset();
  // Takes the slots from the fetch point up to RING_TAIL and executes them; ends the program
  // on HALT, an error or a slot that cannot be read.
  void FetchAndExecute();
  // The program ended (HALT at `index`, or an error there): its figures from the timing model,
  // its completion due at the doorbell plus its cycles.
  void Finish(bool error, uint8_t code, uint32_t index, bool fetch_error = false);
  void FinishModelError(const model::RunResult& result);
  // A DMA read or ring fetch failed on a fault range: records DMA_ERROR_CAUSE (the first
  // failure since the soft reset; tag 0) for `requester`; returns true when the failure is a
  // read never answered that the watchdog stops first, being shorter than the configuration's
  // completion timeout (DeviceConfig::timeout; then no cause is recorded).
  bool RecordDmaCause(uint32_t requester);
  void RaiseEvent(uint32_t irq_bits, double at_ns);
  void SendMsi(double at_ns);
  uint32_t RingMask() const;
  bool RingSizeLegal() const;

  devices::DeviceConfig device_;
  device::PcieLink link_;
  TimingModel timing_;
  model::Machine machine_;
  double link_latency_ns_;
  double payload_limit_bytes_per_s_;

  double now_ns_ = 0;
  ConfigSpace config_space_;
  bool doorbell_waiting_ = false;  // rung while Bus Master Enable was clear
  // Registers (images at their bit positions).
  bool irq_enable_ = false;
  uint32_t irq_mask_ = 0, irq_status_ = 0;
  uint32_t msi_addr_lo_ = 0, msi_addr_hi_ = 0, msi_data_ = 0;
  uint32_t ring_base_lo_ = 0, ring_base_hi_ = 0, ring_size_ = 0, ring_tail_ = 0;
  uint32_t ring_head_ = 0;
  std::array<uint32_t, 10> perf_hi_{};
  bool fetch_error_ = false;      // stopped by the host interface: RING_FETCH_ERROR or WATCHDOG
  uint8_t host_error_code_ = 0;   // ... which
  uint32_t dma_cause_ = 0;        // DMA_ERROR_CAUSE
  uint32_t watchdog_ = 0;         // WATCHDOG (configuration: kept by a soft reset)
  // The core.
  bool running_ = false, done_ = false, error_ = false;
  uint8_t error_code_ = 0;
  uint32_t error_index_ = 0;
  Perf perf_{};
  // The program of the current run as taken from the ring: slot i of it at
  // chunks_[i / kChunkSlots][i % kChunkSlots]. Chunks of a fixed size, kept for the next
  // programs: a program streamed through the ring is never copied to grow (a 1024^3 layer's
  // 146,000 instructions are 2.3 MB), and a later program fills memory already in use.
  static constexpr size_t kChunkSlots = 16384;
  std::vector<std::vector<isa::Words>> chunks_;
  isa::Words& Slot(size_t i) { return chunks_[i / kChunkSlots][i % kChunkSlots]; }
  size_t fetched_ = 0;   // instructions of the program taken from the ring
  size_t executed_ = 0;  // ... of them executed
  Perf rows_{};  // the row counters of the instructions executed so far (CountRows)
  uint32_t fetch_ = 0;       // next slot to take
  uint32_t start_head_ = 0;  // RING_HEAD at the start: the slot of instruction 0
  double start_ns_ = 0;
  std::optional<Completion> pending_;
  std::deque<std::pair<double, uint32_t>> msis_;  // (arrival, data) not yet taken
  // Counters.
  uint64_t bytes_to_device_ = 0, bytes_from_device_ = 0, device_cycles_ = 0;
  // The timing model's replay of the current program, fed with the instructions as they are
  // executed (last: its thread stops before the members it uses go).
  TimingWorker timing_worker_{timing_};
};

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_MODEL_DEVICE_MODEL_DEVICE_H_
