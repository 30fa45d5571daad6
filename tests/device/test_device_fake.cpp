// tpu::device::Device over a scripted register file (no RTL): option and ID checks, the order
// of the register accesses (reset, ring set-up, interrupt status clears, counters read LO then
// HI), ring sizing, the byte order of instruction slots, stale interrupts, DMA buffers.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "device/device.h"
#include "isa/isa.h"
#include "model/host_memory.h"
#include "regs/regs.h"

namespace tpu::device {
namespace {

#define EXPECT_CONTAINS(text, part)                                                              \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "\"" << (part) << "\" not in:\n" \
                                                             << (text)

// BAR0 as docs/registers.md describes it, reduced to what the driver touches: a doorbell
// completes the program `run_ns` later (RING_HEAD = RING_TAIL, IRQ_STATUS.done, one MSI when
// enabled), CONTROL.soft_reset clears RING_TAIL, RING_HEAD and IRQ_STATUS, IRQ_STATUS is RW1C
// and reading PERF_i_LO latches PERF_i_HI.
class FakeBus : public DeviceBus {
 public:
  struct Access {
    bool write;
    uint32_t offset;
    uint32_t value;
  };

  FakeBus() {
    regs_[regs::kId] = regs::kIdReset;
    regs_[regs::kVersion] = 3u << 16 | static_cast<uint32_t>(isa::kIsaVersion);
    regs_[regs::kCapN] = 16;
    regs_[regs::kCapUbRows] = 1024;
    regs_[regs::kCapAccRows] = 256;
    regs_[regs::kCapDramBytesLo] = 1 << 20;
    regs_[regs::kCapParamSets] = 16;
    regs_[regs::kCapDma] = 512u << 16 | 256u;
  }

  std::map<uint32_t, uint32_t> regs_;
  std::vector<Access> log;
  std::deque<uint32_t> msis;  // arrived, not yet taken
  std::vector<uint64_t> perf = std::vector<uint64_t>(regs::kPerfCount, 0);
  double run_ns = 100;

  void WriteRegister(uint32_t offset, uint32_t value) override {
    log.push_back({true, offset, value});
    if (offset == regs::kIrqStatus) {
      regs_[offset] &= ~value;
    } else if (offset == regs::kControl) {
      if (value & regs::kControlSoftResetMask) {
        regs_[regs::kRingTail] = regs_[regs::kRingHead] = regs_[regs::kIrqStatus] = 0;
        due_.reset();
      }
      regs_[offset] = value & regs::kControlIrqEnableMask;
    } else if (offset == regs::kRingTail) {
      regs_[offset] = value;
      due_ = now_ + run_ns;
    } else {
      regs_[offset] = value;
    }
  }
  uint32_t ReadRegister(uint32_t offset) override {
    log.push_back({false, offset, 0});
    for (int i = 0; i < regs::kPerfCount; ++i) {
      if (offset == regs::PerfLo(i)) {
        hi_[i] = static_cast<uint32_t>(perf[i] >> 32);
        return static_cast<uint32_t>(perf[i]);
      }
      if (offset == regs::PerfHi(i)) return hi_[i];
    }
    return regs_[offset];
  }
  model::HostMemory& host_memory() override { return host_; }
  uint64_t msi_address() const override { return 0xfee00000; }
  std::optional<uint32_t> WaitForInterrupt(double timeout_ns) override {
    if (msis.empty() && due_ && *due_ <= now_ + timeout_ns) {
      now_ = *due_;
      Complete();
    }
    if (!msis.empty()) {
      const uint32_t data = msis.front();
      msis.pop_front();
      return data;
    }
    now_ += timeout_ns;
    return std::nullopt;
  }
  double now_ns() const override { return now_; }

