// The device end to end (rtl/tpu_top.sv = host interface + core) with a root-complex model on
// its TLP streams and the weight-DRAM model on its DRAM pins (testbench/host_if/top_bench.h):
// the host writes registers with MWr TLPs and reads them with MRd TLPs, places programs
// (tpu::isa::Encode) in the instruction ring and their data in host memory, rings the
// doorbell and waits for the MSI. Dense layers lowered by tpu::compiler::LowerDense are checked
// against tpu::golden::Dense; errors (DMA_ERROR from a failing completion or a timeout, a
// failing ring fetch) and soft resets are followed by good programs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "compiler/dense_lowering.h"
#include "dense_case.h"
#include "host_if/top_bench.h"
#include "regs/regs.h"
#include "top_testing.h"

namespace tpu::tb {
namespace {

TEST(TpuTop, RegistersOverTlps) {
  auto b = MakeBench(false, 1, "tpu_top_regs");
  const TopConfig& c = b->config();
  EXPECT_EQ(b->ReadReg(regs::kId), regs::kIdReset);
  EXPECT_EQ(b->ReadReg(regs::kCapN), static_cast<uint32_t>(c.limits.n));
  EXPECT_EQ(b->ReadReg(regs::kCapUbRows), static_cast<uint32_t>(c.limits.ub_rows));
  EXPECT_EQ(b->ReadReg(regs::kCapAccRows), static_cast<uint32_t>(c.limits.acc_rows));
  EXPECT_EQ(b->ReadReg(regs::kCapDramBytesLo), static_cast<uint32_t>(c.limits.dram_bytes));
  EXPECT_EQ(b->ReadReg(regs::kCapDramBytesHi), static_cast<uint32_t>(c.limits.dram_bytes >> 32));
  EXPECT_EQ(b->ReadReg(regs::kCapParamSets), static_cast<uint32_t>(c.limits.param_sets));
  EXPECT_EQ(b->ReadReg(regs::kCapDma),
            static_cast<uint32_t>(c.max_payload) | static_cast<uint32_t>(c.max_read_req) << 16);
  EXPECT_EQ(b->ReadReg(regs::kStatus), regs::kStatusRingEmptyMask);
  EXPECT_EQ(b->ReadReg(regs::kMsiData), kMsiData);
  EXPECT_EQ(b->ReadReg(regs::kMsiAddrLo), static_cast<uint32_t>(kMsi));
  EXPECT_EQ(b->ReadReg(regs::kRingBaseLo), static_cast<uint32_t>(kRing));
  EXPECT_EQ(b->ReadReg(regs::kRingSize), kRingSlots);
  EXPECT_EQ(b->ReadReg(regs::kControl), regs::kControlIrqEnableMask);
  ExpectNoViolations(*b);
}

class TpuTopDense : public ::testing::TestWithParam<bool> {};

// Dense layers lowered by the runtime, one after the other through the same ring.
TEST_P(TpuTopDense, LayersThroughTheRing) {
  const bool stressed = GetParam();
  auto b = MakeBench(stressed, 3 + stressed, "tpu_top_dense");
  std::mt19937_64 rng(Seed(17 + stressed));
  const int64_t shapes[][3] = {{37, 40, 35}, {5, 16, 16}, {150, 70, 40}};
  size_t msis = 0;
  for (const auto& s : shapes) {
    SCOPED_TRACE("shape " + std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" +
                 std::to_string(s[2]));
    RunDense(*b, RandomDense(rng, s[0], s[1], s[2]), msis++);
  }
  EXPECT_EQ(b->rc().msis().size(), msis);
  ExpectNoViolations(*b);
  std::printf(
      "root complex: %llu MRd, %llu MWr, %llu completions, %llu bytes read, %llu "
      "written\n",
      static_cast<unsigned long long>(b->rc().stats().mrd),
      static_cast<unsigned long long>(b->rc().stats().mwr),
      static_cast<unsigned long long>(b->rc().stats().cpl_sent),
      static_cast<unsigned long long>(b->rc().stats().bytes_requested),
      static_cast<unsigned long long>(b->rc().stats().bytes_written));
}

INSTANTIATE_TEST_SUITE_P(Links, TpuTopDense, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "stressed" : "ideal"; });

// A program whose READ_HOST fails (a completion with status CA, or no completion at all):
// DMA_ERROR with the instruction's index, MSI; then a soft reset and a good program.
TEST(TpuTop, DmaErrorThenSoftResetThenDense) {
  for (bool silent : {false, true}) {
    SCOPED_TRACE(silent ? "timeout" : "completer abort");
    auto b = MakeBench(false, 5 + silent, "tpu_top_dma_error");
    const uint64_t bad = kData + 0x800000;
    if (silent) {
      b->rc().AddSilentRange(bad + 0x40, 0x10);
    } else {
      b->host().AddFault(bad + 0x40, 0x10);
    }
    std::vector<isa::Instr> prog;
    for (int i = 0; i < 3; ++i) prog.push_back(isa::Nop{});
    prog.push_back(isa::ReadHost{isa::Target::kUb, bad, 0, 0x100, 0, 0});
    prog.push_back(isa::Halt{});
    b->Submit(EncodeProgram(prog));
    ASSERT_TRUE(b->WaitMsi(1, kBudget)) << "no MSI";
    EXPECT_EQ(b->ReadReg(regs::kIrqStatus), regs::kIrqStatusErrorMask);
    EXPECT_EQ(b->ReadReg(regs::kStatus) & (regs::kStatusErrorMask | regs::kStatusRunningMask),
              regs::kStatusErrorMask);
    EXPECT_EQ(b->ReadReg(regs::kErrorCode), static_cast<uint32_t>(isa::Error::kDmaError));
    EXPECT_EQ(b->ReadReg(regs::kErrorIndex), 3u);
    if (silent) {
      EXPECT_GE(b->out().timeout_count, 1u);
    }

    b->SoftReset();
    b->WriteReg(regs::kIrqStatus, regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask);
    EXPECT_EQ(b->ReadReg(regs::kStatus) & (regs::kStatusRunningMask | regs::kStatusDoneMask |
                                           regs::kStatusErrorMask | regs::kStatusDmaBusyMask),
              0u);
    EXPECT_EQ(b->ReadReg(regs::kRingHead), 0u);
    EXPECT_EQ(b->ReadReg(regs::kRingTail), 0u);
    EXPECT_EQ(b->ReadReg(regs::kIrqStatus), 0u);
    std::mt19937_64 rng(Seed(23));
    RunDense(*b, RandomDense(rng, 20, 30, 20), 1);
    EXPECT_EQ(b->rc().msis().size(), 2u);
    ExpectNoViolations(*b);
  }
}

// Every way a DMA read can fail, for READ_HOST (the core's port) and for the ring fetch:
// ERROR_CODE says DMA_ERROR (or RING_FETCH_ERROR) and DMA_ERROR_CAUSE which completion failed
// and whose read it was; a soft reset clears the cause, and a good program runs after it.
TEST(TpuTop, DmaErrorCauseNamesTheFailure) {
  struct Case {
    const char* name;
    sc::CompletionStatus status;
    bool poisoned, silent;
    uint32_t cause;
  };
  const Case cases[] = {
      {"UR", sc::CompletionStatus::kUnsupportedRequest, false, false,
       regs::kDmaErrorCauseCauseUr},
      {"CA", sc::CompletionStatus::kCompleterAbort, false, false, regs::kDmaErrorCauseCauseCa},
      {"CRS", sc::CompletionStatus::kConfigRetry, false, false,
       regs::kDmaErrorCauseCauseStatus},
      {"poisoned", sc::CompletionStatus::kSuccess, true, false,
       regs::kDmaErrorCauseCausePoisoned},
      {"timeout", sc::CompletionStatus::kSuccess, false, true, regs::kDmaErrorCauseCauseTimeout},
  };
  for (bool ring : {false, true}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(ring ? "ring fetch, " : "READ_HOST, ") + c.name);
      auto b = MakeBench(false, 43, "tpu_top_dma_cause");
      RcConfig rc = b->rc().config();
      rc.fault_status = c.status;
      rc.fault_poisoned = c.poisoned;
      b->rc().set_config(rc);
      const uint64_t bad = ring ? kRing + 16 * 4 : kData + 0x800000 + 0x40;
      if (c.silent) {
        b->rc().AddSilentRange(bad, 0x10);
      } else {
        b->host().AddFault(bad, 0x10);
      }
      std::vector<isa::Instr> prog(8, isa::Nop{});
      if (!ring) prog[3] = isa::ReadHost{isa::Target::kUb, kData + 0x800000, 0, 0x100, 0, 0};
      prog.push_back(isa::Halt{});
      EXPECT_EQ(b->ReadReg(regs::kDmaErrorCause), 0u);
      b->Submit(EncodeProgram(prog));
      ASSERT_TRUE(b->WaitMsi(1, kBudget)) << "no MSI";
      EXPECT_EQ(b->ReadReg(regs::kErrorCode),
                ring ? static_cast<uint32_t>(regs::kErrRingFetchError)
                     : static_cast<uint32_t>(isa::Error::kDmaError));
      if (!ring) {
        EXPECT_EQ(b->ReadReg(regs::kErrorIndex), 3u);
      }
      const uint32_t cause = b->ReadReg(regs::kDmaErrorCause);
      EXPECT_EQ((cause & regs::kDmaErrorCauseCauseMask) >> regs::kDmaErrorCauseCauseShift,
                c.cause);
      EXPECT_EQ((cause & regs::kDmaErrorCauseRequesterMask) >>
                    regs::kDmaErrorCauseRequesterShift,
                ring ? regs::kDmaErrorCauseRequesterRing : regs::kDmaErrorCauseRequesterCore);
      EXPECT_LT((cause & regs::kDmaErrorCauseTagMask) >> regs::kDmaErrorCauseTagShift,
                static_cast<uint32_t>(b->rc().config().num_tags));

      b->SoftReset();
      b->WriteReg(regs::kIrqStatus, regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask);
      EXPECT_EQ(b->ReadReg(regs::kDmaErrorCause), 0u);
      b->host().ClearFaults();
      b->rc().ClearSilentRanges();
      if (ring) b->SetupRing(kRing + 0x10000, 64);
      std::mt19937_64 rng(Seed(47));
      RunDense(*b, RandomDense(rng, 9, 17, 20), 1);
      EXPECT_EQ(b->ReadReg(regs::kDmaErrorCause), 0u);
      ExpectNoViolations(*b);
    }
  }
}

