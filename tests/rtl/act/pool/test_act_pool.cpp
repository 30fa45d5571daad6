// The Verilated pooling unit (tpu_act_pool) against the golden MaxPool2d / AvgPool2d, at the size
// given by TPU_ACT_POOL_N (built for 8 and 16). Images are NHWC with batch 1; each input row is a
// pixel of C <= N channels (lanes >= C are random and their outputs don't-care). Every streaming
// test runs with random input gaps and output stalls unless it measures throughput; failures
// print the configuration and the seed. Set TPU_TRACE=1 to dump build/waves/<test>.fst.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "act/pool/act_pool_harness.h"
#include "act/pool/act_pool_stream.h"
#include "golden/padding.h"
#include "golden/pool.h"
#include "golden/tensor.h"

namespace tpu::tb {
namespace {

constexpr int kN = TPU_ACT_POOL_N;

// Random stalls used by every streaming test that does not measure throughput.
constexpr double kInGap = 0.3;
constexpr double kOutStall = 0.3;

std::string Describe(const ActPoolConfig& c) {
  std::ostringstream s;
  s << (c.mode == PoolMode::kMax   ? "max"
        : c.mode == PoolMode::kAvg ? "avg"
                                   : "bypass")
    << " " << c.window_h << "x" << c.window_w << " stride " << c.stride_h << "x" << c.stride_w
    << " " << (c.same ? "SAME" : "VALID") << " image " << c.in_h << "x" << c.in_w << " clamp ["
    << c.act_min << ", " << c.act_max << "]";
  return s.str();
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

golden::Pool2dParams GoldenParams(const ActPoolConfig& c) {
  golden::Pool2dParams p;
  p.window_h = c.window_h;
  p.window_w = c.window_w;
  p.stride_h = c.stride_h;
  p.stride_w = c.stride_w;
  p.padding = c.same ? golden::Padding::kSame : golden::Padding::kValid;
  p.act_min = c.act_min;
  p.act_max = c.act_max;
  return p;
}

golden::PaddedAxis Axis(const ActPoolConfig& c, bool rows) {
  return golden::ComputePaddedAxis(c.same ? golden::Padding::kSame : golden::Padding::kValid,
                                   rows ? c.in_h : c.in_w, rows ? c.window_h : c.window_w,
                                   rows ? c.stride_h : c.stride_w, "pool", rows ? "h" : "w");
}

// in_h * in_w rows of kN values, uniform in [lo, hi].
std::vector<int8_t> RandomImage(int in_h, int in_w, uint64_t seed, int lo = -128, int hi = 127) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int8_t> v(size_t(in_h) * in_w * kN);
  for (auto& x : v) x = int8_t(dist(rng));
  return v;
}

// The golden pooled image: out_h * out_w pixels of `channels` values (the first lanes of each
// input row are the channels).
std::vector<int8_t> GoldenPool(const ActPoolConfig& c, const std::vector<int8_t>& image,
                               int channels) {
  golden::Tensor<int8_t> in({1, c.in_h, c.in_w, channels});
  for (int p = 0; p < c.in_h * c.in_w; ++p) {
    for (int ch = 0; ch < channels; ++ch) in.data[size_t(p) * channels + ch] = image[p * kN + ch];
  }
  const auto params = GoldenParams(c);
  return (c.mode == PoolMode::kMax ? golden::MaxPool2d(in, params) : golden::AvgPool2d(in, params))
      .data;
}

// The tag of each output row: that of the last input row accepted before the step that ends its
// window (the window's last pixel, or the row's / image's last pixel for windows ending on
// padding), for an image whose first row had tag `base`.
std::vector<uint32_t> ExpectedTags(const ActPoolConfig& c, uint32_t base) {
  const auto rows = Axis(c, true), cols = Axis(c, false);
  std::vector<uint32_t> tags;
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

class ActPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    pool_ = MakeActPoolHarness<kN>(TestHarnessOptions(std::string(info->test_suite_name()) + "." +
                                                      info->name() + ".n" + std::to_string(kN)));
    pool_->Reset();
  }