  // The values written to `offset`, in order.
  std::vector<uint32_t> Writes(uint32_t offset) const {
    std::vector<uint32_t> values;
    for (const Access& a : log) {
      if (a.write && a.offset == offset) values.push_back(a.value);
    }
    return values;
  }
  // Position in the log of the last write of `value` to `offset` (-1: none).
  int LastWrite(uint32_t offset, uint32_t value) const {
    for (int i = static_cast<int>(log.size()) - 1; i >= 0; --i) {
      if (log[i].write && log[i].offset == offset && log[i].value == value) return i;
    }
    return -1;
  }

 private:
  void Complete() {
    due_.reset();
    regs_[regs::kRingHead] = regs_[regs::kRingTail];
    regs_[regs::kIrqStatus] |= regs::kIrqStatusDoneMask;
    if ((regs_[regs::kControl] & regs::kControlIrqEnableMask) &&
        (regs_[regs::kIrqMask] & regs::kIrqMaskDoneMask)) {
      msis.push_back(regs_[regs::kMsiData]);
    }
  }

  model::HostMemory host_;
  double now_ = 0;
  std::optional<double> due_;
  uint32_t hi_[regs::kPerfCount] = {};
};

std::vector<isa::Instr> Program(int nops) {
  std::vector<isa::Instr> p(nops, isa::Nop{});
  p.push_back(isa::Halt{});
  return p;
}

constexpr uint32_t kBothIrqs = regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask;

TEST(DeviceFake, ChecksTheOptions) {
  FakeBus bus;
  for (uint32_t slots : {0u, 1u, 3u, 96u, 131072u}) {
    DeviceOptions o;
    o.max_ring_slots = slots;
    try {
      Device dev(bus, o);
      ADD_FAILURE() << "max_ring_slots " << slots << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_CONTAINS(e.what(), "max_ring_slots = " + std::to_string(slots));
    }
  }
  DeviceOptions small;
  small.max_ring_slots = 64;
  small.host_size = 16 * 64;
  EXPECT_THROW(Device(bus, small), std::invalid_argument);
  DeviceOptions unaligned;
  unaligned.host_base = 0x1008;
  EXPECT_THROW(Device(bus, unaligned), std::invalid_argument);
  DeviceOptions beyond;
  beyond.host_base = uint64_t{1} << 48;
  EXPECT_THROW(Device(bus, beyond), std::invalid_argument);
  DeviceOptions ok;
  ok.max_ring_slots = 2;
  ok.host_size = 16 * 2 + 64;
  EXPECT_NO_THROW(Device(bus, ok));
}

TEST(DeviceFake, RejectsADeviceThatIsNotATpu) {
  FakeBus bus;
  bus.regs_[regs::kId] = 0xdeadbeef;
  try {
    Device dev(bus);
    FAIL() << "no DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_FALSE(e.hung());
    EXPECT_CONTAINS(e.what(), "0xdeadbeef");
    EXPECT_CONTAINS(e.what(), "0x54505531");
    EXPECT_CONTAINS(e.what(), "TPU1");
  }
}

TEST(DeviceFake, RejectsAnotherIsaVersion) {
  FakeBus bus;
  bus.regs_[regs::kVersion] = 3u << 16 | 1u;  // version 1: 16-bit UB rows, 30-bit DRAM addresses
  try {
    Device dev(bus);
    FAIL() << "no DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_FALSE(e.hung());
    EXPECT_CONTAINS(e.what(), "instruction-set version 1");
    EXPECT_CONTAINS(e.what(), "driver emits version " + std::to_string(isa::kIsaVersion));
  }
}

TEST(DeviceFake, ReadsTheCapabilities) {
  FakeBus bus;
  Device dev(bus);
  EXPECT_EQ(dev.info().isa_version, static_cast<uint32_t>(isa::kIsaVersion));
  EXPECT_EQ(dev.info().hw_version, 3u);
  EXPECT_EQ(dev.info().limits.n, 16);
  EXPECT_EQ(dev.info().limits.ub_rows, 1024);
  EXPECT_EQ(dev.info().limits.acc_rows, 256);
  EXPECT_EQ(dev.info().limits.dram_bytes, 1 << 20);
  EXPECT_EQ(dev.info().limits.param_sets, 16);
  EXPECT_EQ(dev.info().max_payload, 256u);
  EXPECT_EQ(dev.info().max_read_request, 512u);
  // The one write: the watchdog's configuration (a soft reset keeps it).
  for (const auto& a : bus.log) {
    if (a.write) {
      EXPECT_EQ(a.offset, regs::kWatchdog) << "wrote " << a.offset;
    }
  }
  EXPECT_EQ(bus.regs_[regs::kWatchdog], DeviceOptions{}.watchdog_cycles);
}

TEST(DeviceFake, ReadsDramSizesAbove4GiB) {
  // TPU v1: 8 GiB, CAP_DRAM_BYTES_HI = 2, LO = 0.
  FakeBus bus;
  bus.regs_[regs::kCapDramBytesLo] = 0;
  bus.regs_[regs::kCapDramBytesHi] = 2;
  Device dev(bus);
  EXPECT_EQ(dev.info().limits.dram_bytes, int64_t{8} << 30);
}

TEST(DeviceFake, ResetSetsUpTheInterrupt) {
  FakeBus bus;
  DeviceOptions o;
  o.msi_data = 0x1234;
  Device dev(bus, o);
  bus.log.clear();
  dev.Reset();
  const std::vector<uint32_t> control = bus.Writes(regs::kControl);
  ASSERT_EQ(control.size(), 1u);
  EXPECT_EQ(control[0], regs::kControlSoftResetMask | regs::kControlIrqEnableMask);
  EXPECT_EQ(bus.Writes(regs::kMsiAddrLo), std::vector<uint32_t>{0xfee00000});
  EXPECT_EQ(bus.Writes(regs::kMsiAddrHi), std::vector<uint32_t>{0});
  EXPECT_EQ(bus.Writes(regs::kMsiData), std::vector<uint32_t>{0x1234});
  EXPECT_EQ(bus.Writes(regs::kIrqMask),
            std::vector<uint32_t>{regs::kIrqMaskDoneMask | regs::kIrqMaskErrorMask});
  EXPECT_EQ(bus.Writes(regs::kIrqStatus), std::vector<uint32_t>{kBothIrqs});
  EXPECT_EQ(bus.log[0].offset, regs::kControl);  // the soft reset comes first
}

TEST(DeviceFake, RingIsSizedToTheProgram) {
  // Program length (with HALT) -> RING_SIZE: a ring of S slots holds S - 1 instructions.
  const std::pair<int, uint32_t> cases[] = {{1, 2}, {2, 4},  {3, 4},      {4, 8},
                                            {7, 8}, {8, 16}, {1000, 1024}};
  for (const auto& [length, slots] : cases) {
    FakeBus bus;
    Device dev(bus);
    const RunResult r = dev.Run(Program(length - 1));
    EXPECT_EQ(r.instructions, static_cast<uint64_t>(length));
    EXPECT_EQ(bus.Writes(regs::kRingSize), std::vector<uint32_t>{slots}) << length;
    EXPECT_EQ(bus.Writes(regs::kRingTail), std::vector<uint32_t>{uint32_t(length)}) << length;
    EXPECT_EQ(bus.Writes(regs::kRingBaseLo), std::vector<uint32_t>{0});
    EXPECT_EQ(bus.Writes(regs::kRingBaseHi), std::vector<uint32_t>{1});  // host_base 4 GiB
  }
}

TEST(DeviceFake, SlotsHoldLittleEndianWords) {
  FakeBus bus;
  Device dev(bus);
  isa::Matmul mm;
  mm.ub = 0x1234;
  mm.acc = 0x56;
  mm.rows = 0x78;
  const std::vector<isa::Instr> program = {isa::Nop{}, mm, isa::Halt{}};
  dev.Run(program);
  for (size_t i = 0; i < program.size(); ++i) {
    const isa::Words words = isa::Encode(program[i]);
    const std::vector<uint8_t> slot = bus.host_memory().Read(dev.options().host_base + 16 * i, 16);
    for (int b = 0; b < 16; ++b) {
      EXPECT_EQ(slot[b], static_cast<uint8_t>(words[b / 4] >> (8 * (b % 4))))
          << "slot " << i << " byte " << b;
    }
  }
}

TEST(DeviceFake, EveryRunStartsWithASoftResetAndClearsTheInterrupt) {
  FakeBus bus;
  Device dev(bus);
  dev.Run(Program(3));
  dev.Run(Program(5));
  int soft_resets = 0;
  for (uint32_t v : bus.Writes(regs::kControl)) {
    EXPECT_EQ(v, regs::kControlSoftResetMask | regs::kControlIrqEnableMask);
    ++soft_resets;
  }
  EXPECT_EQ(soft_resets, 2);
  // IRQ_STATUS cleared before the doorbell and after the run: it reads 0 at the end.
  const int doorbell = bus.LastWrite(regs::kRingTail, 6);
  ASSERT_GE(doorbell, 0);
  const int cleared_before = [&] {
    for (int i = doorbell; i >= 0; --i) {
      if (bus.log[i].write && bus.log[i].offset == regs::kControl) return -1;
      if (bus.log[i].write && bus.log[i].offset == regs::kIrqStatus) return i;
    }
    return -1;
  }();
  EXPECT_GE(cleared_before, 0) << "IRQ_STATUS not cleared between the soft reset and doorbell";
  EXPECT_GT(bus.LastWrite(regs::kIrqStatus, kBothIrqs), doorbell);
  EXPECT_EQ(bus.regs_[regs::kIrqStatus], 0u);
}

TEST(DeviceFake, PerfCountersAreReadLoThenHi) {
  FakeBus bus;
  Device dev(bus);
  for (int i = 0; i < regs::kPerfCount; ++i) {
    bus.perf[i] = (uint64_t{0x100} + i) << 32 | (0x80000000u + 7 * i);
  }
  const PerfCounters perf = dev.ReadPerf();
  for (int i = 0; i < regs::kPerfCount; ++i) EXPECT_EQ(perf[i], bus.perf[i]) << "counter " << i;
  const RunResult r = dev.Run(Program(1));
  for (int i = 0; i < regs::kPerfCount; ++i) EXPECT_EQ(r.perf[i], bus.perf[i]) << "counter " << i;
}

TEST(DeviceFake, StaleInterruptsAreDrainedByReset) {
  FakeBus bus;
  Device dev(bus);
  bus.msis = {0x51, 0x51};  // from before the driver took over
  const RunResult r = dev.Run(Program(2));
  EXPECT_TRUE(bus.msis.empty());
  EXPECT_GE(r.end_ns - r.start_ns, bus.run_ns);  // the run's own interrupt, not a stale one
}

TEST(DeviceFake, DmaBuffersFollowTheRing) {
  FakeBus bus;
  DeviceOptions o;
  o.max_ring_slots = 16;
  o.host_size = 16 * 16 + 4096;
  Device dev(bus, o);
  const DmaBuffer region = dev.dma_region();
  EXPECT_EQ(region.address, o.host_base + 256);
  EXPECT_EQ(region.size, 4096u);
  const DmaBuffer a = dev.AllocateDma(10);
  EXPECT_EQ(a.address, region.address);
  EXPECT_EQ(a.size, 10u);
  const DmaBuffer b = dev.AllocateDma(100, 1024);
  EXPECT_EQ(b.address % 1024, 0u);
  EXPECT_GE(b.address, a.address + a.size);
  EXPECT_THROW(dev.AllocateDma(8, 3), std::invalid_argument);
  EXPECT_THROW(dev.AllocateDma(4096), std::length_error);
  dev.ReleaseDma();
  EXPECT_EQ(dev.AllocateDma(4096).address, region.address);
}

}  // namespace
}  // namespace tpu::device
