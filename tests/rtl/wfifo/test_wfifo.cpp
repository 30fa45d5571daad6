// The Verilated weight FIFO (tpu_wfifo) against its reference model, in every configuration
// built by testbench/wfifo/CMakeLists.txt (N = 8 and 16; DRAM beats narrower than a row,
// one row, and several rows wide; depths of 3 and 4 tiles). Random tests print their seed on
// failure; set TPU_SEED to rerun with another base seed, TPU_TRACE=1 to dump waveforms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "wfifo/wfifo_harness.h"
#include "wfifo_checker.h"

namespace tpu::tb {
namespace {

using MakeFn = std::unique_ptr<WfifoHarness> (*)(const HarnessOptions&);

struct Variant {
  WfifoConfig config;
  MakeFn make;
};

// Keep in step with the models built in testbench/wfifo/CMakeLists.txt.
const Variant kVariants[] = {
    {{8, 32, 4}, &MakeWfifoHarness<8, 32, 4>},      // two beats per row
    {{8, 64, 3}, &MakeWfifoHarness<8, 64, 3>},      // one beat per row, 24 rows deep
    {{8, 128, 4}, &MakeWfifoHarness<8, 128, 4>},    // two rows per beat
    {{16, 32, 4}, &MakeWfifoHarness<16, 32, 4>},    // four beats per row
    {{16, 256, 4}, &MakeWfifoHarness<16, 256, 4>},  // two rows per beat
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.config.Name(); }

uint64_t BaseSeed() {
  const char* s = std::getenv("TPU_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 0) : 1;
}

class WfifoTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dut_ = GetParam().make(
        TestHarnessOptions(std::string(info->test_suite_name()) + "." + info->name()));
    // One seed per test and configuration, printed with every failure.
    seed_ = BaseSeed() * 1000003 + std::hash<std::string>()(info->name());
    checker_ = std::make_unique<WfifoChecker>(*dut_, seed_);
    checker_->Reset();
  }

  const WfifoConfig& cfg() const { return GetParam().config; }
  int beats_per_row() const { return std::max(1, cfg().n / cfg().beat_bytes()); }
  int rows_per_beat() const { return std::max(1, cfg().beat_bytes() / cfg().n); }
  int memory_rows() const { return cfg().depth_tiles * cfg().n; }
  int capacity_rows() const { return memory_rows() + rows_per_beat(); }

  // Streams `cycles` cycles with the DRAM side and the MXU side following their gates and a
  // flush with probability p_flush per cycle. Returns false at the first mismatch.
  bool Stream(int cycles, Gate in, Gate out, double p_flush = 0.0) {
    std::mt19937_64 rng(seed_ ^ 0x5eed);
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    int flush_left = 0;
    for (int i = 0; i < cycles; ++i) {
      if (flush_left == 0 && coin(rng) < p_flush) flush_left = 1 + int(rng() % 3);
      const bool flush = flush_left > 0;
      flush_left -= flush;
      if (!checker_->Cycle(flush, in.Next(rng), out.Next(rng))) return false;
    }
    return true;
  }

  // A run of cycles long enough for bursts to fill and drain the FIFO several times.
  int LongRun() const { return 200 * capacity_rows() * beats_per_row(); }
  int MaxBurst() const { return 2 * capacity_rows() * beats_per_row(); }

  std::unique_ptr<WfifoHarness> dut_;
  std::unique_ptr<WfifoChecker> checker_;
  uint64_t seed_ = 0;
};

std::string VariantName(const ::testing::TestParamInfo<Variant>& info) {
  return info.param.config.Name();
}

// ---- Random data with stalls, checked against the model every cycle ------------------------

TEST_P(WfifoTest, InputBurstyOutputAlwaysReady) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  ASSERT_TRUE(Stream(LongRun(), Gate::Bursty(MaxBurst()), Gate::Always()));
  const auto& c = checker_->counters();
  EXPECT_GT(c.rows_out, uint64_t(4 * capacity_rows()));
  EXPECT_GT(c.became_empty, 3u) << "the FIFO never drained";
}

