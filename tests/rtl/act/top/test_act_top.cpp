// The Verilated activation pipeline (tpu_act: tpu_act_requant -> tpu_act_pool) against the golden
// reference: RequantizeMatrix (then ApplyLut when the table is on) of the accumulator rows, whose
// rows are the pixels of an NHWC image (batch 1, C = N channels, raster order), then MaxPool2d /
// AvgPool2d with the same clamp bounds. Built for N = 8 and 16 (TPU_ACT_TOP_N). Every streaming
// test runs with random gaps on the input and random stalls on the output, except the throughput
// tests; the seeds are printed with any mismatch (TPU_SEED=<n> changes the base seed). Set
// TPU_TRACE=1 to dump build/waves/<suite>.<test>.n<N>.fst for each test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "act/top/act_harness.h"
#include "act/top/act_stream.h"
#include "golden/activation.h"
#include "golden/padding.h"
#include "golden/pool.h"
#include "golden/requant.h"
#include "golden/tensor.h"

namespace tpu::tb {
namespace {

constexpr int kN = TPU_ACT_TOP_N;
constexpr double kInGap = 0.3;     // random input gaps in every streaming test ...
constexpr double kOutStall = 0.3;  // ... and random output stalls

uint64_t BaseSeed() {
  const char* env = std::getenv("TPU_SEED");
  return env != nullptr ? std::strtoull(env, nullptr, 0) : 1;
}

ActPoolConfig Pool(PoolMode mode, int in_h, int in_w, int wh, int ww, int sh, int sw, bool same) {
  ActPoolConfig c;
  c.mode = mode;
  c.in_h = in_h;
  c.in_w = in_w;
  c.window_h = wh;
  c.window_w = ww;
  c.stride_h = sh;
  c.stride_w = sw;
  c.same = same;
  return c;
}

golden::PaddedAxis Axis(const ActPoolConfig& c, bool rows) {
  return golden::ComputePaddedAxis(c.same ? golden::Padding::kSame : golden::Padding::kValid,
                                   rows ? c.in_h : c.in_w, rows ? c.window_h : c.window_w,
                                   rows ? c.stride_h : c.stride_w, "pool", rows ? "h" : "w");
}

// Output rows of one image (one per input row in bypass).
int64_t OutRows(const ActPoolConfig& c, int64_t rows_in) {
  if (c.mode == PoolMode::kBypass) return rows_in;
  return Axis(c, true).out_size * Axis(c, false).out_size;
}

// The tag of each output row of one image whose first row had tag `base`: the last input row
// accepted before the step that ends its window (tpu_act_pool's header).
std::vector<uint32_t> ExpectedTags(const ActPoolConfig& c, uint32_t base, int64_t rows_in) {
  std::vector<uint32_t> tags;
  if (c.mode == PoolMode::kBypass) {
    for (int64_t r = 0; r < rows_in; ++r) tags.push_back((base + uint32_t(r)) & 0xFFFF);
    return tags;
  }
  const auto rows = Axis(c, true), cols = Axis(c, false);
  for (int64_t oy = 0; oy < rows.out_size; ++oy) {
    const int64_t y_end = oy * c.stride_h + c.window_h - 1 - rows.pad_before;
    for (int64_t ox = 0; ox < cols.out_size; ++ox) {
      const int64_t x_end = ox * c.stride_w + c.window_w - 1 - cols.pad_before;
      const int64_t last = y_end < c.in_h ? y_end * c.in_w + std::min<int64_t>(x_end, c.in_w - 1)
                                          : int64_t(c.in_h) * c.in_w - 1;
      tags.push_back((base + uint32_t(last)) & 0xFFFF);
    }
  }
  return tags;
}

// The golden result of one image (or, in bypass, any number of rows) of kN-lane accumulators.
std::vector<int8_t> Golden(const ActConfig& cfg, const std::vector<int32_t>& acc,
                           const golden::Lut* lut) {
  const ActRequantConfig& rq = cfg.requant;
  golden::RequantParams params;
  for (int c = 0; c < kN; ++c) params.multipliers.push_back({rq.multiplier[c], rq.shift[c]});
  params.out_zero_point = rq.out_zero_point;
  params.act_min = rq.act_min;
  params.act_max = rq.act_max;
  const int64_t m = int64_t(acc.size()) / kN;
  golden::Tensor<int8_t> y =
      golden::RequantizeMatrix(golden::Tensor<int32_t>({m, kN}, acc), rq.bias, params);
  if (rq.lut_enable) y = golden::ApplyLut(y, *lut);
  const ActPoolConfig& p = cfg.pool;
  if (p.mode == PoolMode::kBypass) return y.data;
  golden::Pool2dParams pp;
  pp.window_h = p.window_h;
  pp.window_w = p.window_w;
  pp.stride_h = p.stride_h;
  pp.stride_w = p.stride_w;
  pp.padding = p.same ? golden::Padding::kSame : golden::Padding::kValid;
  pp.act_min = rq.act_min;
  pp.act_max = rq.act_max;
  const golden::Tensor<int8_t> image({1, p.in_h, p.in_w, kN}, y.data);
  return (p.mode == PoolMode::kMax ? golden::MaxPool2d(image, pp) : golden::AvgPool2d(image, pp))
      .data;
}

std::string Describe(const ActConfig& cfg) {
  const ActPoolConfig& c = cfg.pool;
  std::ostringstream s;
  s << (c.mode == PoolMode::kMax   ? "max"
        : c.mode == PoolMode::kAvg ? "avg"
                                   : "bypass")
    << " " << c.window_h << "x" << c.window_w << " stride " << c.stride_h << "x" << c.stride_w
    << " " << (c.same ? "SAME" : "VALID") << " image " << c.in_h << "x" << c.in_w << ", zp "
    << cfg.requant.out_zero_point << " clamp [" << cfg.requant.act_min << ", "
    << cfg.requant.act_max << "] lut " << cfg.requant.lut_enable;
  return s.str();
}

// Requantization of real multiplier `scale` in every lane (per tensor) or `scale * (1 + c / 4)`
// in lane c (per channel), with random biases, and clamp bounds `range`.
ActRequantConfig Requant(double scale, bool per_channel, int32_t zp, golden::ActivationRange range,
                         std::mt19937_64& rng) {
  ActRequantConfig cfg;
  for (int c = 0; c < kN; ++c) {
    const auto q = golden::QuantizeMultiplier(per_channel ? scale * (1.0 + c / 4.0) : scale);
    cfg.multiplier.push_back(q.multiplier);
    cfg.shift.push_back(q.shift);
    cfg.bias.push_back(int32_t(rng() % 40001) - 20000);
  }
  cfg.out_zero_point = zp;
  cfg.act_min = range.min;
  cfg.act_max = range.max;
  return cfg;
}

std::vector<int32_t> RandomAcc(int64_t rows, std::mt19937_64& rng, int32_t span = 200000) {
  std::vector<int32_t> acc(size_t(rows) * kN);
  for (auto& a : acc) a = int32_t(rng() % uint64_t(2 * span + 1)) - span;
  return acc;
}

class ActTopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    h_ = MakeActHarness<kN>(TestHarnessOptions(std::string(info->test_suite_name()) + "." +
                                               info->name() + ".n" + std::to_string(kN)));
    h_->Reset();
    seed_ = BaseSeed() * 1000003 + std::hash<std::string>()(info->name());
    rng_.seed(seed_);
  }