// The watchdog: a READ_HOST that is never answered stops the device with WATCHDOG after
// WATCHDOG.cycles cycles without progress, before the completion timeout (so no DMA error
// is recorded); WATCHDOG survives the soft reset and lets a good program run; 0 turns it off
// (the completion timeout then reports the read).
TEST(TpuTop, WatchdogStopsADeviceWithoutProgress) {
  auto b = MakeBench(false, 53, "tpu_top_watchdog");
  const uint32_t kCycles = static_cast<uint32_t>(b->config().timeout / 3);
  ASSERT_GE(kCycles, 500u);
  b->WriteReg(regs::kWatchdog, kCycles);
  EXPECT_EQ(b->ReadReg(regs::kWatchdog), kCycles);
  const uint64_t src = kData + 0x800000;
  b->rc().AddSilentRange(src + 0x40, 0x10);
  std::vector<isa::Instr> prog(3, isa::Nop{});
  prog.push_back(isa::ReadHost{isa::Target::kUb, src, 0, 0x100, 0, 0});
  prog.push_back(isa::Halt{});
  const uint64_t start = b->cycle();
  b->Submit(EncodeProgram(prog));
  ASSERT_TRUE(b->WaitMsi(1, kBudget)) << "no MSI";
  EXPECT_GE(b->cycle() - start, kCycles);
  EXPECT_LT(b->cycle() - start, 2 * kCycles);
  EXPECT_EQ(b->ReadReg(regs::kErrorCode), static_cast<uint32_t>(regs::kErrWatchdog));
  EXPECT_EQ(b->ReadReg(regs::kErrorIndex), 0u);
  EXPECT_EQ(b->ReadReg(regs::kStatus) & (regs::kStatusErrorMask | regs::kStatusRunningMask),
            regs::kStatusErrorMask);
  EXPECT_EQ(b->ReadReg(regs::kIrqStatus), regs::kIrqStatusErrorMask);
  EXPECT_EQ(b->ReadReg(regs::kDmaErrorCause), 0u);

  b->SoftReset();
  b->WriteReg(regs::kIrqStatus, regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask);
  EXPECT_EQ(b->ReadReg(regs::kWatchdog), kCycles);
  EXPECT_EQ(b->ReadReg(regs::kErrorCode), 0u);
  b->rc().ClearSilentRanges();
  std::mt19937_64 rng(Seed(59));
  RunDense(*b, RandomDense(rng, 30, 40, 20), 1);

  // Off: the same hang ends in the completion timeout.
  b->WriteReg(regs::kWatchdog, 0);
  b->rc().AddSilentRange(src + 0x40, 0x10);
  b->WriteReg(regs::kIrqStatus, regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask);
  b->Submit(EncodeProgram(prog));
  ASSERT_TRUE(b->WaitMsi(3, kBudget)) << "no MSI";
  EXPECT_EQ(b->ReadReg(regs::kErrorCode), static_cast<uint32_t>(isa::Error::kDmaError));
  EXPECT_EQ((b->ReadReg(regs::kDmaErrorCause) & regs::kDmaErrorCauseCauseMask) >>
                regs::kDmaErrorCauseCauseShift,
            regs::kDmaErrorCauseCauseTimeout);
  ExpectNoViolations(*b);
}

