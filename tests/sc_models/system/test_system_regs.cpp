// BAR0 registers through the whole system (docs/registers.md): single-DW memory reads and
// writes from the root complex over the modeled PCIe link into the Verilated register file of
// configuration 1 (N 16, UB 4096 rows, ACC 1024 rows, DRAM 4 MiB, 64 parameter sets, MPS 256,
// MRRS 512). Every register of tpu::regs::kRegisters is checked against the generated map:
// reset values, and that a write changes only its writable bits.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "device/device.h"
#include "host_if/top_model.h"
#include "isa/isa.h"
#include "regs/regs.h"
#include "sc_models/system/tpu_system.h"
#include "system_testing.h"

namespace tpu::sys {
namespace {

TpuSystem* g_system = nullptr;
bool g_used = false;  // an earlier test of this process has run jobs on the system

// Configuration 1's capabilities, as the brief of the device fixes them.
constexpr uint32_t kN = 16, kUbRows = 262144, kAccRows = 1024, kDramBytes = 4194304;
constexpr uint32_t kParamSets = 64, kMaxPayload = 256, kMaxReadReq = 512, kHwVersion = 1;

// The reset value a register must read: the map's, or configuration 1's for parameter resets.
uint32_t ExpectedReset(const regs::RegisterInfo& r) {
  if (!r.parameter_reset) return r.reset;
  switch (r.offset) {
    case regs::kVersion:
      return kHwVersion << regs::kVersionHwVersionShift |
             static_cast<uint32_t>(isa::kIsaVersion) << regs::kVersionIsaVersionShift;
    case regs::kCapN: return kN;
    case regs::kCapUbRows: return kUbRows;
    case regs::kCapAccRows: return kAccRows;
    case regs::kCapDramBytesLo: return kDramBytes;
    case regs::kCapDramBytesHi: return 0;  // 4 MiB
    case regs::kCapParamSets: return kParamSets;
    case regs::kCapDma:
      return kMaxReadReq << regs::kCapDmaMaxReadReqShift |
             kMaxPayload << regs::kCapDmaMaxPayloadShift;
    default: ADD_FAILURE() << r.name << ": a parameter reset this test does not know"; return 0;
  }
}

// Bits of the register's fields with the given access.
uint32_t BitsOf(const regs::RegisterInfo& r, regs::Access access) {
  uint32_t bits = 0;
  for (int f = 0; f < r.num_fields; ++f) {
    const regs::FieldInfo& field = r.fields[f];
    if (field.access != access) continue;
    bits |= (field.width == 32 ? 0xFFFFFFFFu : ((1u << field.width) - 1) << field.lsb);
  }
  return bits;
}

// Soft reset, then the configuration registers (which a soft reset keeps) written back to
// their reset values: the state of a fresh elaboration, as far as registers show it.
void BackToReset(device::DeviceBus& bus) {
  bus.WriteRegister(regs::kControl, regs::kControlSoftResetMask);
  for (uint32_t offset : {regs::kIrqMask, regs::kMsiAddrLo, regs::kMsiAddrHi, regs::kMsiData,
                          regs::kRingBaseLo, regs::kRingBaseHi, regs::kRingSize}) {
    bus.WriteRegister(offset, 0);
  }
  for (int i = 0; i < regs::kPerfCount; ++i) bus.ReadRegister(regs::PerfLo(i));  // HI latches
  bus.ReadRegister(regs::kStatus);
  while (bus.WaitForInterrupt(0)) {
  }
}

// After elaboration every register reads its reset value. Run as the first test of a fresh
// process (ctest) it sees the power-on state; after other tests it first soft-resets and writes
// the configuration back (the soft reset keeps it by design).
TEST(SystemRegisters, EveryRegisterReadsItsResetValue) {
  const tb::TopConfig& top = g_system->device().top_config();
  EXPECT_EQ(top.limits.n, kN);
  EXPECT_EQ(top.max_payload, static_cast<int>(kMaxPayload));
  const bool fresh = !g_used;
  g_used = true;
  std::printf("%s\n", fresh ? "fresh elaboration" : "after other tests: soft reset first");
  g_system->Run([&](device::DeviceBus& bus) {
    if (!fresh) BackToReset(bus);
    for (const regs::RegisterInfo& r : regs::kRegisters) {
      const uint32_t value = bus.ReadRegister(r.offset);
      EXPECT_EQ(value, ExpectedReset(r)) << regs::FormatRegister(r, value);
      EXPECT_EQ(value & ~r.defined, 0u) << r.name << ": reserved bits set";
    }
  });
}

// Writing all ones and then zero changes only the writable bits, each as its access type says:
// RW bits take the value, RW1C bits (IRQ_STATUS: 0 here, nothing pending) stay 0, W1P bits
// (CONTROL.soft_reset) read 0, RO and reserved bits keep their value.
// Side effects, handled deliberately: CONTROL's all-ones write pulses soft_reset, which on an
// idle device resets nothing a later check depends on; RING_TAIL's writes ring the doorbell,
// which starts nothing while RING_SIZE is 0 (the ring is off): RING_SIZE is back at 0 by then
// (each register is written back to zero before the next, and RING_SIZE comes first).
TEST(SystemRegisters, WritesChangeOnlyWritableBits) {
  g_used = true;
  g_system->Run([&](device::DeviceBus& bus) {
    BackToReset(bus);
    for (const regs::RegisterInfo& r : regs::kRegisters) {
      const uint32_t before = bus.ReadRegister(r.offset);
      const uint32_t rw = BitsOf(r, regs::Access::kRW);
      ASSERT_EQ(rw & ~r.writable, 0u) << r.name;
      bus.WriteRegister(r.offset, 0xFFFFFFFFu);
      const uint32_t ones = bus.ReadRegister(r.offset);
      EXPECT_EQ(ones, (before & ~r.writable) | rw)
          << r.name << " after writing 0xffffffff: " << regs::FormatRegister(r, ones);
      bus.WriteRegister(r.offset, 0);
      const uint32_t zero = bus.ReadRegister(r.offset);
      EXPECT_EQ(zero, before & ~r.writable)
          << r.name << " after writing 0: " << regs::FormatRegister(r, zero);
      if (r.offset == regs::kRingTail) {
        // The doorbell with the ring off started nothing.
        const uint32_t status = bus.ReadRegister(regs::kStatus);
        EXPECT_EQ(status & regs::kStatusRunningMask, 0u) << regs::FormatRegister(
            *regs::FindRegister(regs::kStatus), status);
        EXPECT_EQ(bus.ReadRegister(regs::kRingHead), 0u);
      }
    }
    // Nothing above may have raised an interrupt (no MSI address was set, but IRQ_STATUS
    // would show an event).
    EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), 0u);
  });
}