  ActTopStreamOptions Stalls() {
    ActTopStreamOptions o;
    o.in_gap = kInGap;
    o.out_stall = kOutStall;
    o.seed = seed_ + runs_++;
    return o;
  }

  // Streams `images` (each one image of accumulator rows, or any rows in bypass) back to back
  // under `cfg` and expects the golden rows and tags. Returns the statistics.
  ActTopStreamStats Check(const ActConfig& cfg, const std::vector<std::vector<int32_t>>& images,
                          const ActTopStreamOptions& opts, const golden::Lut* lut = nullptr) {
    std::vector<int32_t> acc;
    std::vector<int8_t> want;
    std::vector<uint32_t> want_tags;
    for (const auto& image : images) {
      const int64_t rows = int64_t(image.size()) / kN;
      const auto g = Golden(cfg, image, lut);
      const auto t = ExpectedTags(cfg.pool, uint32_t(acc.size() / kN), rows);
      EXPECT_EQ(int64_t(g.size()), OutRows(cfg.pool, rows) * kN);
      want.insert(want.end(), g.begin(), g.end());
      want_tags.insert(want_tags.end(), t.begin(), t.end());
      acc.insert(acc.end(), image.begin(), image.end());
    }
    // Guard against degenerate data (everything clamped to one value).
    std::vector<bool> seen(256);
    for (int8_t v : want) seen[uint8_t(v)] = true;
    EXPECT_GE(std::count(seen.begin(), seen.end(), true), 8) << Describe(cfg);
    h_->SetConfig(cfg);
    if (lut != nullptr) LoadActLut(*h_, *lut);
    const ActTopStreamResult got = RunActTop(*h_, acc, want_tags.size(), opts);
    const std::string what = Describe(cfg) + "; seed " + std::to_string(seed_) + ", stall seed " +
                             std::to_string(opts.seed) + ", TPU_SEED " + std::to_string(BaseSeed());
    EXPECT_EQ(got.stats.in_rows, acc.size() / kN) << what;
    EXPECT_EQ(got.rows.size(), want.size()) << what;
    int mismatches = 0;
    for (size_t i = 0; i < std::min(got.rows.size(), want.size()) && mismatches < 5; ++i) {
      if (got.rows[i] != want[i]) {
        ++mismatches;
        ADD_FAILURE() << "output row " << i / kN << " lane " << i % kN << ": " << int(got.rows[i])
                      << ", expected " << int(want[i]) << " (" << what << ")";
      }
    }
    for (size_t r = 0; r < std::min(got.tags.size(), want_tags.size()) && mismatches < 5; ++r) {
      if (got.tags[r] != want_tags[r]) {
        ++mismatches;
        ADD_FAILURE() << "output row " << r << " tag " << got.tags[r] << ", expected "
                      << want_tags[r] << " (" << what << ")";
      }
    }
    EXPECT_FALSE(h_->busy()) << what;
    return got.stats;
  }