// A decode error stops the core in the middle of the submitted slots; the host rewrites the
// slots from RING_HEAD with a good program and rings the doorbell again (no soft reset): the
// device drops what it had fetched after the failing slot and runs the new slots.
TEST(TpuTop, DecodeErrorThenRestartFromTheHead) {
  auto b = MakeBench(false, 17, "tpu_top_restart");
  std::vector<isa::Instr> bad(2, isa::Nop{});
  isa::Matmul mm;  // rows = 0: LENGTH_ZERO
  mm.rows = 0;
  bad.push_back(mm);
  for (int i = 0; i < 20; ++i) bad.push_back(isa::Nop{});
  bad.push_back(isa::Halt{});
  b->Submit(EncodeProgram(bad));
  ASSERT_TRUE(b->WaitMsi(1, kBudget)) << "no MSI";
  EXPECT_EQ(b->ReadReg(regs::kErrorCode), static_cast<uint32_t>(isa::Error::kLengthZero));
  EXPECT_EQ(b->ReadReg(regs::kErrorIndex), 2u);
  const uint32_t head = b->ReadReg(regs::kRingHead);
  EXPECT_EQ(head, 3u);  // the failing slot was taken, nothing after it
  b->WriteReg(regs::kIrqStatus, regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask);
  b->RewindTail(head);
  std::mt19937_64 rng(Seed(41));
  RunDense(*b, RandomDense(rng, 30, 24, 21), 1);
  ExpectNoViolations(*b);
}

