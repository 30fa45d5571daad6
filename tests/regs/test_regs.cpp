// The register map library (host_driver/regs): the generated tables are consistent, match the
// contract of docs/host_if.md section 2 (offsets, fields and resets written out here by hand,
// so that a change to regs/regs.json that breaks the contract fails), and the lookups and the
// formatter used for register dumps.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "regs/regs.h"

namespace tpu::regs {
namespace {

TEST(RegsTable, SortedByOffsetDwAlignedAndUnique) {
  std::set<std::string> names;
  uint32_t prev = 0;
  for (size_t i = 0; i < kRegisters.size(); ++i) {
    const RegisterInfo& r = kRegisters[i];
    SCOPED_TRACE(r.name);
    EXPECT_EQ(r.offset % 4, 0u);
    EXPECT_LT(r.offset, kBarBytes);
    if (i > 0) {
      EXPECT_GT(r.offset, prev);
    }
    prev = r.offset;
    EXPECT_TRUE(names.insert(r.name).second);
  }
}

TEST(RegsTable, FieldsConsistentWithMasks) {
  for (const RegisterInfo& r : kRegisters) {
    SCOPED_TRACE(r.name);
    ASSERT_GT(r.num_fields, 0);
    uint32_t defined = 0, writable = 0;
    for (int i = 0; i < r.num_fields; ++i) {
      const FieldInfo& f = r.fields[i];
      ASSERT_GE(f.lsb, 0);
      ASSERT_GE(f.width, 1);
      ASSERT_LE(f.lsb + f.width, kRegBits);
      const uint32_t mask = WithField(f, 0, ~0u);
      EXPECT_EQ(mask & defined, 0u) << f.name << " overlaps";
      defined |= mask;
      if (f.access != Access::kRO) writable |= mask;
      if (r.access == Access::kRO) {
        EXPECT_EQ(f.access, Access::kRO) << f.name;
      }
    }
    EXPECT_EQ(r.defined, defined);
    EXPECT_EQ(r.writable, writable);
    EXPECT_EQ(r.reset & ~r.defined, 0u);
    if (r.parameter_reset) {
      EXPECT_EQ(r.reset, 0u);
    }
  }
}

// docs/host_if.md section 2, written out.
TEST(RegsContract, Offsets) {
  EXPECT_EQ(kBarBytes, 4096u);
  EXPECT_EQ(kId, 0x000u);
  EXPECT_EQ(kVersion, 0x004u);
  EXPECT_EQ(kCapN, 0x008u);
  EXPECT_EQ(kCapUbRows, 0x00Cu);
  EXPECT_EQ(kCapAccRows, 0x010u);
  EXPECT_EQ(kCapDramBytesLo, 0x014u);
  EXPECT_EQ(kCapDramBytesHi, 0x020u);
  EXPECT_EQ(kCapParamSets, 0x018u);
  EXPECT_EQ(kCapDma, 0x01Cu);
  EXPECT_EQ(kControl, 0x040u);
  EXPECT_EQ(kStatus, 0x044u);
  EXPECT_EQ(kErrorCode, 0x048u);
  EXPECT_EQ(kErrorIndex, 0x04Cu);
  EXPECT_EQ(kIrqStatus, 0x050u);
  EXPECT_EQ(kIrqMask, 0x054u);
  EXPECT_EQ(kMsiAddrLo, 0x058u);
  EXPECT_EQ(kMsiAddrHi, 0x05Cu);
  EXPECT_EQ(kMsiData, 0x060u);
  EXPECT_EQ(kRingBaseLo, 0x080u);
  EXPECT_EQ(kRingBaseHi, 0x084u);
  EXPECT_EQ(kRingSize, 0x088u);
  EXPECT_EQ(kRingHead, 0x08Cu);
  EXPECT_EQ(kRingTail, 0x090u);
  ASSERT_EQ(kPerfCount, 10);
  for (int i = 0; i < kPerfCount; ++i) {
    EXPECT_EQ(PerfLo(i), 0x100u + 8 * i);
    EXPECT_EQ(PerfHi(i), 0x104u + 8 * i);
  }
  EXPECT_EQ(kDmaErrorCause, 0x064u);
  EXPECT_EQ(kWatchdog, 0x068u);
  EXPECT_EQ(kRegisters.size(), 25u + 2 * kPerfCount);
}

TEST(RegsContract, FieldsAndResets) {
  EXPECT_EQ(kIdReset, 0x54505531u);
  EXPECT_EQ(kVersionIsaVersionMask, 0x0000ffffu);
  EXPECT_EQ(kVersionHwVersionMask, 0xffff0000u);
  EXPECT_EQ(kCapDmaMaxPayloadMask, 0x0000ffffu);
  EXPECT_EQ(kCapDmaMaxReadReqMask, 0xffff0000u);
  EXPECT_EQ(kControlSoftResetMask, 1u << 0);
  EXPECT_EQ(kControlIrqEnableMask, 1u << 1);
  EXPECT_EQ(kControlReset, 0u);
  EXPECT_EQ(kStatusRunningMask, 1u << 0);
  EXPECT_EQ(kStatusDoneMask, 1u << 1);
  EXPECT_EQ(kStatusErrorMask, 1u << 2);
  EXPECT_EQ(kStatusRingEmptyMask, 1u << 3);
  EXPECT_EQ(kStatusDmaBusyMask, 1u << 4);
  EXPECT_EQ(kErrorCodeDefined, 0xffu);
  EXPECT_EQ(kIrqStatusDoneMask, 1u << 0);
  EXPECT_EQ(kIrqStatusErrorMask, 1u << 1);
  EXPECT_EQ(kIrqMaskDoneMask, 1u << 0);
  EXPECT_EQ(kIrqMaskErrorMask, 1u << 1);
  EXPECT_EQ(kMsiAddrLoWritable, 0xfffffffcu);
  EXPECT_EQ(kMsiAddrHiWritable, 0xffffffffu);
  EXPECT_EQ(kMsiDataWritable, 0x0000ffffu);
  EXPECT_EQ(kRingBaseLoWritable, 0xfffffff0u);
  EXPECT_EQ(kRingBaseHiWritable, 0xffffffffu);
  EXPECT_EQ(kRingSizeWritable, 0x0001ffffu);
  EXPECT_EQ(kRingHeadDefined, 0x0000ffffu);
  EXPECT_EQ(kRingTailWritable, 0x0000ffffu);
  EXPECT_EQ(kErrRingFetchError, 0x20);
  for (const RegisterInfo& r : kRegisters) {
    const std::string name = r.name;
    if (name == "VERSION" || name.rfind("CAP_", 0) == 0) {
      EXPECT_TRUE(r.parameter_reset) << name;
    } else {
      EXPECT_FALSE(r.parameter_reset) << name;
      EXPECT_EQ(r.reset, name == "ID" ? 0x54505531u : name == "STATUS" ? 0x8u : 0u) << name;
    }
  }
  // Names of docs/controller.md section 4 without the perf_ prefix, in perf_o order.
  const char* counters[] = {"cycles",   "mxu_busy",     "stall_weights", "stall_act_in",
                            "stall_dma", "stall_dep",   "rows_dma",      "rows_weights",
                            "rows_matrix", "rows_act"};
  for (int i = 0; i < kPerfCount; ++i) EXPECT_STREQ(kPerfNames[i], counters[i]);
  EXPECT_EQ(kPerfRowsAct, 9);
}

TEST(RegsLookup, ByOffsetAndName) {
  ASSERT_NE(FindRegister(kRingTail), nullptr);
  EXPECT_STREQ(FindRegister(kRingTail)->name, "RING_TAIL");
  EXPECT_STREQ(FindRegister(kRingTail + 2)->name, "RING_TAIL");  // bits 1:0 ignored
  EXPECT_STREQ(FindRegister(PerfHi(kPerfStallDma))->name, "PERF_4_HI");
  EXPECT_STREQ(FindRegister(0x020u)->name, "CAP_DRAM_BYTES_HI");
  EXPECT_EQ(FindRegister(0x024u), nullptr);
  EXPECT_EQ(FindRegister(0xffcu), nullptr);
  EXPECT_EQ(FindRegister("PERF_9_LO")->offset, PerfLo(9));
  EXPECT_EQ(FindRegister("ring_tail"), nullptr);
  const RegisterInfo& control = *FindRegister("CONTROL");
  ASSERT_NE(FindField(control, "irq_enable"), nullptr);
  EXPECT_EQ(FindField(control, "irq_enable")->lsb, kControlIrqEnableShift);
  EXPECT_EQ(FindField(control, "enable"), nullptr);
}

TEST(RegsFormat, FieldValues) {
  const RegisterInfo& cap_dma = *FindRegister(kCapDma);
  const FieldInfo& mrrs = *FindField(cap_dma, "max_read_req");
  EXPECT_EQ(FieldValue(mrrs, 0x02000100u), 512u);
  EXPECT_EQ(WithField(mrrs, 0x00000100u, 512), 0x02000100u);
  EXPECT_EQ(WithField(mrrs, 0, 0x12345), 0x23450000u);  // bits that do not fit are dropped
  const FieldInfo& addr = *FindField(*FindRegister(kRingBaseLo), "addr");
  EXPECT_EQ(FieldValue(addr, 0x1234567fu), 0x12345670u);  // in place
  EXPECT_EQ(WithField(addr, 0, 0xabcdef12u), 0xabcdef10u);
}

TEST(RegsFormat, RegisterLines) {
  EXPECT_EQ(FormatRegister(*FindRegister(kControl), 0x2),
            "CONTROL        0x040 = 0x00000002  soft_reset=0 irq_enable=1");
  EXPECT_EQ(FormatRegister(*FindRegister(kStatus), 0xa),
            "STATUS         0x044 = 0x0000000a  running=0 done=1 error=0 ring_empty=1 dma_busy=0");
  EXPECT_EQ(FormatRegister(*FindRegister(kErrorCode), 0x13),
            "ERROR_CODE     0x048 = 0x00000013  code=0x13 (DMA_ERROR)");
  EXPECT_EQ(FormatRegister(*FindRegister(kErrorCode), 0x20),
            "ERROR_CODE     0x048 = 0x00000020  code=0x20 (RING_FETCH_ERROR)");
  EXPECT_EQ(FormatRegister(*FindRegister(kMsiAddrLo), 0xfee00001u),
            "MSI_ADDR_LO    0x058 = 0xfee00001  addr=0xfee00000 reserved=0x1");
  EXPECT_EQ(FormatRegister(*FindRegister(kCapDma), 0x02000100u),
            "CAP_DMA        0x01c = 0x02000100  max_payload=256 max_read_req=512");
  EXPECT_EQ(FormatRegister(*FindRegister(PerfLo(kPerfCycles)), 1234),
            "PERF_0_LO      0x100 = 0x000004d2  value=1234");
}

TEST(RegsFormat, ErrorCodeNames) {
  EXPECT_EQ(ErrorCodeName(0), "OK");
  EXPECT_EQ(ErrorCodeName(1), "ILLEGAL_OPCODE");
  EXPECT_EQ(ErrorCodeName(0x20), "RING_FETCH_ERROR");
  EXPECT_EQ(ErrorCodeName(0x21), "WATCHDOG");
  EXPECT_EQ(ErrorCodeName(0x22), "ERROR_34");
  EXPECT_STREQ(AccessName(Access::kRW1C), "RW1C");
  EXPECT_STREQ(AccessName(FindRegister(kControl)->fields[0].access), "W1P");
}

}  // namespace
}  // namespace tpu::regs
