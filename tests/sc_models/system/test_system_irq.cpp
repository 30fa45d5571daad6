// Interrupts through the whole system (docs/registers.md, "Interrupts"): raw register access
// over the modeled PCIe link, no driver. The done and error events send one MSI each (a 1-DW
// memory write of MSI_DATA to MSI_ADDR, which the root complex takes as an interrupt), only on
// a bit that becomes set while IRQ_MASK and CONTROL.irq_enable allow it; IRQ_STATUS records
// every event either way.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "host_if/top_model.h"
#include "isa/isa.h"
#include "regs/regs.h"
#include "sc_models/system/tpu_system.h"
#include "system_testing.h"

namespace tpu::sys {
namespace {

TpuSystem* g_system = nullptr;

constexpr uint64_t kRing = 0x2'0000'0000ull;
constexpr uint32_t kSlots = 4;
constexpr double kProgramNs = 50'000;  // far more than a program of a few NOPs takes
constexpr double kQuietNs = 20'000;    // how long "no further MSI" is watched for
constexpr uint32_t kBoth = regs::kIrqMaskDoneMask | regs::kIrqMaskErrorMask;

// Ring slots (functions: no static initialization that depends on another file's tables).
isa::Words Nop() { return isa::Encode(isa::Nop{}); }
isa::Words Halt() { return isa::Encode(isa::Halt{}); }
isa::Words Illegal() { return {0, 0, 0, 0}; }  // opcode 0x00: ILLEGAL_OPCODE

std::string Status(uint32_t value) {
  return regs::FormatRegister(*regs::FindRegister(regs::kStatus), value);
}

// Every MSI that arrives within `ns`.
std::vector<uint32_t> MsisWithin(device::DeviceBus& bus, double ns) {
  std::vector<uint32_t> msis;
  const double end = bus.now_ns() + ns;
  for (double left = ns; left > 0; left = end - bus.now_ns()) {
    std::optional<uint32_t> irq = bus.WaitForInterrupt(left);
    if (!irq) break;
    msis.push_back(*irq);
  }
  return msis;
}

// The done MSI carries MSI_DATA and comes once; a second program that ends while
// IRQ_STATUS.done is still set sends none; once the host clears it (RW1C), the next one does.
TEST(SystemIrq, DoneMsiCarriesMsiDataOncePerRun) {
  g_system->Run([&](device::DeviceBus& bus) {
    const uint64_t received = g_system->root_complex().interrupts_received();
    testing::RawSetup(bus, kRing, kSlots, 0xBEEF, kBoth, true);
    testing::WriteSlots(bus.host_memory(), kRing, 0, {Nop(), Halt()});
    bus.WriteRegister(regs::kRingTail, 2);
    std::vector<uint32_t> msis = MsisWithin(bus, kProgramNs);
    ASSERT_EQ(msis.size(), 1u);
    EXPECT_EQ(msis[0], 0xBEEFu);
    EXPECT_EQ(g_system->root_complex().interrupts_received() - received, 1u);
    EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), regs::kIrqStatusDoneMask);
    const uint32_t status = bus.ReadRegister(regs::kStatus);
    EXPECT_EQ(status & (regs::kStatusDoneMask | regs::kStatusRunningMask |
                        regs::kStatusErrorMask),
              regs::kStatusDoneMask)
        << Status(status);
    EXPECT_EQ(bus.ReadRegister(regs::kRingHead), 2u);

    // Slots 2 and 3, the tail wraps to 0: the program runs, IRQ_STATUS.done is still set, no MSI.
    testing::WriteSlots(bus.host_memory(), kRing, 2, {Nop(), Halt()});
    bus.WriteRegister(regs::kRingTail, 0);
    msis = MsisWithin(bus, kProgramNs);
    EXPECT_TRUE(msis.empty()) << msis.size() << " MSIs for a bit that was already set";
    EXPECT_EQ(bus.ReadRegister(regs::kRingHead), 0u) << "the second program did not run";
    EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), regs::kIrqStatusDoneMask);

    // Clearing sends nothing; the next done sends one MSI again.
    bus.WriteRegister(regs::kIrqStatus, regs::kIrqStatusDoneMask);
    EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), 0u);
    testing::WriteSlots(bus.host_memory(), kRing, 0, {Nop(), Halt()});
    bus.WriteRegister(regs::kRingTail, 2);
    msis = MsisWithin(bus, kProgramNs);
    ASSERT_EQ(msis.size(), 1u);
    EXPECT_EQ(msis[0], 0xBEEFu);
    EXPECT_EQ(g_system->root_complex().interrupts_received() - received, 2u);
  });
}