// Partial values: every RW register holds a pattern of its own, all at the same time (no two
// registers alias), and reads back exactly the writable part.
TEST(SystemRegisters, RwRegistersHoldIndependentValues) {
  g_used = true;
  g_system->Run([&](device::DeviceBus& bus) {
    BackToReset(bus);
    std::vector<std::pair<const regs::RegisterInfo*, uint32_t>> written;
    uint32_t pattern = 0x9E3779B9u;
    for (const regs::RegisterInfo& r : regs::kRegisters) {
      if (r.access != regs::Access::kRW || r.offset == regs::kControl ||
          r.offset == regs::kRingTail) {
        continue;  // CONTROL: soft reset; RING_TAIL: the doorbell (covered above)
      }
      pattern = pattern * 1664525u + 1013904223u;
      bus.WriteRegister(r.offset, pattern);
      written.push_back({&r, pattern & r.writable});
    }
    ASSERT_GE(written.size(), 7u);  // IRQ_MASK, MSI_ADDR_LO/HI, MSI_DATA, RING_BASE_LO/HI, SIZE
    for (const auto& [r, want] : written) {
      EXPECT_EQ(bus.ReadRegister(r->offset), want) << r->name;
    }
    BackToReset(bus);
  });
}

// Unmapped offsets read 0 and ignore writes (docs/registers.md, access rules).
TEST(SystemRegisters, UnmappedOffsetsReadZero) {
  g_used = true;
  g_system->Run([&](device::DeviceBus& bus) {
    BackToReset(bus);
    for (uint32_t offset : {0x024u, 0x03Cu, 0x06Cu, 0x07Cu, 0x094u, 0x0FCu, 0x150u, 0x800u,
                            0xFFCu}) {
      ASSERT_EQ(regs::FindRegister(offset), nullptr) << offset;
      bus.WriteRegister(offset, 0xFFFFFFFFu);
      EXPECT_EQ(bus.ReadRegister(offset), 0u) << "BAR0 offset 0x" << std::hex << offset;
    }
    // ... and the writes reached no register.
    for (const regs::RegisterInfo& r : regs::kRegisters) {
      EXPECT_EQ(bus.ReadRegister(r.offset), ExpectedReset(r)) << r.name;
    }
  });
}

