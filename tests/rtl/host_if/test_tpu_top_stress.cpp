// Soft resets at random cycles (issue 14, stress): the host writes CONTROL.soft_reset while the
// device is in the middle of a host DMA, of a MATMUL, or of a ring fetch, each phase made long by
// a program that spends its time there; every reset is followed by a dense layer that must come
// out bit-exact, and every TLP the device sends must stay legal (the root complex's checks).
// The phase is read from what the host side sees: the bench's dma_busy output (DMA), reads of
// the device still owed a completion while the program is only NOPs (ring fetch), and the
// PERF rows_matrix counter read over BAR0 just before the reset (MATMUL), so the tests hold for
// any implementation of the reset behind the register.
//
// TPU_STRESS_RESETS sets the resets per phase (default 3: the fast suite); the long suite
// (ctest stress.soft_resets_many) runs 60. Each reset's cycle is drawn from the test's seed
// (TPU_SEED moves it) and printed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "dense_case.h"
#include "host_if/top_bench.h"
#include "isa/isa.h"
#include "regs/regs.h"
#include "top_testing.h"

namespace tpu::tb {
namespace {

int ResetsPerPhase() {
  const char* env = std::getenv("TPU_STRESS_RESETS");
  const int count = env != nullptr && *env != '\0' ? std::atoi(env) : 3;
  return count > 0 ? count : 3;
}

int64_t Draw(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// Clocks until `done` holds: false (and a failure naming `what`) after `limit` cycles.
template <typename Pred>
bool StepUntil(TopBench& b, Pred done, uint64_t limit, const char* what) {
  for (uint64_t i = 0; !done(); ++i) {
    if (i == limit) {
      ADD_FAILURE() << "waited " << limit << " cycles for " << what;
      return false;
    }
    b.Step();
  }
  return true;
}

// After a soft reset: the core stops, stale completions drain, the ring is empty; then a dense
// layer of a random shape runs bit-exact.
void ResetThenDense(TopBench& b, std::mt19937_64& rng) {
  b.SoftReset();
  ASSERT_TRUE(StepUntil(b, [&] { return !b.out().running; }, 1000, "the reset to stop the core"));
  b.WriteReg(regs::kIrqStatus, regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask);
  b.Idle(400);  // completions owed to the reset device arrive and are dropped
  ASSERT_EQ(b.ReadReg(regs::kRingHead), 0u);
  ASSERT_EQ(b.ReadReg(regs::kErrorCode), 0u);
  const int64_t n = b.config().limits.n;
  RunDense(b, RandomDense(rng, Draw(rng, 1, 40), Draw(rng, 1, 3 * n), Draw(rng, 1, 3 * n)),
           b.rc().msis().size());
}

constexpr uint64_t kBlock = 0x1'0080'0000ull;  // the phases' host buffers (above the layers')

// DMA: the whole UB from the host, then back, twice; the reset falls at a random one of the cycles
// with a transfer under way.
TEST(TpuTopStress, SoftResetDuringDma) {
  auto b = MakeBench(true, 101, "tpu_top_stress_dma");
  std::mt19937_64 rng(Seed(103));
  const TopConfig& c = b->config();
  const uint32_t bytes = static_cast<uint32_t>(c.limits.ub_rows * c.limits.n);
  std::vector<uint8_t> data(bytes);
  for (auto& v : data) v = static_cast<uint8_t>(Draw(rng, 0, 255));
  b->host().Write(kBlock, data);
  std::vector<isa::Instr> prog;
  for (int i = 0; i < 2; ++i) {
    prog.push_back(isa::ReadHost{isa::Target::kUb, kBlock, 0, bytes, 0, 0});
    prog.push_back(isa::WriteHost{0, kBlock + bytes, bytes, 0, 0});
  }
  prog.push_back(isa::Halt{});
  // Cycles with a transfer under way, of the about 4 * bytes / 16 the program has.
  const int64_t span = 3 * bytes / 16;
  for (int r = 0; r < ResetsPerPhase(); ++r) {
    const int64_t when = Draw(rng, 0, span);
    SCOPED_TRACE("soft reset at DMA cycle " + std::to_string(when));
    b->Submit(EncodeProgram(prog));
    int64_t busy = 0;
    ASSERT_TRUE(StepUntil(*b, [&] { return b->out().dma_busy && busy++ == when; }, 100000,
                          "the DMA cycle drawn"));
    std::printf("reset %d: at DMA cycle %lld, %zu reads owed\n", r, static_cast<long long>(when),
                b->rc().reads_outstanding());
    ResetThenDense(*b, rng);
    if (HasFatalFailure()) return;
  }
  ExpectNoViolations(*b);
}

// MATMUL: the UB's rows through one weight tile, 128 accumulator rows at a time, after the data
// and the tile are in (SYNC on the DMA unit); the reset falls at a random row, checked by
// reading PERF rows_matrix just before it (more than none, fewer than all).
TEST(TpuTopStress, SoftResetDuringMatmul) {
  auto b = MakeBench(false, 107, "tpu_top_stress_matmul");
  std::mt19937_64 rng(Seed(109));
  const TopConfig& c = b->config();
  const int64_t n = c.limits.n;
  const uint32_t rows = static_cast<uint32_t>(c.limits.ub_rows);
  const uint32_t chunk = static_cast<uint32_t>(c.limits.acc_rows / 2);
  std::vector<uint8_t> data(rows * n + n * n);
  for (auto& v : data) v = static_cast<uint8_t>(Draw(rng, 0, 255));
  b->host().Write(kBlock, data);
  std::vector<isa::Instr> prog;
  prog.push_back(isa::ReadHost{isa::Target::kUb, kBlock, 0, rows * uint32_t(n), 0, 0});
  prog.push_back(
      isa::ReadHost{isa::Target::kDram, kBlock + rows * n, 0, uint32_t(n * n), 0, 0});
  isa::Sync dma_idle;
  dma_idle.units = 1;  // the DMA unit
  prog.push_back(dma_idle);
  prog.push_back(isa::ReadWeights{0, 1, 0, 0});
  for (uint32_t ub = 0; ub + chunk <= rows; ub += chunk) {
    isa::Matmul mm;
    mm.ub = ub;
    mm.acc = 0;
    mm.rows = chunk;
    mm.acc_mode = ub == 0 ? isa::AccMode::kOverwrite : isa::AccMode::kAccumulate;
    mm.new_tile = ub == 0;
    prog.push_back(mm);
  }
  prog.push_back(isa::Halt{});
  const uint32_t total = rows / chunk * chunk;
  for (int r = 0; r < ResetsPerPhase(); ++r) {
    b->Submit(EncodeProgram(prog));
    // PERF still holds the last layer's counts until the program starts (its DMA is the sign).
    ASSERT_TRUE(StepUntil(*b, [&] { return b->out().dma_busy; }, 5000, "the program to start"));
    for (int poll = 0; b->ReadReg(regs::PerfLo(regs::kPerfRowsMatrix)) == 0; ++poll) {
      ASSERT_LT(poll, 1000) << "MATMUL never started";
      b->Idle(20);
    }
    // A register read takes about 100 cycles: keep that many rows in hand.
    const int64_t when = Draw(rng, 0, total - 300);
    b->Idle(static_cast<uint64_t>(when));
    const uint32_t done_rows = b->ReadReg(regs::PerfLo(regs::kPerfRowsMatrix));
    SCOPED_TRACE("soft reset " + std::to_string(when) + " cycles into MATMUL, " +
                 std::to_string(done_rows) + " of " + std::to_string(total) + " rows done");
    std::printf("reset %d: %u of %u rows multiplied\n", r, done_rows, total);
    ASSERT_GT(done_rows, 0u) << "MATMUL had not started";
    ASSERT_LT(done_rows, total) << "MATMUL had ended";
    ResetThenDense(*b, rng);
    if (HasFatalFailure()) return;
  }
  ExpectNoViolations(*b);
}

// Ring fetch: a program of NOPs (no DMA of its own), so every read the device has outstanding is
// a fetch of ring slots; the reset falls at a random one of the cycles with a fetch under way.
TEST(TpuTopStress, SoftResetDuringRingFetch) {
  auto b = MakeBench(true, 113, "tpu_top_stress_ring");
  std::mt19937_64 rng(Seed(127));
  std::vector<isa::Instr> prog(kRingSlots - 16, isa::Nop{});
  prog.push_back(isa::Halt{});
  for (int r = 0; r < ResetsPerPhase(); ++r) {
    const int64_t when = Draw(rng, 0, 150);
    SCOPED_TRACE("soft reset at ring-fetch cycle " + std::to_string(when));
    b->Submit(EncodeProgram(prog));
    int64_t fetching = 0;
    ASSERT_TRUE(StepUntil(
        *b, [&] { return b->rc().reads_outstanding() > 0 && fetching++ == when; }, 100000,
        "the ring-fetch cycle drawn"));
    ASSERT_TRUE(b->out().running);
    std::printf("reset %d: at ring-fetch cycle %lld, %zu fetches owed\n", r,
                static_cast<long long>(when), b->rc().reads_outstanding());
    ResetThenDense(*b, rng);
    if (HasFatalFailure()) return;
  }
  ExpectNoViolations(*b);
}

}  // namespace
}  // namespace tpu::tb