TEST_P(WfifoTest, InputAlwaysValidOutputBursty) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  ASSERT_TRUE(Stream(LongRun(), Gate::Always(), Gate::Bursty(MaxBurst())));
  const auto& c = checker_->counters();
  EXPECT_GT(c.became_full, 3u) << "the FIFO never filled";
  EXPECT_EQ(c.max_rows, capacity_rows());
}

TEST_P(WfifoTest, BothSidesBursty) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  ASSERT_TRUE(Stream(LongRun(), Gate::Bursty(MaxBurst()), Gate::Bursty(MaxBurst())));
  const auto& c = checker_->counters();
  EXPECT_GT(c.became_full, 0u);
  EXPECT_GT(c.became_empty, 0u);
}

TEST_P(WfifoTest, BothSidesRandomEveryCycle) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (double p_in : {0.3, 0.7, 0.95}) {
    for (double p_out : {0.3, 0.7, 0.95}) {
      SCOPED_TRACE("p_in " + std::to_string(p_in) + " p_out " + std::to_string(p_out));
      ASSERT_TRUE(Stream(LongRun() / 6, Gate::Random(p_in), Gate::Random(p_out)));
    }
  }
  EXPECT_GT(checker_->counters().rows_out, uint64_t(10 * capacity_rows()));
}

// ---- Fill and drain ----------------------------------------------------------------------

TEST_P(WfifoTest, FillToFullAndDrainToEmptyRepeatedly) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  const int n = cfg().n;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    // Fill: DRAM always offers, the MXU never takes; every beat is taken on its cycle.
    int cycles = 0;
    while (!dut_->full()) {
      ASSERT_TRUE(checker_->Cycle(false, true, false));
      ASSERT_TRUE(checker_->in_fire()) << "a beat waited before the FIFO was full";
      ASSERT_LT(++cycles, 4 * capacity_rows() * beats_per_row()) << "never became full";
    }
    if (round == 0) EXPECT_EQ(cycles, capacity_rows() / rows_per_beat() * beats_per_row());
    // Full with nothing taken yet: the memory and the output register are full.
    for (int i = 0; i < 2 * beats_per_row(); ++i) {
      ASSERT_TRUE(checker_->Cycle(false, true, false));
    }
    dut_->Eval();
    EXPECT_TRUE(dut_->full());
    EXPECT_FALSE(dut_->dram_ready()) << "would take a row-completing beat while full";
    EXPECT_EQ(dut_->rows(), capacity_rows());
    // Tiles start aligned to the stream only in the first round (the model checks the rest).
    if (round == 0) EXPECT_EQ(dut_->tiles(), capacity_rows() / n);
    EXPECT_TRUE(dut_->weight_valid());
    // Drain: nothing offered, the MXU always takes; a row every cycle until empty.
    int drained = 0;
    while (!dut_->empty()) {
      ASSERT_TRUE(checker_->Cycle(false, false, true));
      ASSERT_TRUE(checker_->out_fire()) << "bubble while draining, after " << drained << " rows";
      ++drained;
    }
    EXPECT_EQ(drained, capacity_rows());
    EXPECT_EQ(dut_->tiles(), 0);
    EXPECT_FALSE(dut_->weight_valid());
    // The partly received row (narrow beats) stays: finish it with full rows next round.
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(checker_->Cycle(false, false, true));
  }
}

// ---- Throughput ---------------------------------------------------------------------------

