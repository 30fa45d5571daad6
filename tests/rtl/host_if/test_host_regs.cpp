// The BAR0 register file tpu_host_regs against docs/registers.md, driven through the generated
// C++ map (tpu::regs offsets and masks) in every configuration built by
// testbench/host_if/CMakeLists.txt: reset values, read-only and reserved bits, byte enables,
// unmapped offsets, IRQ_STATUS write-1-to-clear, the PERF latch, the soft-reset and doorbell
// pulses, the MSI request rules, errors, and random traffic against the C++ model
// (host_regs_model.h) with random stalls on both sides. Every cycle the outputs are compared
// with the model's and every read response with the model's read. Random tests print their
// seed; set TPU_SEED to rerun with another base seed, TPU_TRACE=1 to dump waveforms.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "host_if/host_regs_harness.h"
#include "host_regs_model.h"
#include "regs/regs.h"

namespace tpu::tb {
namespace {

namespace r = tpu::regs;

using MakeFn = std::unique_ptr<HostRegsHarness> (*)(const HarnessOptions&);

struct Variant {
  const char* name;
  MakeFn make;
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

// Keep in step with the models built in testbench/host_if/CMakeLists.txt.
const Variant kVariants[] = {
    {"N8_small", &MakeHostRegsHarness<0>},
    {"N16_default", &MakeHostRegsHarness<1>},
};

std::string Describe(const HostRegsOutputs& o) {
  std::ostringstream s;
  s << std::hex << "{soft_reset " << o.soft_reset << " irq_enable " << o.irq_enable
    << " irq_mask " << int(o.irq_mask) << " msi_addr 0x" << o.msi_addr << " msi_data 0x"
    << o.msi_data << " ring_base 0x" << o.ring_base << " ring_size 0x" << o.ring_size
    << " ring_tail 0x" << o.ring_tail << " doorbell " << o.doorbell << " msi_request "
    << o.msi_request << "}";
  return s.str();
}

uint64_t BaseSeed() {
  const char* s = std::getenv("TPU_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 0) : 1;
}

uint32_t ByteMask(uint8_t be) {
  uint32_t m = 0;
  for (int b = 0; b < 4; ++b) {
    if ((be >> b) & 1) m |= 0xffu << (8 * b);
  }
  return m;
}

class HostRegsTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string name = std::string(info->test_suite_name()) + "." + info->name();
    dut_ = GetParam().make(TestHarnessOptions(name));
    model_ = std::make_unique<HostRegsModel>(dut_->config());
    seed_ = BaseSeed() * 1000003 + std::hash<std::string>()(name);
    dut_->Reset();
  }
  void TearDown() override { EXPECT_EQ(dut_->assertion_failures(), 0u); }

  // One clock cycle: offers a request (if `valid`), takes a pending response (if
  // `rsp_ready`), drives `status_`, checks the response and the outputs against the model.
  // Pulses in `status_` (irq, ring_fetch_error) last this one cycle. True if the request was
  // taken.
  bool Step(bool valid, bool write = false, uint32_t addr = 0, uint32_t wdata = 0,
            uint8_t be = 0xf, bool rsp_ready = true) {
    dut_->SetRequest(valid, write, addr, wdata, be);
    dut_->SetRspReady(rsp_ready);
    dut_->SetStatus(status_);
    dut_->Eval();
    const bool ready = dut_->req_ready();
    EXPECT_EQ(dut_->rsp_valid(), !expected_.empty()) << "cycle " << dut_->cycle();
    EXPECT_EQ(ready, expected_.empty() || rsp_ready) << "cycle " << dut_->cycle();
    if (dut_->rsp_valid() && rsp_ready && !expected_.empty()) {
      last_rdata_ = dut_->rsp_rdata();
      EXPECT_EQ(last_rdata_, expected_.front())
          << "read response, cycle " << dut_->cycle() << ", offset 0x" << std::hex
          << expected_addr_.front();
      expected_.pop_front();
      expected_addr_.pop_front();
      ++responses_;
    }
    const bool take = valid && ready;
    const uint32_t rdata = model_->Clock({take, write, addr, wdata, be}, status_);
    if (take && !write) {
      expected_.push_back(rdata);
      expected_addr_.push_back(addr);
    }
    dut_->Tick();
    status_.irq = false;
    status_.ring_fetch_error = false;
    const HostRegsOutputs got = dut_->outputs();
    if (got != model_->outputs()) {
      ADD_FAILURE() << "cycle " << dut_->cycle() << " outputs\n  got      " << Describe(got)
                    << "\n  expected " << Describe(model_->outputs());
    }
    soft_resets_ += got.soft_reset;
    doorbells_ += got.doorbell;
    msis_ += got.msi_request;
    return take;
  }