// A soft reset after a program brings the device state (STATUS, IRQ_STATUS, RING_HEAD,
// RING_TAIL, the counters) back to reset and keeps the configuration (MSI, mask, ring).
TEST(SystemRegisters, SoftResetClearsStateAndKeepsConfiguration) {
  g_used = true;
  g_system->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus);
    const uint64_t buffer = dev.dma_region().address;
    // A program that leaves traces: UB rows written (PERF rows_dma), cycles, RING_HEAD 3.
    isa::ReadHost read;
    read.target = isa::Target::kUb;
    read.host = buffer;
    read.length = 100;
    dev.Run({read, isa::Nop{}, isa::Halt{}});
    // Device::Run clears IRQ_STATUS when it is done; set done again with a raw program that
    // nothing clears.
    const uint64_t ring = dev.options().host_base;
    bus.WriteRegister(regs::kControl, regs::kControlSoftResetMask | regs::kControlIrqEnableMask);
    testing::WriteSlots(bus.host_memory(), ring, 0,
                        {isa::Encode(read), isa::Encode(isa::Nop{}), isa::Encode(isa::Halt{})});
    bus.WriteRegister(regs::kRingTail, 3);
    int msis = 0;
    const uint32_t status = testing::PollStopped(bus, 100'000, &msis);
    ASSERT_NE(status & regs::kStatusDoneMask, 0u);
    EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), regs::kIrqStatusDoneMask);
    EXPECT_EQ(bus.ReadRegister(regs::kRingHead), 3u);
    EXPECT_NE(bus.ReadRegister(regs::PerfLo(regs::kPerfCycles)), 0u);
    EXPECT_EQ(bus.ReadRegister(regs::PerfLo(regs::kPerfRowsDma)), 7u);  // ceil(100 / 16)
    const uint32_t mask = bus.ReadRegister(regs::kIrqMask);
    const uint32_t msi_lo = bus.ReadRegister(regs::kMsiAddrLo);
    const uint32_t msi_hi = bus.ReadRegister(regs::kMsiAddrHi);
    const uint32_t msi_data = bus.ReadRegister(regs::kMsiData);
    const uint32_t size = bus.ReadRegister(regs::kRingSize);
    EXPECT_EQ(mask, regs::kIrqMaskDoneMask | regs::kIrqMaskErrorMask);
    EXPECT_EQ(msi_lo, static_cast<uint32_t>(bus.msi_address()));

    bus.WriteRegister(regs::kControl, regs::kControlSoftResetMask);
    EXPECT_EQ(bus.ReadRegister(regs::kStatus), regs::kStatusReset);
    EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), 0u);
    EXPECT_EQ(bus.ReadRegister(regs::kErrorCode), 0u);
    EXPECT_EQ(bus.ReadRegister(regs::kRingHead), 0u);
    EXPECT_EQ(bus.ReadRegister(regs::kRingTail), 0u);
    for (int i = 0; i < regs::kPerfCount; ++i) {
      EXPECT_EQ(bus.ReadRegister(regs::PerfLo(i)), 0u) << regs::kPerfNames[i];
      EXPECT_EQ(bus.ReadRegister(regs::PerfHi(i)), 0u) << regs::kPerfNames[i];
    }
    EXPECT_EQ(bus.ReadRegister(regs::kControl), 0u);  // irq_enable: as the reset write said
    EXPECT_EQ(bus.ReadRegister(regs::kIrqMask), mask);
    EXPECT_EQ(bus.ReadRegister(regs::kMsiAddrLo), msi_lo);
    EXPECT_EQ(bus.ReadRegister(regs::kMsiAddrHi), msi_hi);
    EXPECT_EQ(bus.ReadRegister(regs::kMsiData), msi_data);
    EXPECT_EQ(bus.ReadRegister(regs::kRingBaseLo), static_cast<uint32_t>(ring));
    EXPECT_EQ(bus.ReadRegister(regs::kRingBaseHi), static_cast<uint32_t>(ring >> 32));
    EXPECT_EQ(bus.ReadRegister(regs::kRingSize), size);
    BackToReset(bus);
  });
}

}  // namespace
}  // namespace tpu::sys

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tpu::sys::TpuSystem system(tpu::sys::SystemConfig{}, tpu::tb::MakeTopModel<1>());
  tpu::sys::g_system = &system;
  return RUN_ALL_TESTS();
}