TEST_P(WfifoTest, UnstalledStreamIsOneRowPerCycleOrDramBound) {
  // Both sides always ready: rows leave at one per cycle, or one per beats_per_row() cycles
  // when the DRAM beat is narrower than a row, after a latency of two edges.
  const int rows = 10 * cfg().n;
  const int beats = rows * beats_per_row() / rows_per_beat();
  int first_row = -1, last_row = -1, taken = 0, in_waits = 0, out = 0;
  for (int cyc = 0; out < rows; ++cyc) {
    ASSERT_TRUE(checker_->Cycle(false, taken < beats, true));
    ASSERT_LT(cyc, 4 * rows * beats_per_row());
    in_waits += taken < beats && !checker_->in_fire();
    taken += checker_->in_fire();
    if (checker_->out_fire()) {
      if (first_row < 0) first_row = cyc;
      if (last_row >= 0) {
        ASSERT_EQ(cyc - last_row, beats_per_row())
            << "gap between rows " << out - 1 << " and " << out;
      }
      last_row = cyc;
      ++out;
    }
  }
  EXPECT_EQ(first_row, beats_per_row() + 1) << "latency from the first beat to the first row";
  const double rows_per_cycle = double(rows) / double(last_row + 1);
  RecordProperty("rows_per_cycle", std::to_string(rows_per_cycle));
  std::printf("[ measured ] %s: %d rows in %d cycles (%.3f rows/cycle)\n", cfg().Name().c_str(),
              rows, last_row + 1, rows_per_cycle);
  EXPECT_EQ(last_row + 1, rows * beats_per_row() + 2);
  // The DRAM side waits only when wide beats bring rows faster than they can leave.
  if (rows_per_beat() == 1) EXPECT_EQ(in_waits, 0);
}

TEST_P(WfifoTest, NoBubbleAtTheFullBoundary) {
  // Fill to full, then open both sides: rows must leave every cycle while any is held, and a
  // completing beat must be taken as soon as the memory has room.
  while (!dut_->full()) ASSERT_TRUE(checker_->Cycle(false, true, false));
  const int window = 3 * capacity_rows();
  int out = 0, in_waits = 0;
  for (int i = 0; i < window; ++i) {
    ASSERT_TRUE(checker_->Cycle(false, true, true));
    out += checker_->out_fire();
    in_waits += !checker_->in_fire();
    if (i < capacity_rows()) ASSERT_TRUE(checker_->out_fire()) << "bubble at cycle " << i;
  }
  if (beats_per_row() == 1) {
    // The DRAM keeps up: the output never stops, and a beat is taken each time a word's worth
    // of rows has left, from the cycle after the first refill on.
    EXPECT_EQ(out, window);
    EXPECT_EQ(window - in_waits, (window - 1) / rows_per_beat());
  } else {
    // The DRAM is slower than the MXU: the input never waits.
    EXPECT_EQ(in_waits, 0);
  }
}

// ---- Flush and reset ----------------------------------------------------------------------

TEST_P(WfifoTest, FlushInTheMiddleDropsEverything) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  ASSERT_TRUE(
      Stream(LongRun(), Gate::Bursty(MaxBurst()), Gate::Bursty(MaxBurst()), 20.0 / LongRun()));
  EXPECT_GT(checker_->counters().flushes, 4u);
  ASSERT_TRUE(Stream(LongRun() / 2, Gate::Random(0.8), Gate::Random(0.8), 0.02));
  // Directed: a partly received row and a full FIFO, flushed; what follows must be new data.
  while (!dut_->full()) ASSERT_TRUE(checker_->Cycle(false, true, false));
  for (int i = 0; i < beats_per_row() - 1; ++i) ASSERT_TRUE(checker_->Cycle(false, true, false));
  ASSERT_TRUE(checker_->Cycle(true, true, true));
  dut_->Eval();
  EXPECT_TRUE(dut_->empty());
  EXPECT_EQ(dut_->rows(), 0);
  EXPECT_EQ(dut_->tiles(), 0);
  EXPECT_FALSE(dut_->weight_valid());
  ASSERT_TRUE(Stream(LongRun() / 4, Gate::Random(0.9), Gate::Random(0.9)));
}

TEST_P(WfifoTest, FlushWhileHighTakesAndOffersNothing) {
  for (int i = 0; i < 3 * beats_per_row(); ++i) ASSERT_TRUE(checker_->Cycle(false, true, false));
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(checker_->Cycle(true, true, true));
    EXPECT_FALSE(checker_->in_fire());
    EXPECT_FALSE(checker_->out_fire());
  }
}