  void Idle(int cycles = 1) {
    for (int i = 0; i < cycles; ++i) Step(false);
  }

  // A read: offered until taken, then the response is awaited. Returns the data the DUT sent
  // (the model's expectation is checked in Step).
  uint32_t Read(uint32_t addr, uint8_t be = 0xf) {
    while (!Step(true, false, addr, 0, be)) {
    }
    const uint64_t before = responses_;
    while (responses_ == before) Step(false);
    return last_rdata_;
  }

  void Write(uint32_t addr, uint32_t data, uint8_t be = 0xf) {
    while (!Step(true, true, addr, data, be)) {
    }
  }

  // Core events: one-cycle irq pulses with done / error levels that stay.
  void CoreDone() {
    status_.running = false;
    status_.done = true;
    status_.irq = true;
    Step(false);
  }
  void CoreError(uint8_t code, uint32_t index) {
    status_.running = false;
    status_.error = true;
    status_.error_code = code;
    status_.error_index = index;
    status_.irq = true;
    Step(false);
  }
  void CoreStart() {  // what a start does to the core's status (no event)
    status_.running = true;
    status_.done = false;
    status_.error = false;
    status_.error_code = 0;
    status_.error_index = 0;
  }
  void FetchError() {
    status_.ring_fetch_error = true;
    Step(false);
  }

  // Every mapped register's value, read through the bus.
  std::vector<uint32_t> ReadAll() {
    std::vector<uint32_t> v;
    for (const r::RegisterInfo& reg : r::kRegisters) v.push_back(Read(reg.offset));
    return v;
  }

  const HostRegsConfig& config() const { return dut_->config(); }