// The ring itself cannot be read: RING_FETCH_ERROR, MSI; after a soft reset with the ring
// moved to good memory, programs run.
TEST(TpuTop, RingFetchErrorThenSoftReset) {
  auto b = MakeBench(false, 7, "tpu_top_ring_error");
  b->host().AddFault(kRing + 16 * 4, 16);
  std::vector<isa::Instr> prog(8, isa::Nop{});
  prog.push_back(isa::Halt{});
  b->Submit(EncodeProgram(prog));
  ASSERT_TRUE(b->WaitMsi(1, kBudget)) << "no MSI";
  EXPECT_EQ(b->ReadReg(regs::kErrorCode), static_cast<uint32_t>(regs::kErrRingFetchError));
  EXPECT_EQ(b->ReadReg(regs::kIrqStatus), regs::kIrqStatusErrorMask);
  EXPECT_EQ(b->ReadReg(regs::kStatus) & (regs::kStatusErrorMask | regs::kStatusRunningMask),
            regs::kStatusErrorMask);
  // Slots 0..3 came in a good completion, 4..7 in the failed one: the core ran the slots
  // handed out before the failure arrived (at least the three the output FIFO held).
  const uint32_t head = b->ReadReg(regs::kRingHead);
  EXPECT_GE(head, 3u);
  EXPECT_LE(head, 4u);
  // A doorbell does not restart the device until a soft reset.
  b->WriteReg(regs::kRingTail, b->tail());
  b->Idle(200);
  EXPECT_EQ(b->rc().msis().size(), 1u);

  b->SoftReset();
  b->WriteReg(regs::kIrqStatus, regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask);
  b->SetupRing(kRing + 0x10000, 64);
  EXPECT_EQ(b->ReadReg(regs::kErrorCode), 0u);
  std::mt19937_64 rng(Seed(29));
  RunDense(*b, RandomDense(rng, 9, 17, 33), 1);
  ExpectNoViolations(*b);
}