// The error MSI carries MSI_DATA too, once; IRQ_STATUS shows error (not done), STATUS.error,
// ERROR_CODE and ERROR_INDEX say what and where; the soft reset clears them.
TEST(SystemIrq, ErrorMsiCarriesMsiDataOnce) {
  g_system->Run([&](device::DeviceBus& bus) {
    testing::RawSetup(bus, kRing, kSlots, 0x1234, kBoth, true);
    testing::WriteSlots(bus.host_memory(), kRing, 0, {Nop(), Illegal(), Halt()});
    bus.WriteRegister(regs::kRingTail, 3);
    const std::vector<uint32_t> msis = MsisWithin(bus, kProgramNs + kQuietNs);
    ASSERT_EQ(msis.size(), 1u);
    EXPECT_EQ(msis[0], 0x1234u);
    EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), regs::kIrqStatusErrorMask);
    const uint32_t status = bus.ReadRegister(regs::kStatus);
    EXPECT_EQ(status & (regs::kStatusDoneMask | regs::kStatusRunningMask |
                        regs::kStatusErrorMask),
              regs::kStatusErrorMask)
        << Status(status);
    EXPECT_EQ(bus.ReadRegister(regs::kErrorCode),
              static_cast<uint32_t>(isa::Error::kIllegalOpcode));
    EXPECT_EQ(bus.ReadRegister(regs::kErrorIndex), 1u);

    bus.WriteRegister(regs::kControl, regs::kControlSoftResetMask | regs::kControlIrqEnableMask);
    EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), 0u);
    EXPECT_EQ(bus.ReadRegister(regs::kErrorCode), 0u);
    EXPECT_EQ(bus.ReadRegister(regs::kErrorIndex), 0u);
    EXPECT_EQ(bus.ReadRegister(regs::kStatus), regs::kStatusReset);
    EXPECT_TRUE(MsisWithin(bus, kQuietNs).empty());
  });
}

// IRQ_MASK 0: no MSI, but IRQ_STATUS records done and error; unmasking a bit that is already
// set sends nothing.
TEST(SystemIrq, MaskedEventsSetStatusWithoutMsi) {
  g_system->Run([&](device::DeviceBus& bus) {
    const uint64_t received = g_system->root_complex().interrupts_received();
    testing::RawSetup(bus, kRing, kSlots, 0x77, 0, true);
    testing::WriteSlots(bus.host_memory(), kRing, 0, {Nop(), Halt()});
    bus.WriteRegister(regs::kRingTail, 2);
    int msis = 0;
    const uint32_t status = testing::PollStopped(bus, kProgramNs, &msis);
    EXPECT_NE(status & regs::kStatusDoneMask, 0u) << Status(status);
    EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), regs::kIrqStatusDoneMask);
    EXPECT_EQ(msis, 0);
    bus.WriteRegister(regs::kIrqMask, kBoth);
    EXPECT_TRUE(MsisWithin(bus, kQuietNs).empty()) << "MSI for a bit set before its unmasking";

    // Error with only done unmasked: no MSI either.
    testing::RawSetup(bus, kRing, kSlots, 0x78, regs::kIrqMaskDoneMask, true);
    testing::WriteSlots(bus.host_memory(), kRing, 0, {Illegal(), Halt()});
    bus.WriteRegister(regs::kRingTail, 2);
    const uint32_t status2 = testing::PollStopped(bus, kProgramNs, &msis);
    EXPECT_NE(status2 & regs::kStatusErrorMask, 0u) << Status(status2);
    EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), regs::kIrqStatusErrorMask);
    EXPECT_TRUE(MsisWithin(bus, kQuietNs).empty());
    EXPECT_EQ(msis, 0);
    EXPECT_EQ(g_system->root_complex().interrupts_received(), received);
  });
}

// CONTROL.irq_enable 0 with both events unmasked: no MSI, IRQ_STATUS set; enabling it later
// sends nothing for the bit already set.
TEST(SystemIrq, IrqEnableOffSendsNoMsi) {
  g_system->Run([&](device::DeviceBus& bus) {
    const uint64_t received = g_system->root_complex().interrupts_received();
    testing::RawSetup(bus, kRing, kSlots, 0x99, kBoth, false);
    testing::WriteSlots(bus.host_memory(), kRing, 0, {Nop(), Halt()});
    bus.WriteRegister(regs::kRingTail, 2);
    int msis = 0;
    const uint32_t status = testing::PollStopped(bus, kProgramNs, &msis);
    EXPECT_NE(status & regs::kStatusDoneMask, 0u) << Status(status);
    EXPECT_EQ(bus.ReadRegister(regs::kIrqStatus), regs::kIrqStatusDoneMask);
    bus.WriteRegister(regs::kControl, regs::kControlIrqEnableMask);
    EXPECT_TRUE(MsisWithin(bus, kQuietNs).empty());
    EXPECT_EQ(msis, 0);
    EXPECT_EQ(g_system->root_complex().interrupts_received(), received);
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