TEST_P(WfifoTest, ResetInTheMiddleStartsClean) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  std::mt19937_64 rng(seed_);
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const int cycles = 1 + int(rng() % uint64_t(4 * capacity_rows() * beats_per_row()));
    ASSERT_TRUE(Stream(cycles, Gate::Random(0.8), Gate::Random(0.4)));
    checker_->Reset();
    dut_->Eval();
    EXPECT_TRUE(dut_->empty());
    EXPECT_FALSE(dut_->full());
    EXPECT_EQ(dut_->rows(), 0);
    EXPECT_EQ(dut_->tiles(), 0);
    EXPECT_FALSE(dut_->weight_valid());
  }
  ASSERT_TRUE(Stream(LongRun() / 2, Gate::Bursty(MaxBurst()), Gate::Bursty(MaxBurst())));
}

// ---- Directed: layout and status semantics ------------------------------------------------

TEST_P(WfifoTest, BytesFormRowsInStreamOrder) {
  // DRAM byte i of the stream (byte b of beat j is byte j * beat_bytes + b) must become byte
  // i % N of row i / N, whatever the beat width.
  const int n = cfg().n, bb = cfg().beat_bytes(), rows = 3 * n;
  std::vector<uint8_t> beat(bb), row(n);
  int sent = 0, got = 0;
  for (int cyc = 0; got < rows && cyc < 10 * rows * beats_per_row(); ++cyc) {
    const bool valid = sent * bb < rows * n;
    for (int b = 0; b < bb; ++b) beat[b] = uint8_t(sent * bb + b);
    dut_->SetDram(valid, beat.data());
    dut_->SetWeightReady(true);
    dut_->Eval();
    if (dut_->weight_valid()) {
      dut_->GetRow(row.data());
      for (int c = 0; c < n; ++c) ASSERT_EQ(row[c], uint8_t(got * n + c)) << "row " << got;
      ++got;
    }
    sent += valid && dut_->dram_ready();
    dut_->Tick();
  }
  EXPECT_EQ(got, rows);
}

TEST_P(WfifoTest, TilesCountWholeTilesNotYetStarted) {
  const int n = cfg().n;
  auto send_rows = [&](int rows) {
    for (int i = 0; i < rows * beats_per_row() / rows_per_beat(); ++i) {
      ASSERT_TRUE(checker_->Cycle(false, true, false));
      ASSERT_TRUE(checker_->in_fire());
    }
  };
  ASSERT_NO_FATAL_FAILURE(send_rows(n - rows_per_beat()));
  ASSERT_TRUE(checker_->Cycle(false, false, false));
  EXPECT_EQ(dut_->tiles(), 0);
  EXPECT_EQ(dut_->rows(), n - rows_per_beat());
  // The tile's last row: counted from the edge that takes it.
  ASSERT_NO_FATAL_FAILURE(send_rows(rows_per_beat()));
  EXPECT_EQ(dut_->tiles(), 1);
  EXPECT_EQ(dut_->rows(), n);
  ASSERT_NO_FATAL_FAILURE(send_rows(n));
  EXPECT_EQ(dut_->tiles(), 2);
  ASSERT_TRUE(checker_->Cycle(false, false, true));  // first row of tile 0 leaves
  EXPECT_TRUE(checker_->out_fire());
  EXPECT_EQ(dut_->tiles(), 1);
  EXPECT_EQ(dut_->rows(), 2 * n - 1);
  // A tile that starts leaving before its last row arrives never counts.
  for (int i = 0; i < 2 * n - 1; ++i) ASSERT_TRUE(checker_->Cycle(false, false, true));
  EXPECT_TRUE(dut_->empty());
  ASSERT_NO_FATAL_FAILURE(send_rows(rows_per_beat()));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(checker_->Cycle(false, false, true));
  EXPECT_EQ(checker_->counters().rows_out, uint64_t(2 * n + rows_per_beat()));
  ASSERT_NO_FATAL_FAILURE(send_rows(n - rows_per_beat()));
  EXPECT_EQ(dut_->tiles(), 0) << "a tile partly sent counts as whole";
  ASSERT_NO_FATAL_FAILURE(send_rows(n));
  EXPECT_EQ(dut_->tiles(), 1);
}

INSTANTIATE_TEST_SUITE_P(Configs, WfifoTest, ::testing::ValuesIn(kVariants), VariantName);

}  // namespace
}  // namespace tpu::tb