// A program longer than a ring of 8 slots: the host refills slots as RING_HEAD moves and
// rings the doorbell while the core runs (the tail moves under a running program).
TEST(TpuTop, LongProgramThroughASmallRing) {
  auto b = MakeBench(true, 11, "tpu_top_small_ring");
  b->SetupRing(kRing + 0x20000, 8);
  std::mt19937_64 rng(Seed(31));
  const DenseCase c = RandomDense(rng, 40, 50, 40);
  const compiler::DenseProgram p = Lower(*b, c);
  std::vector<isa::Instr> prog;
  for (int i = 0; i < 10; ++i) prog.push_back(isa::Nop{});
  const std::vector<isa::Instr> layer = p.instrs.Instrs();
  prog.insert(prog.end(), layer.begin(), layer.end());
  ASSERT_TRUE(b->Stream(EncodeProgram(prog), kBudget));
  ASSERT_TRUE(b->WaitMsi(1, kBudget)) << "no MSI";
  EXPECT_EQ(b->ReadReg(regs::kIrqStatus), regs::kIrqStatusDoneMask);
  EXPECT_EQ(b->ReadReg(regs::kRingHead), b->tail());
  ExpectResult(*b, c, p);
  ExpectNoViolations(*b);
}

// A soft reset in the middle of a running program (DMA reads and writes and weight-tile reads
// in flight): every TLP stays legal, stale completions are thrown away, the DRAM beats owed to
// the core before the reset are dropped, and the next program runs exactly. Which of the fixed
// reset cycles find weight-tile reads or host DMA in flight depends on the device (N, its DRAM
// beat, its stream width, its ring) and on the seed of the stressed root complex, so after them
// the test keeps resetting, each time at the first cycle from a later start (kSearchStep
// cycles on per try) at which what no reset has hit yet is in flight, until a reset has hit
// each (or a program ends before its reset).
TEST(TpuTop, SoftResetWhileRunning) {
  auto b = MakeBench(true, 13, "tpu_top_reset_running");
  std::mt19937_64 rng(Seed(37));
  int with_dram_beats = 0, with_dma = 0;
  const std::vector<uint64_t> fixed = {150, 400, 500, 600, 700, 900};
  constexpr uint64_t kSearchFirst = 100, kSearchStep = 37;
  bool ended = false;
  for (size_t i = 0; !ended; ++i) {
    const bool search = i >= fixed.size();
    if (search && with_dram_beats > 0 && with_dma > 0) break;
    const uint64_t when = search ? kSearchFirst + (i - fixed.size()) * kSearchStep : fixed[i];
    SCOPED_TRACE("soft reset after " + std::to_string(when) + " cycles or later");
    const DenseCase c = RandomDense(rng, 60, 40, 30);
    const compiler::DenseProgram p = Lower(*b, c);
    b->Submit(p.instrs.words());
    b->Idle(when);
    // Searching: on to the first cycle with what no reset has hit yet in flight.
    while (search && b->out().running &&
           !(with_dram_beats == 0 && b->dram().outstanding_beats() > 0) &&
           !(with_dma == 0 && b->out().dma_busy)) {
      b->Step();
    }
    if (!search) {
      ASSERT_TRUE(b->out().running) << "the program ended before the soft reset";
    }
    ended = !b->out().running;  // later cycles would be past the end as well
    b->SoftReset();
    for (int guard = 0; b->out().running; ++guard) {  // until the reset reaches the core
      ASSERT_LT(guard, 1000);
      b->Step();
    }
    with_dram_beats += b->dram().outstanding_beats() > 0;
    with_dma += b->out().dma_busy;
    b->WriteReg(regs::kIrqStatus, regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask);
    b->Idle(400);  // orphaned completions drain
    const size_t msis = b->rc().msis().size();
    EXPECT_EQ(b->ReadReg(regs::kRingHead), 0u);
    RunDense(*b, RandomDense(rng, 25, 20, 18), msis);
  }
  EXPECT_GT(with_dram_beats, 0) << "no reset hit weight-tile reads in flight";
  EXPECT_GT(with_dma, 0) << "no reset hit host DMA in flight";
  ExpectNoViolations(*b);
}

}  // namespace
}  // namespace tpu::tb