  static ActPoolStreamOptions Stalls(uint64_t seed) {
    ActPoolStreamOptions o;
    o.in_gap = kInGap;
    o.out_stall = kOutStall;
    o.seed = seed;
    return o;
  }

  // Streams `images` under `cfg` and expects every output lane below `channels` and every tag to
  // match the golden reference. Returns the stream statistics.
  ActPoolStreamStats ExpectPool(const ActPoolConfig& cfg,
                                const std::vector<std::vector<int8_t>>& images,
                                const ActPoolStreamOptions& opts, int channels = kN) {
    std::vector<int8_t> want;
    std::vector<uint32_t> want_tags;
    uint32_t base = 0;
    for (const auto& image : images) {
      const auto g = GoldenPool(cfg, image, channels);
      want.insert(want.end(), g.begin(), g.end());
      const auto t = ExpectedTags(cfg, base);
      want_tags.insert(want_tags.end(), t.begin(), t.end());
      base += uint32_t(cfg.in_h * cfg.in_w);
    }
    const uint64_t out_rows = want.size() / channels;
    const std::string what = Describe(cfg) + ", " + std::to_string(images.size()) + " image(s), " +
                             std::to_string(channels) + " channels, seed " +
                             std::to_string(opts.seed);
    ActPoolStreamResult got;
    try {
      got = RunActPool(*pool_, cfg, images, out_rows, opts);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what() << " (" << what << ")";
      pool_->Reset();
      return {};
    }
    int mismatches = 0;
    for (uint64_t r = 0; r < out_rows && mismatches < 5; ++r) {
      for (int ch = 0; ch < channels && mismatches < 5; ++ch) {
        const int g = got.rows[r * kN + ch], w = want[r * channels + ch];
        if (g != w) {
          ++mismatches;
          ADD_FAILURE() << "output pixel " << r << " channel " << ch << " = " << g << ", golden "
                        << w << " (" << what << ")";
        }
      }
      if (got.tags[r] != want_tags[r] && mismatches < 5) {
        ++mismatches;
        ADD_FAILURE() << "output pixel " << r << " tag " << got.tags[r] << ", expected "
                      << want_tags[r] << " (" << what << ")";
      }
    }
    return got.stats;
  }

  ActPoolStreamStats ExpectPool(const ActPoolConfig& cfg, const std::vector<int8_t>& image,
                                uint64_t seed) {
    return ExpectPool(cfg, std::vector<std::vector<int8_t>>{image}, Stalls(seed));
  }