  std::unique_ptr<ActHarness> h_;
  uint64_t seed_ = 0;
  uint64_t runs_ = 0;
  std::mt19937_64 rng_;
};

// ReLU6 with scale 0.05, zero point -10: bounds [-10, 110].
golden::ActivationRange Relu6() {
  return golden::QuantizedActivationRange(golden::Activation::kRelu6, 0.05f, -10);
}

TEST_F(ActTopTest, BypassIsPureRequantWithRelu6) {
  ActConfig cfg;
  cfg.requant = Requant(0.0007, false, -10, Relu6(), rng_);
  ASSERT_EQ(cfg.requant.act_min, -10);
  ASSERT_EQ(cfg.requant.act_max, 110);
  Check(cfg, {RandomAcc(300, rng_)}, Stalls());
}

TEST_F(ActTopTest, MaxPool2x2Stride2ValidFashionMnist) {
  ActConfig cfg;
  cfg.requant = Requant(0.0007, false, 3, {-128, 127}, rng_);
  cfg.pool = Pool(PoolMode::kMax, 28, 28, 2, 2, 2, 2, false);
  // Two images back to back.
  Check(cfg, {RandomAcc(28 * 28, rng_), RandomAcc(28 * 28, rng_)}, Stalls());
}

TEST_F(ActTopTest, AvgPool3x3Stride1Same5x7) {
  ActConfig cfg;
  cfg.requant = Requant(0.0007, false, -4, Relu6(), rng_);
  cfg.pool = Pool(PoolMode::kAvg, 5, 7, 3, 3, 1, 1, true);
  Check(cfg, {RandomAcc(5 * 7, rng_), RandomAcc(5 * 7, rng_), RandomAcc(5 * 7, rng_)}, Stalls());
}

TEST_F(ActTopTest, PerChannelMultipliersMaxAndAvg) {
  ActConfig cfg;
  cfg.requant = Requant(0.0002, true, 0, {-100, 120}, rng_);
  cfg.pool = Pool(PoolMode::kMax, 9, 10, 3, 3, 2, 2, true);
  Check(cfg, {RandomAcc(9 * 10, rng_)}, Stalls());
  cfg.pool = Pool(PoolMode::kAvg, 8, 6, 2, 3, 2, 1, false);
  Check(cfg, {RandomAcc(8 * 6, rng_)}, Stalls());
}

TEST_F(ActTopTest, LookupTableThenAvgPool) {
  ActConfig cfg;
  // The table maps the lower clamp bound -20 to -71: the pooling unit's clamp brings it back.
  cfg.requant = Requant(0.0005, true, 0, {-20, 127}, rng_);
  cfg.requant.lut_enable = true;
  cfg.pool = Pool(PoolMode::kAvg, 6, 6, 2, 2, 2, 2, false);
  const golden::Lut lut =
      golden::BuildLut([](float x) { return std::tanh(x); }, 1.0f / 32, 0, 1.0f / 128, 0);
  Check(cfg, {RandomAcc(6 * 6, rng_), RandomAcc(6 * 6, rng_)}, Stalls(), &lut);
}

// Unstalled bypass: one row per cycle, the last result `latency` cycles after the last row.
TEST_F(ActTopTest, ThroughputBypass) {
  constexpr int kRows = 500;
  ActConfig cfg;
  cfg.requant = Requant(0.0007, true, -10, Relu6(), rng_);
  const ActTopStreamStats st = Check(cfg, {RandomAcc(kRows, rng_)}, ActTopStreamOptions{});
  EXPECT_EQ(h_->latency(), 13);
  EXPECT_EQ(st.first_out, uint64_t(h_->latency()));
  EXPECT_EQ(st.cycles, uint64_t(kRows + h_->latency()));
  EXPECT_EQ(st.in_wait, 0u);
  EXPECT_DOUBLE_EQ(st.SteadyInRowsPerCycle(), 1.0);
  EXPECT_DOUBLE_EQ(st.SteadyOutRowsPerCycle(), 1.0);
}

