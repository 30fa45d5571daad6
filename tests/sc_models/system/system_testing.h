// Helpers of the system-level tests (tests/sc_models/system/test_*.cpp): each binary builds ONE
// TpuSystem in its sc_main (SystemC elaborates once per process, tests/sc_models/sc_testing.h) and
// its tests run jobs in it with TpuSystem::Run. ctest runs every test in a process of its own, so
// a test must also pass after any other test of its binary: each one sets up the device state
// it depends on (soft reset, MSI, ring) instead of assuming a fresh elaboration, and drains
// interrupts left over by earlier tests.
#ifndef TPU_TESTS_SYSTEM_SYSTEM_TESTING_H_
#define TPU_TESTS_SYSTEM_SYSTEM_TESTING_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "device/device.h"
#include "device/device_bus.h"
#include "isa/isa.h"
#include "regs/regs.h"

namespace tpu::sys::testing {

// Forwards to another bus and counts the register accesses, so that a test knows exactly how
// much register traffic crossed the link (tests of the link's byte counts).
class CountingBus : public device::DeviceBus {
 public:
  explicit CountingBus(device::DeviceBus& bus) : bus_(bus) {}
  void WriteRegister(uint32_t offset, uint32_t value) override {
    ++writes_;
    bus_.WriteRegister(offset, value);
  }
  uint32_t ReadRegister(uint32_t offset) override {
    ++reads_;
    return bus_.ReadRegister(offset);
  }
  device::HostMemory& host_memory() override { return bus_.host_memory(); }
  uint64_t msi_address() const override { return bus_.msi_address(); }
  std::optional<uint32_t> WaitForInterrupt(double timeout_ns) override {
    std::optional<uint32_t> irq = bus_.WaitForInterrupt(timeout_ns);
    if (irq) ++interrupts_;
    return irq;
  }
  double now_ns() const override { return bus_.now_ns(); }

  uint64_t writes() const { return writes_; }
  uint64_t reads() const { return reads_; }
  uint64_t interrupts() const { return interrupts_; }

 private:
  device::DeviceBus& bus_;
  uint64_t writes_ = 0;
  uint64_t reads_ = 0;
  uint64_t interrupts_ = 0;
};

// The seed of a randomized test: TPU_SEED from the environment if set, else `fallback`; printed
// so that a failure can be reproduced with TPU_SEED=<seed>.
inline uint64_t TestSeed(uint64_t fallback) {
  uint64_t seed = fallback;
  if (const char* env = std::getenv("TPU_SEED"); env != nullptr && *env != '\0') {
    seed = std::strtoull(env, nullptr, 0);
  }
  std::printf("seed %llu (set TPU_SEED to change it)\n", static_cast<unsigned long long>(seed));
  return seed;
}

inline std::vector<uint8_t> RandomBytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> bytes(n);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

// Bytes of the whole DWs that hold host bytes [address, address + length): what PCIe moves
// for them (requests and completions carry DWs, byte enables mark the partial ones).
inline uint64_t DwBytes(uint64_t address, uint64_t length) {
  if (length == 0) return 0;
  return ((address + length + 3) / 4 - address / 4) * 4;
}

// READ_HOST of `length` bytes from host address `host` into the UB from `row`.
inline isa::ReadHost ReadToUb(uint64_t host, uint32_t row, uint32_t length) {
  isa::ReadHost r;
  r.target = isa::Target::kUb;
  r.host = host;
  r.dest = row;
  r.length = length;
  return r;
}

// WRITE_HOST of `length` bytes from UB row `row` to host address `host`.
inline isa::WriteHost WriteFromUb(uint32_t row, uint64_t host, uint32_t length) {
  isa::WriteHost w;
  w.ub = row;
  w.host = host;
  w.length = length;
  return w;
}

// A READ_HOST of `length` bytes from `src` into the weight DRAM, then HALT: simulated ns from
// doorbell to MSI.
inline double ReadHostNs(device::Device& dev, uint64_t src, uint32_t length) {
  isa::ReadHost r;
  r.target = isa::Target::kDram;
  r.host = src;
  r.dest = 0;
  r.length = length;
  const device::RunResult result = dev.Run({r, isa::Halt{}});
  return result.end_ns - result.start_ns;
}

// The ring of a raw program (tests that drive the registers themselves, not through
// tpu::device::Device): slot i of `instrs` at base + 16 i, as four little-endian words.
inline void WriteSlots(device::HostMemory& memory, uint64_t base, uint32_t first_slot,
                       const std::vector<isa::Words>& slots) {
  for (size_t s = 0; s < slots.size(); ++s) {
    std::vector<uint8_t> bytes(16);
    for (int w = 0; w < 4; ++w) {
      for (int b = 0; b < 4; ++b) {
        bytes[4 * w + b] = static_cast<uint8_t>(slots[s][w] >> (8 * b));
      }
    }
    memory.Write(base + 16 * (first_slot + s), bytes);
  }
}

// Sets the device up for raw programs: soft reset (with irq_enable as given), the MSI, the
// interrupt mask, the ring (base, size), IRQ_STATUS cleared; then a register read, whose
// completion cannot pass the writes (nor an MSI sent before them), and every interrupt left
// over is taken.
inline void RawSetup(device::DeviceBus& bus, uint64_t ring_base, uint32_t ring_slots,
                     uint32_t msi_data, uint32_t irq_mask, bool irq_enable) {
  bus.WriteRegister(regs::kControl,
                    regs::kControlSoftResetMask | (irq_enable ? regs::kControlIrqEnableMask : 0));
  bus.WriteRegister(regs::kMsiAddrLo, static_cast<uint32_t>(bus.msi_address()));
  bus.WriteRegister(regs::kMsiAddrHi, static_cast<uint32_t>(bus.msi_address() >> 32));
  bus.WriteRegister(regs::kMsiData, msi_data);
  bus.WriteRegister(regs::kIrqMask, irq_mask);
  bus.WriteRegister(regs::kRingBaseLo, static_cast<uint32_t>(ring_base));
  bus.WriteRegister(regs::kRingBaseHi, static_cast<uint32_t>(ring_base >> 32));
  bus.WriteRegister(regs::kRingSize, ring_slots);
  bus.WriteRegister(regs::kIrqStatus, regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask);
  bus.ReadRegister(regs::kStatus);
  while (bus.WaitForInterrupt(0)) {
  }
}

// Polls STATUS every `step_ns` until it shows done or error (returns it) or `timeout_ns` has
// passed (returns the last value). WaitForInterrupt is the sleep, so an MSI that arrives
// meanwhile is counted in *msis.
inline uint32_t PollStopped(device::DeviceBus& bus, double timeout_ns, int* msis,
                            double step_ns = 500) {
  const double end = bus.now_ns() + timeout_ns;
  uint32_t status = 0;
  for (;;) {
    status = bus.ReadRegister(regs::kStatus);
    if (status & (regs::kStatusDoneMask | regs::kStatusErrorMask)) return status;
    if (bus.now_ns() >= end) return status;
    if (bus.WaitForInterrupt(step_ns)) ++*msis;
  }
}

}  // namespace tpu::sys::testing

#endif  // TPU_TESTS_SYSTEM_SYSTEM_TESTING_H_