  std::unique_ptr<ActPoolHarness> pool_;
};

// ---------------------------------------------------------------------------------------------
// Bypass
// ---------------------------------------------------------------------------------------------

TEST_F(ActPoolTest, BypassPassesEveryRowUnchanged) {
  ActPoolConfig cfg;
  cfg.mode = PoolMode::kBypass;
  cfg.in_h = 0;  // sizes, window and clamp are ignored in bypass
  cfg.in_w = 0;
  cfg.act_min = -5;
  cfg.act_max = 5;
  const int rows = 100;
  const auto data = RandomImage(1, rows, 1);
  const auto got = RunActPool(*pool_, cfg, {data}, rows, Stalls(2));
  ASSERT_EQ(got.rows.size(), data.size());
  EXPECT_EQ(got.rows, data);
  for (int r = 0; r < rows; ++r) EXPECT_EQ(got.tags[r], uint32_t(r)) << "row " << r;
}

TEST_F(ActPoolTest, BypassStreamsOneRowPerCycleWithLatencyFour) {
  ActPoolConfig cfg;
  const int rows = 64;
  const auto data = RandomImage(1, rows, 3);
  const auto got = RunActPool(*pool_, cfg, {data}, rows);
  EXPECT_EQ(got.rows, data);
  EXPECT_EQ(got.stats.in_wait, 0u);
  EXPECT_EQ(got.stats.cycles, uint64_t(rows + pool_->latency()));
  // One row, watched cycle by cycle.
  pool_->SetConfig(cfg);
  pool_->SetIn(true, data.data(), 7);
  pool_->SetOutReady(true);
  pool_->Eval();
  ASSERT_TRUE(pool_->in_ready());
  pool_->Tick();
  pool_->SetIn(false, nullptr, 0);
  int seen_at = -1;
  for (int cyc = 1; cyc <= 10; ++cyc) {
    pool_->Eval();
    if (pool_->out_valid()) {
      ASSERT_EQ(seen_at, -1) << "one row in, two out";
      seen_at = cyc;
      EXPECT_EQ(pool_->out_tag(), 7u);
    }
    pool_->Tick();
  }
  EXPECT_EQ(seen_at, pool_->latency());
  EXPECT_EQ(pool_->latency(), 6);
}

// ---------------------------------------------------------------------------------------------
// Sweep: every window, both paddings and modes, strides 1..3 in both axes, odd and non-square
// images, including 1xW and Hx1.
// ---------------------------------------------------------------------------------------------

struct SweepParam {
  PoolMode mode;
  bool same;
  int window_h, window_w;
};

std::string SweepName(const ::testing::TestParamInfo<SweepParam>& info) {
  const auto& p = info.param;
  return std::string(p.mode == PoolMode::kMax ? "Max" : "Avg") + (p.same ? "Same" : "Valid") +
         std::to_string(p.window_h) + "x" + std::to_string(p.window_w);
}

class ActPoolSweepTest : public ActPoolTest, public ::testing::WithParamInterface<SweepParam> {};

TEST_P(ActPoolSweepTest, MatchesGoldenForAllStridesAndShapes) {
  const auto& p = GetParam();
  const int shapes[][2] = {{1, 1}, {1, 9}, {8, 1}, {5, 7}, {7, 5}, {4, 4}, {6, 11}};
  uint64_t seed = uint64_t(p.window_h) * 1000 + p.window_w * 100 + p.same * 10 + int(p.mode);
  int runs = 0;
  for (int sh = 1; sh <= 3; ++sh) {
    for (int sw = 1; sw <= 3; ++sw) {
      for (const auto& s : shapes) {
        if (!p.same && (s[0] < p.window_h || s[1] < p.window_w)) continue;  // no VALID output
        const auto cfg = Pool(p.mode, s[0], s[1], p.window_h, p.window_w, sh, sw, p.same);
        seed = seed * 31 + 7;
        ExpectPool(cfg, RandomImage(s[0], s[1], seed), seed + 1);
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Windows, ActPoolSweepTest, ::testing::ValuesIn([] {
      std::vector<SweepParam> v;
      const int windows[][2] = {{1, 1}, {2, 2}, {3, 3}, {2, 3}, {3, 2}, {4, 4}};
      for (PoolMode m : {PoolMode::kMax, PoolMode::kAvg}) {
        for (bool same : {false, true}) {
          for (const auto& w : windows) v.push_back({m, same, w[0], w[1]});
        }
      }
      return v;
    }()),
    SweepName);

// Random configurations within the limits: windows and strides 1..4, both paddings, sizes up to
// 12 x 20, random clamps and channel counts, one or two images, random stall rates.
TEST_F(ActPoolTest, RandomConfigurations) {
  std::mt19937_64 rng(600);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 300; ++i) {
    const PoolMode m = uniform(0, 1) ? PoolMode::kMax : PoolMode::kAvg;
    const int wh = uniform(1, 4), ww = uniform(1, 4);
    const bool same = uniform(0, 1);
    const int in_h = std::max(uniform(1, 12), same ? 1 : wh);
    const int in_w = std::max(uniform(1, 20), same ? 1 : ww);
    auto cfg = Pool(m, in_h, in_w, wh, ww, uniform(1, 4), uniform(1, 4), same);
    if (uniform(0, 3) == 0) {
      cfg.act_min = uniform(-128, 127);
      cfg.act_max = uniform(cfg.act_min, 127);
    }
    const int channels = uniform(0, 1) ? kN : uniform(1, kN);
    std::vector<std::vector<int8_t>> images;
    for (int k = uniform(1, 2); k > 0; --k) {
      images.push_back(RandomImage(in_h, in_w, rng(), uniform(0, 3) ? -128 : -4, 127));
    }
    ActPoolStreamOptions o;
    o.in_gap = uniform(0, 6) / 10.0;
    o.out_stall = uniform(0, 6) / 10.0;
    o.seed = 10000 + i;
    ExpectPool(cfg, images, o, channels);
  }
}

// ---------------------------------------------------------------------------------------------
// Networks, borders, limits
// ---------------------------------------------------------------------------------------------

TEST_F(ActPoolTest, FashionMnistTwoByTwoStrideTwo) {
  for (PoolMode m : {PoolMode::kMax, PoolMode::kAvg}) {
    for (bool same : {false, true}) {
      ExpectPool(Pool(m, 28, 28, 2, 2, 2, 2, same), RandomImage(28, 28, 10 + int(m)), 20);
    }
    // The 14x14 maps of the second layer as well.
    ExpectPool(Pool(m, 14, 14, 2, 2, 2, 2, false), RandomImage(14, 14, 30 + int(m)), 40);
  }
}

TEST_F(ActPoolTest, ValidPoolingTakesOneInputRowPerCycle) {
  // No stalls: the input never waits, and the last output leaves `latency` cycles after the
  // last input.
  for (PoolMode m : {PoolMode::kMax, PoolMode::kAvg}) {
    const auto cfg = Pool(m, 28, 28, 2, 2, 2, 2, false);
    const auto st = ExpectPool(cfg, {RandomImage(28, 28, 50)}, ActPoolStreamOptions{});
    EXPECT_EQ(st.in_wait, 0u);
    EXPECT_EQ(st.cycles, uint64_t(28 * 28 + pool_->latency()));
    const auto cfg3 = Pool(m, 9, 10, 3, 3, 1, 1, false);  // overlapping windows
    const auto st3 = ExpectPool(cfg3, {RandomImage(9, 10, 51)}, ActPoolStreamOptions{});
    EXPECT_EQ(st3.in_wait, 0u);
    EXPECT_EQ(st3.cycles, uint64_t(9 * 10 + pool_->latency()));
  }
}

TEST_F(ActPoolTest, SamePaddingCostsOneCyclePerPaddingStep) {
  // 3x3 stride 1 SAME on 6x9: one padding column after every row and one padding row (10 steps)
  // after the image.
  const auto cfg = Pool(PoolMode::kAvg, 6, 9, 3, 3, 1, 1, true);
  const auto st = ExpectPool(cfg, {RandomImage(6, 9, 52)}, ActPoolStreamOptions{});
  EXPECT_EQ(st.cycles, uint64_t(7 * 10 + pool_->latency()));
}

TEST_F(ActPoolTest, SameBordersWithOverlappingWindows) {
  const int windows[][4] = {{3, 3, 1, 1}, {3, 3, 2, 2}, {4, 4, 1, 1}, {4, 4, 3, 3},
                            {2, 3, 1, 1}, {4, 2, 1, 2}, {3, 4, 2, 1}};
  uint64_t seed = 60;
  for (PoolMode m : {PoolMode::kMax, PoolMode::kAvg}) {
    for (const auto& w : windows) {
      for (const auto& s : {std::pair{5, 7}, std::pair{2, 3}, std::pair{9, 4}}) {
        ++seed;
        ExpectPool(Pool(m, s.first, s.second, w[0], w[1], w[2], w[3], true),
                   RandomImage(s.first, s.second, seed), seed);
      }
    }
  }
}

TEST_F(ActPoolTest, StridesLargerThanWindowsAndAtTheLimit) {
  const int windows[][4] = {{1, 1, 2, 2}, {2, 2, 3, 3}, {2, 2, 4, 4}, {1, 3, 4, 2}, {4, 4, 4, 4}};
  uint64_t seed = 100;
  for (PoolMode m : {PoolMode::kMax, PoolMode::kAvg}) {
    for (const auto& w : windows) {
      for (bool same : {false, true}) {
        ++seed;
        ExpectPool(Pool(m, 9, 11, w[0], w[1], w[2], w[3], same), RandomImage(9, 11, seed), seed);
      }
    }
  }
}

TEST_F(ActPoolTest, WidestAndTallImages) {
  const int width = pool_->limits().max_width;
  ExpectPool(Pool(PoolMode::kMax, 4, width, 3, 3, 1, 1, true), RandomImage(4, width, 120), 121);
  ExpectPool(Pool(PoolMode::kAvg, 5, width, 4, 4, 2, 2, false), RandomImage(5, width, 122), 123);
  ExpectPool(Pool(PoolMode::kAvg, 1, width, 1, 4, 1, 3, true), RandomImage(1, width, 124), 125);
  ExpectPool(Pool(PoolMode::kMax, 150, 1, 4, 1, 1, 1, true), RandomImage(150, 1, 126), 127);
  ExpectPool(Pool(PoolMode::kAvg, 150, 2, 3, 2, 2, 1, false), RandomImage(150, 2, 128), 129);
}

// ---------------------------------------------------------------------------------------------
// Values: extremes, rounding ties, clamps, unused lanes
// ---------------------------------------------------------------------------------------------

TEST_F(ActPoolTest, ExtremeValues) {
  const int h = 7, w = 6;
  std::vector<std::vector<int8_t>> images = {
      std::vector<int8_t>(size_t(h) * w * kN, -128), std::vector<int8_t>(size_t(h) * w * kN, 127),
      RandomImage(h, w, 140, -128, -127), RandomImage(h, w, 141, 126, 127)};
  std::vector<int8_t> mixed(size_t(h) * w * kN);
  for (size_t i = 0; i < mixed.size(); ++i) mixed[i] = ((i / kN + i) % 2) ? 127 : -128;
  images.push_back(mixed);
  uint64_t seed = 150;
  for (PoolMode m : {PoolMode::kMax, PoolMode::kAvg}) {
    for (const auto& cfg : {Pool(m, h, w, 4, 4, 1, 1, true), Pool(m, h, w, 3, 3, 2, 2, true),
                            Pool(m, h, w, 2, 3, 2, 1, false)}) {
      for (const auto& image : images) ExpectPool(cfg, image, ++seed);
    }
  }
}

TEST_F(ActPoolTest, AverageTiesRoundHalfAwayFromZero) {
  // Hand-checked 2x2 windows: sums -6, 6, -7, -2 over 4 elements.
  const int8_t px[4][4] = {{-1, -2, -1, -2}, {1, 2, 1, 2}, {-1, -2, -2, -2}, {0, -1, 0, -1}};
  const int want[4] = {-2, 2, -2, -1};  // -1.5, 1.5, -1.75, -0.5
  for (int t = 0; t < 4; ++t) {
    std::vector<int8_t> image(4 * kN);
    for (int p = 0; p < 4; ++p) {
      for (int c = 0; c < kN; ++c) image[p * kN + c] = px[t][p];
    }
    const auto cfg = Pool(PoolMode::kAvg, 2, 2, 2, 2, 2, 2, false);
    const auto got = RunActPool(*pool_, cfg, {image}, 1, Stalls(160 + t));
    for (int c = 0; c < kN; ++c) EXPECT_EQ(got.rows[c], want[t]) << "case " << t << " lane " << c;
    ExpectPool(cfg, image, 170 + t);
  }
  // Many ties: small values, windows of 2, 4, 6, 8 and 16 elements and border counts.
  uint64_t seed = 180;
  for (const auto& cfg :
       {Pool(PoolMode::kAvg, 6, 8, 2, 2, 1, 1, false), Pool(PoolMode::kAvg, 6, 8, 3, 3, 1, 1, true),
        Pool(PoolMode::kAvg, 6, 8, 2, 4, 2, 2, true), Pool(PoolMode::kAvg, 6, 8, 4, 4, 1, 1, true),
        Pool(PoolMode::kAvg, 5, 7, 1, 2, 1, 1, true)}) {
    for (int lo : {-3, -9}) {
      ++seed;
      ExpectPool(cfg, RandomImage(cfg.in_h, cfg.in_w, seed, lo, 2), seed);
    }
  }
}

TEST_F(ActPoolTest, ClampsToActivationRange) {
  uint64_t seed = 200;
  for (PoolMode m : {PoolMode::kMax, PoolMode::kAvg}) {
    for (const auto& range : {std::pair{-20, 50}, std::pair{0, 127}, std::pair{0, 6},
                              std::pair{-128, -100}, std::pair{5, 5}}) {
      auto cfg = Pool(m, 6, 7, 3, 2, 2, 1, true);
      cfg.act_min = range.first;
      cfg.act_max = range.second;
      ++seed;
      ExpectPool(cfg, RandomImage(6, 7, seed), seed);
    }
  }
}

TEST_F(ActPoolTest, FewerChannelsThanLanes) {
  const auto cfg = Pool(PoolMode::kAvg, 5, 7, 3, 3, 2, 2, true);
  ExpectPool(cfg, {RandomImage(5, 7, 210)}, Stalls(211), 3);
  ExpectPool(Pool(PoolMode::kMax, 5, 7, 2, 2, 1, 1, false), {RandomImage(5, 7, 212)}, Stalls(213),
             1);
}

// ---------------------------------------------------------------------------------------------
// Streams: images back to back, configuration changes, back-pressure
// ---------------------------------------------------------------------------------------------

TEST_F(ActPoolTest, ImagesBackToBack) {
  uint64_t seed = 300;
  for (const auto& cfg :
       {Pool(PoolMode::kAvg, 5, 7, 3, 3, 1, 1, true), Pool(PoolMode::kMax, 4, 6, 2, 2, 2, 2, false),
        Pool(PoolMode::kMax, 5, 5, 4, 4, 3, 3, true)}) {
    std::vector<std::vector<int8_t>> images;
    for (int i = 0; i < 4; ++i) images.push_back(RandomImage(cfg.in_h, cfg.in_w, ++seed));
    ExpectPool(cfg, images, Stalls(++seed));
  }
  // Without stalls, VALID images follow each other with no gap at all.
  const auto cfg = Pool(PoolMode::kAvg, 6, 6, 2, 2, 2, 2, false);
  std::vector<std::vector<int8_t>> images;
  for (int i = 0; i < 3; ++i) images.push_back(RandomImage(6, 6, ++seed));
  const auto st = ExpectPool(cfg, images, ActPoolStreamOptions{});
  EXPECT_EQ(st.in_wait, 0u);
  EXPECT_EQ(st.cycles, uint64_t(3 * 36 + pool_->latency()));
}

TEST_F(ActPoolTest, ConfigurationChangesBetweenImages) {
  uint64_t seed = 400;
  const ActPoolConfig cfgs[] = {
      Pool(PoolMode::kAvg, 5, 7, 3, 3, 1, 1, true), Pool(PoolMode::kMax, 9, 3, 2, 1, 2, 1, false),
      ActPoolConfig{},  // bypass
      Pool(PoolMode::kMax, 4, 4, 4, 4, 1, 1, true), Pool(PoolMode::kAvg, 5, 7, 3, 3, 1, 1, true)};
  for (const auto& cfg : cfgs) {
    ++seed;
    if (cfg.mode == PoolMode::kBypass) {
      const auto data = RandomImage(1, 10, seed);
      EXPECT_EQ(RunActPool(*pool_, cfg, {data}, 10, Stalls(seed)).rows, data);
    } else {
      ExpectPool(cfg, RandomImage(cfg.in_h, cfg.in_w, seed), seed);
    }
  }
}

TEST_F(ActPoolTest, OutputBackPressureStallsTheInputAndLosesNothing) {
  // The output is blocked for 200 cycles: the input must stop once the stages are full, and
  // everything arrives afterwards.
  for (PoolMode m : {PoolMode::kBypass, PoolMode::kMax}) {
    auto cfg = Pool(m, 6, 6, 1, 1, 1, 1, false);
    ActPoolStreamOptions o;
    o.out_hold = 200;
    o.seed = 500;
    std::vector<std::vector<int8_t>> images = {RandomImage(6, 6, 501)};
    const auto st = m == PoolMode::kBypass ? RunActPool(*pool_, cfg, images, 36, o).stats
                                           : ExpectPool(cfg, images, o);
    EXPECT_GT(st.in_wait, 150u) << "the input kept flowing into a blocked output";
    EXPECT_EQ(st.out_rows, 36u);
  }
}

// ---------------------------------------------------------------------------------------------
// Configurations beyond the limits stop the simulation with an assertion
// ---------------------------------------------------------------------------------------------

TEST_F(ActPoolTest, ConfigurationsBeyondTheLimitsAreAsserted) {
  const auto limits = pool_->limits();
  const ActPoolConfig bad[] = {
      Pool(PoolMode::kMax, 2, limits.max_width + 1, 2, 2, 2, 2, false),  // line too long
      Pool(PoolMode::kAvg, 8, 8, limits.max_window + 1, 1, 1, 1, true),  // window too large
      Pool(PoolMode::kMax, 8, 8, 2, 2, 1, limits.max_stride + 1, true),  // stride too large
      Pool(PoolMode::kMax, 3, 8, 4, 2, 1, 1, false),                     // VALID window > image
  };
  // Verilated models run a thread of their own: re-run the test in the child process.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (const auto& cfg : bad) {
    const auto image = RandomImage(cfg.in_h, cfg.in_w, 700);
    // Verilator reports failed assertions on stdout; the death test matches stderr.
    EXPECT_DEATH(
        {
          dup2(STDERR_FILENO, STDOUT_FILENO);
          RunActPool(*pool_, cfg, {image}, 1);
        },
        "assertion ConfigLegal failed")
        << Describe(cfg);
  }
}

// The unit reads its configuration from registers loaded every cycle, in two steps (the
// inputs, then what it derives from them): a configuration that arrives in the cycle that
// offers an image's first row, or in the cycle before, would be read late.
void ExpectConfigChangeAsserted(ActPoolHarness* pool, int idle_cycles) {
  const auto before = Pool(PoolMode::kMax, 4, 4, 2, 2, 2, 2, false);
  const auto after = Pool(PoolMode::kAvg, 6, 6, 3, 3, 1, 1, true);
  const auto image = RandomImage(after.in_h, after.in_w, 710);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        dup2(STDERR_FILENO, STDOUT_FILENO);
        pool->SetConfig(before);
        pool->SetConfigInputs(after);
        pool->SetIn(false, nullptr, 0);
        for (int i = 0; i < idle_cycles; ++i) {
          pool->Eval();
          pool->Tick();
        }
        pool->SetIn(true, image.data(), 0);
        pool->SetOutReady(true);
        pool->Eval();
        pool->Tick();
      },
      "assertion ConfigSettledAtImageStart failed");
}

TEST_F(ActPoolTest, ConfigurationChangedInTheFirstRowsCycleIsAsserted) {
  ExpectConfigChangeAsserted(pool_.get(), 0);
}

TEST_F(ActPoolTest, ConfigurationChangedTheCycleBeforeTheFirstRowIsAsserted) {
  ExpectConfigChangeAsserted(pool_.get(), 1);
}

}  // namespace
}  // namespace tpu::tb