  std::unique_ptr<HostRegsHarness> dut_;
  std::unique_ptr<HostRegsModel> model_;
  HostRegsStatus status_;
  std::deque<uint32_t> expected_, expected_addr_;
  uint32_t last_rdata_ = 0;
  uint64_t responses_ = 0, soft_resets_ = 0, doorbells_ = 0, msis_ = 0;
  uint64_t seed_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Reset values, read-only and reserved bits, byte enables, unmapped offsets
// ---------------------------------------------------------------------------------------------
TEST_P(HostRegsTest, ResetValueOfEveryRegister) {
  EXPECT_EQ(Describe(dut_->outputs()), Describe(HostRegsOutputs{}));
  for (const r::RegisterInfo& reg : r::kRegisters) {
    const uint32_t expected = reg.parameter_reset ? model_->ParameterValue(reg.offset) : reg.reset;
    EXPECT_EQ(Read(reg.offset), expected) << reg.name;
  }
  // The parameters, independently of the model.
  EXPECT_EQ(Read(r::kCapN), config().n);
  EXPECT_EQ(Read(r::kCapUbRows), config().ub_rows);
  EXPECT_EQ(Read(r::kCapAccRows), config().acc_rows);
  EXPECT_EQ(Read(r::kCapDramBytesLo), static_cast<uint32_t>(config().dram_bytes));
  EXPECT_EQ(Read(r::kCapDramBytesHi), static_cast<uint32_t>(config().dram_bytes >> 32));
  EXPECT_EQ(Read(r::kCapParamSets), config().param_sets);
  EXPECT_EQ(Read(r::kCapDma), config().max_payload | (config().max_read_req << 16));
  EXPECT_EQ(Read(r::kVersion), 3u | (config().hw_version << 16));  // ISA version 3
  EXPECT_EQ(Read(r::kId), 0x54505531u);
}

TEST_P(HostRegsTest, ReadOnlyRegistersIgnoreWrites) {
  // Give the read-only registers values other than their reset.
  status_.running = true;
  status_.dma_busy = true;
  status_.ring_head = 0x1234;
  for (int i = 0; i < kHostRegsPerfCounters; ++i) status_.perf[i] = 0x0123456789abcdefull + i;
  for (int i = 0; i < r::kPerfCount; ++i) Read(r::PerfLo(i));  // latch the HI halves
  const std::vector<uint32_t> before = ReadAll();
  for (const r::RegisterInfo& reg : r::kRegisters) {
    if (reg.access != r::Access::kRO) continue;
    const uint32_t value = Read(reg.offset);
    Write(reg.offset, ~value);
    Write(reg.offset, 0xffffffffu);
    Write(reg.offset, 0);
    EXPECT_EQ(Read(reg.offset), value) << reg.name;
  }
  EXPECT_EQ(ReadAll(), before);
  EXPECT_EQ(soft_resets_ + doorbells_ + msis_, 0u);
}

TEST_P(HostRegsTest, ReservedBitsReadZeroAndIgnoreWrites) {
  status_.error = true;  // IRQ_STATUS gets both bits set below
  for (const r::RegisterInfo& reg : r::kRegisters) {
    if (reg.access == r::Access::kRO) continue;
    SCOPED_TRACE(reg.name);
    uint32_t pulse_bits = 0;  // W1P fields read 0
    for (int i = 0; i < reg.num_fields; ++i) {
      if (reg.fields[i].access == r::Access::kW1P) {
        pulse_bits |= r::WithField(reg.fields[i], 0, ~0u);
      }
    }
    if (reg.access == r::Access::kRW1C) {
      CoreDone();
      status_.irq = true;
      Step(false);
      EXPECT_EQ(Read(reg.offset), reg.writable);
      Write(reg.offset, ~reg.writable);  // ones in reserved bits only: nothing cleared
      EXPECT_EQ(Read(reg.offset), reg.writable);
      Write(reg.offset, 0xffffffffu);
      EXPECT_EQ(Read(reg.offset), 0u);
      continue;
    }
    Write(reg.offset, 0xffffffffu);
    EXPECT_EQ(Read(reg.offset), reg.writable & ~pulse_bits);
    Write(reg.offset, ~reg.writable);
    EXPECT_EQ(Read(reg.offset), 0u);
  }
  // Every register, after all that: no bit outside a field.
  for (const r::RegisterInfo& reg : r::kRegisters) {
    EXPECT_EQ(Read(reg.offset) & ~reg.defined, 0u) << reg.name;
  }
}

TEST_P(HostRegsTest, ByteEnablesSelectTheWrittenBytes) {
  for (const r::RegisterInfo& reg : r::kRegisters) {
    if (reg.access != r::Access::kRW) continue;
    SCOPED_TRACE(reg.name);
    uint32_t keep = reg.writable;  // the bits that hold what was written
    for (int i = 0; i < reg.num_fields; ++i) {
      if (reg.fields[i].access == r::Access::kW1P) keep &= ~r::WithField(reg.fields[i], 0, ~0u);
    }
    for (int be = 0; be < 16; ++be) {
      const uint32_t bytes = ByteMask(uint8_t(be));
      Write(reg.offset, 0);
      Write(reg.offset, 0xa5c3e7ffu, uint8_t(be));
      EXPECT_EQ(Read(reg.offset), 0xa5c3e7ffu & bytes & keep) << "be " << be;
      Write(reg.offset, 0xffffffffu & ~(reg.writable & ~keep));  // ones, no pulse
      Write(reg.offset, 0x5a3c1800u, uint8_t(be));
      EXPECT_EQ(Read(reg.offset), ((0x5a3c1800u & bytes) | ~bytes) & keep) << "be " << be;
    }
  }
  // Side effects follow the bytes: no soft reset, doorbell or clear without their byte.
  const uint64_t resets = soft_resets_;
  Write(r::kControl, r::kControlSoftResetMask, 0xe);
  Idle();
  EXPECT_EQ(soft_resets_, resets);
  Write(r::kRingTail, 7);
  const uint64_t doorbells = doorbells_;
  Write(r::kRingTail, 0xffff0000u, 0xc);
  Write(r::kRingTail, 0, 0);
  Idle();
  EXPECT_EQ(doorbells_, doorbells);
  EXPECT_EQ(dut_->outputs().ring_tail, 7);
  Write(r::kRingTail, 0x0900, 0x2);  // byte 1 alone rings the doorbell
  Idle();
  EXPECT_EQ(doorbells_, doorbells + 1);
  EXPECT_EQ(dut_->outputs().ring_tail, 0x0907);
  CoreDone();
  Write(r::kIrqStatus, r::kIrqStatusDoneMask, 0xe);
  EXPECT_EQ(Read(r::kIrqStatus), r::kIrqStatusDoneMask);
}

TEST_P(HostRegsTest, UnmappedOffsetsReadZeroAndIgnoreWrites) {
  for (uint32_t off = 0; off < r::kBarBytes; off += 4) {
    if (r::FindRegister(off) == nullptr) Write(off, ~off);  // differs at every offset
  }
  int unmapped = 0;
  for (uint32_t off = 0; off < r::kBarBytes; off += 4) {
    if (r::FindRegister(off) != nullptr) continue;
    ++unmapped;
    EXPECT_EQ(Read(off), 0u) << "offset 0x" << std::hex << off;
  }
  EXPECT_EQ(unmapped, 1024 - int(r::kRegisters.size()));
  for (const r::RegisterInfo& reg : r::kRegisters) {
    const uint32_t expected = reg.parameter_reset ? model_->ParameterValue(reg.offset) : reg.reset;
    EXPECT_EQ(Read(reg.offset), expected) << reg.name;
  }
  EXPECT_EQ(soft_resets_ + doorbells_ + msis_, 0u);
  EXPECT_EQ(Describe(dut_->outputs()), Describe(HostRegsOutputs{}));
}

TEST_P(HostRegsTest, AddressAndDataOutputs) {
  Write(r::kMsiAddrLo, 0xfee01237u);
  Write(r::kMsiAddrHi, 0x00000001u);
  Write(r::kMsiData, 0xdead4321u);
  Write(r::kRingBaseLo, 0x8765432fu);
  Write(r::kRingBaseHi, 0xabcdef01u);
  Write(r::kRingTail, 0xffff0005u);
  Write(r::kIrqMask, 0xffffffffu);
  Write(r::kControl, r::kControlIrqEnableMask);
  const HostRegsOutputs o = dut_->outputs();
  EXPECT_EQ(o.msi_addr, 0x00000001fee01234ull);
  EXPECT_EQ(o.msi_data, 0x4321);
  EXPECT_EQ(o.ring_base, 0xabcdef0187654320ull);
  EXPECT_EQ(o.ring_tail, 5);
  EXPECT_EQ(o.irq_mask, 3);
  EXPECT_TRUE(o.irq_enable);
  EXPECT_EQ(Read(r::kMsiAddrLo), 0xfee01234u);
  EXPECT_EQ(Read(r::kMsiData), 0x4321u);
  EXPECT_EQ(Read(r::kRingBaseLo), 0x87654320u);
  EXPECT_EQ(Read(r::kRingTail), 5u);
}

TEST_P(HostRegsTest, RingSizeOutputOnlyWhenLegal) {
  const uint32_t sizes[] = {0,  1,    2,     3,      4,       6,       8,      12,     1024,
                            1000, 32768, 65536, 65535, 0x10001, 0x1ffff, 0x20000, 0x7fff0002};
  for (uint32_t size : sizes) {
    Write(r::kRingSize, size);
    const uint32_t held = size & r::kRingSizeSlotsMask;
    const bool legal = held >= 2 && (held & (held - 1)) == 0;
    EXPECT_EQ(Read(r::kRingSize), held) << size;
    EXPECT_EQ(dut_->outputs().ring_size, legal ? held : 0u) << size;
  }
}

// ---------------------------------------------------------------------------------------------
// IRQ_STATUS, PERF latch, pulses, MSI, errors
// ---------------------------------------------------------------------------------------------
TEST_P(HostRegsTest, IrqStatusIsWriteOneToClear) {
  CoreStart();
  Idle();
  EXPECT_EQ(Read(r::kIrqStatus), 0u);
  CoreDone();
  EXPECT_EQ(Read(r::kIrqStatus), r::kIrqStatusDoneMask);
  CoreStart();
  CoreError(0x12, 77);
  EXPECT_EQ(Read(r::kIrqStatus), r::kIrqStatusDoneMask | r::kIrqStatusErrorMask);
  Write(r::kIrqStatus, 0);  // writing 0 leaves the bits
  EXPECT_EQ(Read(r::kIrqStatus), r::kIrqStatusDoneMask | r::kIrqStatusErrorMask);
  Write(r::kIrqStatus, r::kIrqStatusDoneMask);
  EXPECT_EQ(Read(r::kIrqStatus), r::kIrqStatusErrorMask);
  Write(r::kIrqStatus, r::kIrqStatusErrorMask);
  EXPECT_EQ(Read(r::kIrqStatus), 0u);
  // The level staying high sets nothing again; only the irq pulse does.
  Idle(3);
  EXPECT_EQ(Read(r::kIrqStatus), 0u);
  // A clear and a new event at the same edge: the bit ends set.
  status_.irq = true;  // error_i is still high
  Write(r::kIrqStatus, r::kIrqStatusErrorMask);
  EXPECT_EQ(Read(r::kIrqStatus), r::kIrqStatusErrorMask);
}

TEST_P(HostRegsTest, ReadingPerfLoLatchesHi) {
  for (int i = 0; i < kHostRegsPerfCounters; ++i) {
    status_.perf[i] = (uint64_t(0x1000u + i) << 32) | (0x2000u + i);
  }
  for (int i = 0; i < r::kPerfCount; ++i) EXPECT_EQ(Read(r::PerfHi(i)), 0u) << i;
  EXPECT_EQ(Read(r::PerfLo(3)), 0x2003u);
  for (int i = 0; i < kHostRegsPerfCounters; ++i) status_.perf[i] += 0x500000000ull;
  EXPECT_EQ(Read(r::PerfHi(3)), 0x1003u);  // the half of the value read with LO
  EXPECT_EQ(Read(r::PerfHi(3)), 0x1003u);
  EXPECT_EQ(Read(r::PerfHi(4)), 0u);       // each counter latches on its own LO read
  EXPECT_EQ(Read(r::PerfLo(3), 0x0), 0x2003u);  // a zero-length read latches nothing
  EXPECT_EQ(Read(r::PerfHi(3)), 0x1003u);
  EXPECT_EQ(Read(r::PerfLo(3), 0x8), 0x2003u);  // any enabled byte latches
  EXPECT_EQ(Read(r::PerfHi(3)), 0x1008u);
  // A carry between the halves while the host reads: LO then HI give one 64-bit value.
  status_.perf[r::kPerfCycles] = 0x00000007fffffffeull;
  const uint32_t lo = Read(r::PerfLo(r::kPerfCycles));
  status_.perf[r::kPerfCycles] = 0x0000000800000005ull;
  const uint32_t hi = Read(r::PerfHi(r::kPerfCycles));
  EXPECT_EQ((uint64_t(hi) << 32) | lo, 0x00000007fffffffeull);
  for (int i = 0; i < r::kPerfCount; ++i) {
    Read(r::PerfLo(i));
    EXPECT_EQ(Read(r::PerfHi(i)), uint32_t(status_.perf[i] >> 32)) << r::kPerfNames[i];
  }
}

TEST_P(HostRegsTest, SoftResetPulseAndWhatItClears) {
  Write(r::kMsiAddrLo, 0x1000);
  Write(r::kMsiData, 0x55);
  Write(r::kRingBaseLo, 0x2000);
  Write(r::kRingSize, 16);
  Write(r::kIrqMask, 3);
  Write(r::kRingTail, 9);
  status_.perf[2] = 0x0000000900000001ull;
  Read(r::PerfLo(2));
  CoreError(0x13, 4);
  FetchError();  // ignored: the core's error came first
  EXPECT_EQ(Read(r::kIrqStatus), r::kIrqStatusErrorMask);
  EXPECT_EQ(Read(r::kErrorCode), 0x13u);
  EXPECT_EQ(Read(r::kErrorIndex), 4u);
  // The pulse: one cycle, in the cycle after the write, with irq_enable written alongside.
  const uint64_t before = soft_resets_;
  Write(r::kControl, r::kControlSoftResetMask | r::kControlIrqEnableMask);
  EXPECT_TRUE(dut_->outputs().soft_reset);
  EXPECT_TRUE(dut_->outputs().irq_enable);
  Idle();
  EXPECT_FALSE(dut_->outputs().soft_reset);
  EXPECT_EQ(soft_resets_, before + 1);
  EXPECT_EQ(Read(r::kControl), r::kControlIrqEnableMask);  // soft_reset reads 0
  // Cleared: RING_TAIL, IRQ_STATUS. Kept: the configuration and the PERF latches.
  EXPECT_EQ(Read(r::kRingTail), 0u);
  EXPECT_EQ(Read(r::kIrqStatus), 0u);
  EXPECT_EQ(Read(r::kMsiAddrLo), 0x1000u);
  EXPECT_EQ(Read(r::kMsiData), 0x55u);
  EXPECT_EQ(Read(r::kRingBaseLo), 0x2000u);
  EXPECT_EQ(Read(r::kRingSize), 16u);
  EXPECT_EQ(Read(r::kIrqMask), 3u);
  EXPECT_EQ(Read(r::PerfHi(2)), 9u);
  // Writing 0, or the bit without its byte, pulses nothing.
  Write(r::kControl, 0);
  Write(r::kControl, 0xffffffffu, 0xe);
  Idle();
  EXPECT_EQ(soft_resets_, before + 1);
  // Events while the pulse is out come from the core before it resets: dropped.
  CoreStart();
  Write(r::kControl, r::kControlSoftResetMask | r::kControlIrqEnableMask);
  CoreDone();  // in the pulse cycle
  Idle();
  EXPECT_EQ(Read(r::kIrqStatus), 0u);
  EXPECT_EQ(msis_, 0u);
}

TEST_P(HostRegsTest, DoorbellPulsesOnEveryTailWrite) {
  const uint64_t before = doorbells_;
  Write(r::kRingTail, 5);
  EXPECT_TRUE(dut_->outputs().doorbell);
  EXPECT_EQ(dut_->outputs().ring_tail, 5);  // the new tail comes with the pulse
  Idle();
  EXPECT_FALSE(dut_->outputs().doorbell);
  Write(r::kRingTail, 5);  // the same value rings again
  Write(r::kRingTail, 6);  // back to back: two pulses
  Idle();
  EXPECT_EQ(doorbells_, before + 3);
  Write(r::kRingHead, 1);  // RING_HEAD is read-only, not a doorbell
  Idle();
  EXPECT_EQ(doorbells_, before + 3);
}

TEST_P(HostRegsTest, MsiRequestRules) {
  struct Case {
    bool enable;
    uint32_t mask;
    bool error;  // event: error (else done)
    bool msi;
  };
  const Case cases[] = {
      {false, 0, false, false}, {false, 3, false, false}, {true, 0, false, false},
      {true, 1, false, true},   {true, 2, false, false},  {true, 3, false, true},
      {true, 2, true, true},    {true, 1, true, false},   {false, 2, true, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string("enable ") + (c.enable ? "1" : "0") + " mask " +
                 std::to_string(c.mask) + (c.error ? " error" : " done"));
    Write(r::kIrqStatus, 3);
    Write(r::kIrqMask, c.mask);
    Write(r::kControl, c.enable ? r::kControlIrqEnableMask : 0);
    CoreStart();
    Idle();
    const uint64_t before = msis_;
    if (c.error) {
      CoreError(0x11, 3);
    } else {
      CoreDone();
    }
    EXPECT_EQ(dut_->outputs().msi_request, c.msi);  // the cycle after the edge
    Idle(2);
    EXPECT_EQ(msis_, before + (c.msi ? 1 : 0));
  }
  // An event for a bit already set sends nothing; after the clear it sends again.
  Write(r::kIrqStatus, 3);
  Write(r::kIrqMask, 3);
  Write(r::kControl, r::kControlIrqEnableMask);
  uint64_t before = msis_;
  CoreStart();
  CoreDone();
  CoreStart();
  CoreDone();
  Idle();
  EXPECT_EQ(msis_, before + 1);
  Write(r::kIrqStatus, r::kIrqStatusDoneMask);
  CoreStart();
  CoreDone();
  Idle();
  EXPECT_EQ(msis_, before + 2);
  // Enabling later sends nothing for a bit already set.
  Write(r::kControl, 0);
  Write(r::kIrqStatus, 3);
  CoreStart();
  CoreDone();
  Write(r::kControl, r::kControlIrqEnableMask);
  Write(r::kIrqMask, 0);
  Write(r::kIrqMask, 3);
  Idle(2);
  EXPECT_EQ(msis_, before + 2);
  // A clear and an event at the same edge: the bit was cleared, so it becomes set again.
  CoreStart();
  status_.done = true;
  status_.irq = true;
  Write(r::kIrqStatus, r::kIrqStatusDoneMask);
  Idle();
  EXPECT_EQ(msis_, before + 3);
  // The mask and enable in force are those before the edge: written at the event's edge, they
  // apply from the next event on.
  Write(r::kIrqStatus, 3);
  Write(r::kIrqMask, 0);
  CoreStart();
  status_.done = true;
  status_.irq = true;
  Write(r::kIrqMask, 3);
  Idle();
  EXPECT_EQ(msis_, before + 3);
  EXPECT_EQ(Read(r::kIrqStatus), r::kIrqStatusDoneMask);
}

TEST_P(HostRegsTest, StatusAndErrorRegisters) {
  const std::pair<bool HostRegsStatus::*, uint32_t> bits[] = {
      {&HostRegsStatus::running, r::kStatusRunningMask},
      {&HostRegsStatus::done, r::kStatusDoneMask},
      {&HostRegsStatus::error, r::kStatusErrorMask},
      {&HostRegsStatus::dma_busy, r::kStatusDmaBusyMask},
  };
  for (const auto& [member, mask] : bits) {
    status_ = HostRegsStatus{};
    status_.*member = true;
    EXPECT_EQ(Read(r::kStatus), mask | r::kStatusRingEmptyMask);
  }
  status_ = HostRegsStatus{};
  Write(r::kRingTail, 3);
  EXPECT_EQ(Read(r::kStatus), 0u);  // head 0, tail 3
  status_.ring_head = 3;
  EXPECT_EQ(Read(r::kStatus), r::kStatusRingEmptyMask);
  EXPECT_EQ(Read(r::kRingHead), 3u);
  // ERROR_CODE / ERROR_INDEX read 0 until error_i, whatever the core's code holds.
  status_.error_code = 0x10;
  status_.error_index = 99;
  EXPECT_EQ(Read(r::kErrorCode), 0u);
  EXPECT_EQ(Read(r::kErrorIndex), 0u);
  CoreError(0x10, 99);
  EXPECT_EQ(Read(r::kErrorCode), 0x10u);
  EXPECT_EQ(Read(r::kErrorIndex), 99u);
  EXPECT_EQ(Read(r::kStatus) & r::kStatusErrorMask, r::kStatusErrorMask);
}

TEST_P(HostRegsTest, RingFetchError) {
  Write(r::kIrqMask, r::kIrqMaskErrorMask);
  Write(r::kControl, r::kControlIrqEnableMask);
  CoreStart();
  status_.error_index = 12;  // the core's own index is not an error
  FetchError();
  EXPECT_TRUE(dut_->outputs().msi_request);
  EXPECT_EQ(Read(r::kErrorCode), uint32_t(r::kErrRingFetchError));
  EXPECT_EQ(Read(r::kErrorIndex), 0u);
  EXPECT_EQ(Read(r::kStatus), r::kStatusErrorMask | r::kStatusRingEmptyMask);  // not running
  EXPECT_EQ(Read(r::kIrqStatus), r::kIrqStatusErrorMask);
  // The first error wins: a second fetch error or a core error later changes nothing, and
  // sends no MSI.
  Write(r::kIrqStatus, 3);
  FetchError();
  CoreError(0x13, 5);
  Idle();
  EXPECT_EQ(Read(r::kErrorCode), uint32_t(r::kErrRingFetchError));
  EXPECT_EQ(msis_, 1u);
  // Until a soft reset: then the core's status shows again.
  Write(r::kControl, r::kControlSoftResetMask);
  Idle();
  EXPECT_EQ(Read(r::kErrorCode), 0x13u);
  EXPECT_EQ(Read(r::kErrorIndex), 5u);
  CoreStart();
  Idle();
  EXPECT_EQ(Read(r::kErrorCode), 0u);
  EXPECT_EQ(Read(r::kStatus), r::kStatusRunningMask | r::kStatusRingEmptyMask);
}

// ---------------------------------------------------------------------------------------------
// Throughput and random traffic
// ---------------------------------------------------------------------------------------------
TEST_P(HostRegsTest, OneRequestPerCycleWhenTheReaderKeepsUp) {
  std::mt19937_64 rng(seed_);
  int taken = 0;
  for (int i = 0; i < 200; ++i) {
    const r::RegisterInfo& reg = r::kRegisters[rng() % r::kRegisters.size()];
    const bool write = rng() % 2 && reg.offset != r::kControl;
    taken += Step(true, write, reg.offset, uint32_t(rng()), 0xf);
  }
  EXPECT_EQ(taken, 200);
}

TEST_P(HostRegsTest, RandomTrafficAgainstTheModel) {
  for (int round = 0; round < 4; ++round) {
    const uint64_t seed = seed_ + round;
    std::printf("[   SEED   ] %s round %d: %" PRIu64 "\n", GetParam().name, round, seed);
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    auto chance = [&](int percent) { return int(rng() % 100) < percent; };
    dut_->Reset();
    model_->Reset();
    status_ = HostRegsStatus{};
    for (int i = 0; i < kHostRegsPerfCounters; ++i) status_.perf[i] = 0xffffff00ull * (i + 1);
    const int valid_pct = 40 + int(rng() % 60), ready_pct = 30 + int(rng() % 70);
    bool valid = false, write = false;
    uint32_t addr = 0, wdata = 0;
    uint8_t be = 0xf;
    uint64_t reads = 0, writes = 0;
    const uint64_t pulses_before = soft_resets_ + doorbells_ + msis_;
    for (int cycle = 0; cycle < 20000; ++cycle) {
      if (!valid && chance(valid_pct)) {  // a new request; held until taken
        valid = true;
        write = chance(50);
        const int where = int(rng() % 100);
        if (where < 75) {
          addr = r::kRegisters[rng() % r::kRegisters.size()].offset;
        } else if (where < 90) {
          addr = uint32_t(rng() % 0x60) * 4;  // among the control registers
        } else {
          addr = uint32_t(rng() % (r::kBarBytes / 4)) * 4;
        }
        const int kind = int(rng() % 10);
        wdata = kind == 0 ? 0 : kind == 1 ? ~0u : uint32_t(rng());
        // Mostly keep interrupts enabled, so that events send MSIs; soft resets now and then.
        if (write && addr == r::kControl) {
          if (chance(80)) wdata &= ~r::kControlSoftResetMask;
          if (chance(70)) wdata |= r::kControlIrqEnableMask;
        }
        if (write && addr == r::kIrqMask && chance(70)) wdata |= r::kIrqMaskDoneMask;
        be = chance(60) ? 0xf : uint8_t(rng() % 16);
      }
      // The core and the host interface move on.
      if (chance(4)) status_.running = !status_.running;
      if (chance(3)) {
        status_.done = chance(50);
        status_.error = !status_.done && chance(50);
        status_.error_code = uint8_t(rng() % 0x20);
        status_.error_index = uint32_t(rng() % 1000);
        status_.irq = (status_.done || status_.error) && chance(70);
      }
      status_.ring_fetch_error = chance(1);
      if (chance(5)) status_.ring_head = chance(50) ? dut_->outputs().ring_tail : uint16_t(rng());
      if (chance(5)) status_.dma_busy = !status_.dma_busy;
      for (auto& p : status_.perf) p += rng() % 3;
      const bool taken = Step(valid, write, addr, wdata, be, chance(ready_pct));
      if (taken) {
        (write ? writes : reads) += 1;
        valid = false;
      }
      if (::testing::Test::HasFailure()) break;
    }
    while (!expected_.empty()) Step(false);
    EXPECT_GT(reads, 2000u);
    EXPECT_GT(writes, 2000u);
    EXPECT_GT(soft_resets_ + doorbells_ + msis_, pulses_before);
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(soft_resets_, 0u);
  EXPECT_GT(doorbells_, 0u);
  EXPECT_GT(msis_, 0u);
}

INSTANTIATE_TEST_SUITE_P(Configs, HostRegsTest, ::testing::ValuesIn(kVariants),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace tpu::tb
