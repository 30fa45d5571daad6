// The Verilated MXU against the golden GEMM, at the size given by TPU_MXU_N (built for 8 and 16).
// Set TPU_TRACE=1 to dump build/waves/<suite>.<test>.fst for each test.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "golden/gemm.h"
#include "mxu/mxu_gemm.h"
#include "mxu/mxu_harness.h"

namespace tpu::tb {
namespace {

constexpr int kN = TPU_MXU_N;

std::vector<int8_t> RandomInt8(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<int8_t> v(count);
  for (auto& x : v) x = int8_t(dist(rng));
  return v;
}

std::vector<int32_t> GoldenGemm(const std::vector<int8_t>& a, const std::vector<int8_t>& w, int m,
                                int k, int ncols) {
  golden::Tensor<int8_t> ta({m, k}, a), tw({k, ncols}, w);
  return golden::Gemm(ta, tw).data;
}

class MxuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    mxu_ = MakeMxuHarness<kN>(TestHarnessOptions(std::string(info->test_suite_name()) + "." +
                                                 info->name() + ".n" + std::to_string(kN)));
    mxu_->Reset();
  }

  // Runs C = A x W on the MXU and expects it to equal the golden GEMM element for element.
  MxuStreamStats ExpectGemm(const std::vector<int8_t>& a, const std::vector<int8_t>& w, int m,
                            int k, int ncols, const MxuStreamOptions& opts = {}) {
    MxuStreamStats stats;
    const auto got = RunMxuGemm(*mxu_, a, w, m, k, ncols, opts, &stats);
    const auto want = GoldenGemm(a, w, m, k, ncols);
    EXPECT_EQ(got.size(), want.size());
    int mismatches = 0;
    for (size_t i = 0; i < want.size() && mismatches < 5; ++i) {
      if (got[i] != want[i]) {
        ++mismatches;
        ADD_FAILURE() << "C[" << i / ncols << "][" << i % ncols << "] = " << got[i]
                      << ", golden " << want[i] << " (M=" << m << " K=" << k << " N=" << ncols
                      << ", seed " << opts.seed << ")";
      }
    }
    return stats;
  }

  std::unique_ptr<MxuHarness> mxu_;
};

TEST_F(MxuTest, RandomSingleTile) {
  const int m = 2 * kN;
  ExpectGemm(RandomInt8(m * kN, 1), RandomInt8(kN * kN, 2), m, kN, kN);
}

TEST_F(MxuTest, ResultLatencyIsTwoNPlusOneAndTagComesBack) {
  // Load an identity tile, then send one row and watch for its result cycle by cycle.
  std::vector<int8_t> row(kN, 0), act(kN);
  for (int r = 0; r < kN; ++r) {
    std::fill(row.begin(), row.end(), 0);
    row[r] = 1;
    mxu_->SetWeight(true, row.data());
    mxu_->Eval();
    ASSERT_TRUE(mxu_->weight_ready());
    mxu_->Tick();
  }
  mxu_->SetWeight(false, nullptr);
  mxu_->Eval();
  ASSERT_TRUE(mxu_->tile_loaded());
  for (int i = 0; i < kN; ++i) act[i] = int8_t(i - 3);
  mxu_->SetAct(true, true, act.data(), 0xBEEF);
  mxu_->Eval();
  ASSERT_TRUE(mxu_->act_ready());
  mxu_->Tick();
  mxu_->SetAct(false, false, nullptr, 0);
  int seen_at = -1;
  for (int cyc = 1; cyc <= 4 * kN; ++cyc) {
    mxu_->Eval();
    if (mxu_->out_valid()) {
      ASSERT_EQ(seen_at, -1) << "one row in, two results out";
      seen_at = cyc;
      EXPECT_EQ(mxu_->out_tag(), 0xBEEFu);
      std::vector<int32_t> out(kN);
      mxu_->GetOut(out.data());
      for (int c = 0; c < kN; ++c) EXPECT_EQ(out[c], c - 3) << "column " << c;
    }
    mxu_->Tick();
  }
  EXPECT_EQ(seen_at, mxu_->latency());
  EXPECT_EQ(mxu_->latency(), 2 * kN + 1);  // the PEs' product register adds the one
}

TEST_F(MxuTest, BackToBackTilesSwapWithoutBubble) {
  // Exactly N rows per tile is the tightest schedule the double buffer hides; after the first
  // tile's load, no row may wait and the stream finishes in rows + first load + latency.
  const int m = kN, k = 3 * kN, ncols = 2 * kN;
  const auto stats = ExpectGemm(RandomInt8(m * k, 3), RandomInt8(k * ncols, 4), m, k, ncols);
  EXPECT_EQ(stats.tiles, 6u);
  EXPECT_LE(stats.act_wait, uint64_t(kN + 1)) << "rows waited after the first load";
  EXPECT_LE(stats.cycles, stats.rows + kN + 1 + mxu_->latency() + 1);
}

