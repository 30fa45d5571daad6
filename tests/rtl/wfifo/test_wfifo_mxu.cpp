// The weight FIFO chained into the MXU (testbench/wfifo/tpu_wfifo_mxu_tb_top.sv): weights
// stream from the DRAM side through tpu_wfifo into tpu_mxu, activations from C++, and every
// GEMM is checked against the golden reference. With the DRAM delivering at least a row per
// cycle, the MXU's weight loads must stay hidden behind the rows of each tile.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "golden/gemm.h"
#include "wfifo/wfifo_mxu_gemm.h"
#include "wfifo/wfifo_mxu_harness.h"

namespace tpu::tb {
namespace {

using MakeFn = std::unique_ptr<WfifoMxuHarness> (*)(const HarnessOptions&);

struct Variant {
  WfifoConfig config;
  MakeFn make;
};

// Keep in step with the models built in testbench/wfifo/CMakeLists.txt.
const Variant kVariants[] = {
    {{8, 64, 4}, &MakeWfifoMxuHarness<8, 64, 4>},      // one row per DRAM beat
    {{8, 128, 4}, &MakeWfifoMxuHarness<8, 128, 4>},    // two rows per beat
    {{8, 32, 4}, &MakeWfifoMxuHarness<8, 32, 4>},      // half a row per beat: DRAM-bound
    {{16, 128, 4}, &MakeWfifoMxuHarness<16, 128, 4>},  // one row per beat
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.config.Name(); }

std::vector<int8_t> RandomInt8(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<int8_t> v(count);
  for (auto& x : v) x = int8_t(dist(rng));
  return v;
}

class WfifoMxuTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    hw_ = GetParam().make(
        TestHarnessOptions(std::string(info->test_suite_name()) + "." + info->name()));
    hw_->Reset();
  }

  int n() const { return GetParam().config.n; }
  // The DRAM delivers at least one row per cycle.
  bool dram_keeps_up() const { return GetParam().config.beat_bytes() >= n(); }

  // Runs C = A x W through DRAM -> FIFO -> MXU and expects the golden GEMM element for element.
  WfifoGemmStats ExpectGemm(int m, int k, int ncols, uint64_t seed,
                            const WfifoGemmOptions& opts = {}) {
    const auto a = RandomInt8(size_t(m) * k, seed), w = RandomInt8(size_t(k) * ncols, seed + 1);
    WfifoGemmStats stats;
    const auto got = RunWfifoMxuGemm(*hw_, a, w, m, k, ncols, opts, &stats);
    golden::Tensor<int8_t> ta({m, k}, a), tw({k, ncols}, w);
    const auto want = golden::Gemm(ta, tw).data;
    EXPECT_EQ(got.size(), want.size());
    int mismatches = 0;
    for (size_t i = 0; i < want.size() && mismatches < 5; ++i) {
      if (got[i] != want[i]) {
        ++mismatches;
        ADD_FAILURE() << "C[" << i / ncols << "][" << i % ncols << "] = " << got[i] << ", golden "
                      << want[i] << " (M=" << m << " K=" << k << " N=" << ncols << ", data seed "
                      << seed << ", gap seed " << opts.seed << ")";
      }
    }
    return stats;
  }

  std::unique_ptr<WfifoMxuHarness> hw_;
};

std::string VariantName(const ::testing::TestParamInfo<Variant>& info) {
  return info.param.config.Name();
}

TEST_P(WfifoMxuTest, GemmMatchesGolden) {
  struct Shape {
    int m, k, ncols;
  };
  const int n = this->n();
  const Shape shapes[] = {{2 * n, n, n}, {7, n + 3, 2 * n - 5}, {n + 1, 1, 1}, {1, 3 * n, 2 * n}};
  uint64_t seed = 10;
  for (const auto& s : shapes) {
    ExpectGemm(s.m, s.k, s.ncols, seed);
    seed += 2;
  }
}

TEST_P(WfifoMxuTest, FullRateDramHidesWeightLoads) {
  // Six tiles (more than the FIFO holds), each used for exactly N rows: the tightest schedule
  // the MXU's double buffer hides. After the first row, no activation row may wait.
  const int n = this->n(), m = n, k = 3 * n, ncols = 2 * n;
  const auto stats = ExpectGemm(m, k, ncols, 3);
  EXPECT_EQ(stats.tiles, 6u);
  RecordProperty("cycles", std::to_string(stats.cycles));
  std::printf(
      "[ measured ] %s: %llu rows in %llu cycles, first row after %llu, %llu rows "
      "waited after it\n",
      GetParam().config.Name().c_str(), (unsigned long long)stats.rows,
      (unsigned long long)stats.cycles, (unsigned long long)stats.first_act,
      (unsigned long long)stats.act_wait_later);
  if (dram_keeps_up()) {
    // First tile: one beat in, two edges through the FIFO, N rows into the MXU; the last row's
    // result the MXU's latency later.
    EXPECT_EQ(stats.first_act, uint64_t(n + 2));
    EXPECT_EQ(stats.act_wait_later, 0u) << "a weight load was not hidden";
    EXPECT_EQ(hw_->latency(), 2 * n + 1);
    EXPECT_EQ(stats.cycles, stats.rows + n + 2 + hw_->latency());
  } else {
    // Half a row per cycle cannot feed N rows of weights in N cycles: rows must wait.
    EXPECT_GT(stats.act_wait_later, 0u);
  }
}

TEST_P(WfifoMxuTest, LongTilesFillTheFifoAndBackPressureTheDram) {
  // Twelve tiles, each used for 3N rows, while the DRAM runs at full rate: with two tiles in
  // the MXU the FIFO fills up, the DRAM waits, and no activation row waits after the first.
  const int n = this->n(), m = 3 * n, k = 6 * n, ncols = 2 * n;
  const auto stats = ExpectGemm(m, k, ncols, 5);
  std::printf(
      "[ measured ] %s: FIFO held up to %d rows (%d whole tiles), DRAM waited %llu "
      "cycles, %llu rows waited after the first\n",
      GetParam().config.Name().c_str(), stats.max_fifo_rows, stats.max_fifo_tiles,
      (unsigned long long)stats.dram_wait, (unsigned long long)stats.act_wait_later);
  if (dram_keeps_up()) {
    EXPECT_EQ(stats.act_wait_later, 0u);
    EXPECT_GT(stats.dram_wait, 0u) << "the FIFO never filled";
    EXPECT_GE(stats.max_fifo_tiles, GetParam().config.depth_tiles);
  }
}

TEST_P(WfifoMxuTest, RandomGapsOnBothStreams) {
  std::mt19937_64 rng(n());
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const int m = 1 + int(rng() % (3 * n()));
    const int k = 1 + int(rng() % (3 * n()));
    const int ncols = 1 + int(rng() % (2 * n()));
    WfifoGemmOptions opts;
    opts.seed = seed;
    opts.dram_gap = 0.15 * double(seed % 4);
    opts.act_gap = 0.15 * double((seed + 1) % 4);
    ExpectGemm(m, k, ncols, 100 + seed, opts);
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, WfifoMxuTest, ::testing::ValuesIn(kVariants), VariantName);

}  // namespace
}  // namespace tpu::tb