// Unstalled 2x2 max pooling of 28x28 images back to back: one input row per cycle, the last
// result `latency` cycles after the last row (which completes the last window).
TEST_F(ActTopTest, ThroughputMaxPool2x2) {
  ActConfig cfg;
  cfg.requant = Requant(0.0007, false, 0, {-128, 127}, rng_);
  cfg.pool = Pool(PoolMode::kMax, 28, 28, 2, 2, 2, 2, false);
  const ActTopStreamStats st =
      Check(cfg, {RandomAcc(28 * 28, rng_), RandomAcc(28 * 28, rng_)}, ActTopStreamOptions{});
  EXPECT_EQ(st.in_wait, 0u);
  EXPECT_EQ(st.cycles, uint64_t(2 * 28 * 28 + h_->latency()));
  EXPECT_DOUBLE_EQ(st.SteadyInRowsPerCycle(), 1.0);
}

// The output blocked for 100 cycles: the input stops once the stages are full, nothing is lost.
TEST_F(ActTopTest, BackPressureLosesNothing) {
  ActConfig cfg;
  cfg.requant = Requant(0.0007, false, 0, {-128, 127}, rng_);
  const std::vector<int32_t> acc = RandomAcc(40, rng_);
  h_->SetConfig(cfg);
  h_->SetOutReady(false);
  uint64_t taken = 0;
  for (int i = 0; i < 100; ++i) {
    h_->SetIn(true, &acc[(taken % 40) * kN], uint32_t(taken));
    h_->Eval();
    if (h_->in_ready()) ++taken;
    h_->Tick();
  }
  h_->SetIn(false, nullptr, 0);
  h_->Eval();
  // Both stages full: 7 requantization registers + the pooling unit's 6.
  EXPECT_GE(taken, 7u);
  EXPECT_LE(taken, 13u);
  EXPECT_TRUE(h_->busy());
  EXPECT_TRUE(h_->out_valid());
  // Drain with stalls and check what comes out.
  const auto want =
      Golden(cfg, std::vector<int32_t>(acc.begin(), acc.begin() + taken * kN), nullptr);
  std::vector<int8_t> row(kN);
  std::mt19937_64 rng(seed_);
  uint64_t got = 0;
  for (int i = 0; i < 1000 && got < taken; ++i) {
    const bool ready = rng() % 2;
    h_->SetOutReady(ready);
    h_->Eval();
    if (ready && h_->out_valid()) {
      EXPECT_EQ(h_->out_tag(), uint32_t(got));
      h_->GetOut(row.data());
      for (int c = 0; c < kN; ++c) EXPECT_EQ(row[c], want[got * kN + c]) << "row " << got;
      ++got;
    }
    h_->Tick();
  }
  EXPECT_EQ(got, taken);
  h_->SetOutReady(true);
  h_->Eval();
  EXPECT_FALSE(h_->busy());
  EXPECT_FALSE(h_->out_valid());
}

// busy_o is high from the acceptance of an image's first row until its last result is taken,
// whichever stage holds the rows, and low afterwards.
TEST_F(ActTopTest, BusyWhileRowsInFlight) {
  ActConfig cfg;
  cfg.requant = Requant(0.0007, false, 0, {-128, 127}, rng_);
  for (const ActPoolConfig& pool :
       {ActPoolConfig{}, Pool(PoolMode::kMax, 2, 2, 2, 2, 2, 2, false)}) {
    cfg.pool = pool;
    h_->SetConfig(cfg);
    const int rows = pool.in_h * pool.in_w;
    const std::vector<int32_t> acc = RandomAcc(rows, rng_);
    int sent = 0, cycles = 0;
    bool taken = false;
    while (!taken) {
      ASSERT_LT(++cycles, 100) << "no result";
      h_->SetIn(sent < rows, sent < rows ? &acc[size_t(sent) * kN] : nullptr, uint32_t(sent));
      h_->SetOutReady(true);
      h_->Eval();
      if (sent > 0) EXPECT_TRUE(h_->busy()) << "cycle " << cycles << " " << Describe(cfg);
      taken = h_->out_valid();
      if (sent < rows && h_->in_ready()) ++sent;
      h_->Tick();
    }
    h_->SetIn(false, nullptr, 0);
    h_->Eval();
    EXPECT_FALSE(h_->busy()) << Describe(cfg);
    EXPECT_FALSE(h_->out_valid()) << Describe(cfg);
    h_->Tick();
  }
}

}  // namespace
}  // namespace tpu::tb