TEST_F(MxuTest, LongerTilesAlsoStreamBackToBack) {
  const int m = 2 * kN + 3, k = 2 * kN, ncols = 2 * kN;
  const auto stats = ExpectGemm(RandomInt8(m * k, 5), RandomInt8(k * ncols, 6), m, k, ncols);
  EXPECT_LE(stats.act_wait, uint64_t(kN + 1));
}

TEST_F(MxuTest, ShortTilesWaitForWeightsButStayCorrect) {
  // Fewer than N rows per tile: the weight loads can no longer hide, rows must wait.
  const int m = 3, k = 3 * kN, ncols = 2 * kN;
  const auto stats = ExpectGemm(RandomInt8(m * k, 7), RandomInt8(k * ncols, 8), m, k, ncols);
  EXPECT_GT(stats.act_wait, uint64_t(kN + 1));
}

TEST_F(MxuTest, ExtremeValuesSumOverTheWholeArray) {
  // -128 x -128 = 16384 in every PE; each column sums N of them per tile, 4 tiles deep.
  const int m = kN, k = 4 * kN, ncols = kN;
  std::vector<int8_t> a(m * k, -128), w(k * ncols, -128);
  ExpectGemm(a, w, m, k, ncols);
  // Mixed extremes: 127 x -128 and -128 x 127 in a checkerboard.
  for (int i = 0; i < m * k; ++i) a[i] = (i % 2) ? 127 : -128;
  for (int i = 0; i < k * ncols; ++i) w[i] = (i % 3) ? -128 : 127;
  ExpectGemm(a, w, m, k, ncols);
}

TEST_F(MxuTest, ShapesThatAreNotMultiplesOfNArePadded) {
  struct Shape {
    int m, k, ncols;
  };
  const Shape shapes[] = {{7, kN + 3, 2 * kN - 5}, {kN + 1, 1, 1}, {5, 2 * kN - 1, kN + 1}};
  uint64_t seed = 10;
  for (const auto& s : shapes) {
    ExpectGemm(RandomInt8(s.m * s.k, seed), RandomInt8(s.k * s.ncols, seed + 1), s.m, s.k,
               s.ncols);
    seed += 2;
  }
}

TEST_F(MxuTest, SingleRowStreams) {
  ExpectGemm(RandomInt8(kN, 20), RandomInt8(kN * kN, 21), 1, kN, kN);
  ExpectGemm(RandomInt8(3 * kN, 22), RandomInt8(3 * kN * 2 * kN, 23), 1, 3 * kN, 2 * kN);
}

TEST_F(MxuTest, RandomGapsOnBothStreams) {
  std::mt19937_64 rng(kN);
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const int m = 1 + int(rng() % (3 * kN));
    const int k = 1 + int(rng() % (3 * kN));
    const int ncols = 1 + int(rng() % (2 * kN));
    MxuStreamOptions opts;
    opts.seed = seed;
    opts.weight_gap = 0.1 * double(seed % 4);
    opts.act_gap = 0.15 * double((seed + 1) % 4);
    ExpectGemm(RandomInt8(m * k, 100 + seed), RandomInt8(k * ncols, 200 + seed), m, k, ncols,
               opts);
  }
}

TEST_F(MxuTest, ResetInTheMiddleOfAStreamStartsClean) {
  const int m = kN, k = 2 * kN, ncols = kN;
  auto a = RandomInt8(m * k, 30), w = RandomInt8(k * ncols, 31);
  // Half a tile of weights and a pending tile, then reset: nothing of it may survive.
  auto junk = RandomInt8(kN, 32);
  for (int r = 0; r < kN + kN / 2; ++r) {
    mxu_->SetWeight(true, junk.data());
    mxu_->Tick();
  }
  mxu_->Reset();
  mxu_->Eval();
  EXPECT_FALSE(mxu_->tile_loaded());
  EXPECT_FALSE(mxu_->out_valid());
  ExpectGemm(a, w, m, k, ncols);
}

// The PEs and the data lanes of the skew lines have no reset (docs/mxu.md). With every such
// register starting random instead of zero, and junk on the inputs between rows and beats (the
// harness), no result appears that was not asked for and every result is exact.
TEST_F(MxuTest, RegistersWithoutResetMayStartAnywhere) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    HarnessOptions hopts =
        TestHarnessOptions(std::string(info->test_suite_name()) + "." + info->name() + ".n" +
                           std::to_string(kN) + ".seed" + std::to_string(seed));
    hopts.random_init_seed = seed;
    mxu_ = MakeMxuHarness<kN>(hopts);
    mxu_->Reset();
    for (int i = 0; i < 3 * kN; ++i) {
      EXPECT_FALSE(mxu_->out_valid()) << "cycle " << i << " after reset, seed " << seed;
      mxu_->Tick();
    }
    const int m = 3 * kN, k = 2 * kN, ncols = 2 * kN;
    MxuStreamOptions opts;
    opts.seed = seed;
    opts.weight_gap = 0.2;
    opts.act_gap = 0.3;
    ExpectGemm(RandomInt8(m * k, 40 + seed), RandomInt8(k * ncols, 50 + seed), m, k, ncols, opts);
  }
}

}  // namespace
}  // namespace tpu::tb
