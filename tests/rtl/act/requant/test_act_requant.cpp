// The Verilated requantization stage (tpu_act_requant) against the golden reference
// (RequantizeMatrix, then ApplyLut), at the size given by TPU_ACT_N (built for 8 and 16). Every
// streaming test runs with random gaps on the input and random stalls on the output; the seed
// of each run is printed with any mismatch (TPU_SEED=<n> changes the base seed). Set
// TPU_TRACE=1 to dump build/waves/<suite>.<test>.n<N>.fst for each test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "act/requant/act_requant_harness.h"
#include "act/requant/act_requant_stream.h"
#include "golden/activation.h"
#include "golden/int32_wrap.h"
#include "golden/requant.h"
#include "golden/tensor.h"

namespace tpu::tb {
namespace {

constexpr int kN = TPU_ACT_N;
constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
constexpr int32_t kHalf = int32_t{1} << 30;  // 0.5 in Q0.31
constexpr int32_t kTenth = 1717986918;       // QuantizeMultiplier(0.1) = (kTenth, -3)

int32_t WrapSub(int32_t a, int32_t b) { return golden::BitsToInt32(uint32_t(a) - uint32_t(b)); }

uint64_t BaseSeed() {
  const char* env = std::getenv("TPU_SEED");
  return env != nullptr ? std::strtoull(env, nullptr, 0) : 1;
}

// The same (M0, shift) and no bias in every lane: per-tensor quantization.
ActRequantConfig Uniform(int32_t multiplier, int shift, int32_t zp = 0, int32_t act_min = -128,
                         int32_t act_max = 127) {
  ActRequantConfig cfg;
  cfg.bias.assign(kN, 0);
  cfg.multiplier.assign(kN, multiplier);
  cfg.shift.assign(kN, shift);
  cfg.out_zero_point = zp;
  cfg.act_min = act_min;
  cfg.act_max = act_max;
  return cfg;
}

// What the golden reference computes for m x kN accumulators under `cfg`.
std::vector<int8_t> Golden(const std::vector<int32_t>& acc, const ActRequantConfig& cfg,
                           const golden::Lut& lut) {
  golden::RequantParams params;
  for (int c = 0; c < kN; ++c) params.multipliers.push_back({cfg.multiplier[c], cfg.shift[c]});
  params.out_zero_point = cfg.out_zero_point;
  params.act_min = cfg.act_min;
  params.act_max = cfg.act_max;
  const int64_t m = int64_t(acc.size()) / kN;
  golden::Tensor<int8_t> out =
      golden::RequantizeMatrix(golden::Tensor<int32_t>({m, kN}, acc), cfg.bias, params);
  if (cfg.lut_enable) out = golden::ApplyLut(out, lut);
  return out.data;
}

// Random configurations and accumulators. "In range" ones aim each result at the clamp window
// (a target output divided by the lane's real multiplier), so that rounding, not saturation,
// decides most of them (unless the multiplier is too small to reach it); "full range" ones are
// uniform over every int32 and every shift.
class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  int32_t Int32() { return int32_t(uint32_t(rng_())); }
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  double Real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }

  // Zero point and clamp bounds: the full int8 range half of the time.
  void RandomOutput(ActRequantConfig& cfg) {
    cfg.out_zero_point = Uniform(-128, 127);
    cfg.act_min = -128;
    cfg.act_max = 127;
    if (Uniform(0, 1) == 1) {
      cfg.act_min = Uniform(-128, 127);
      cfg.act_max = Uniform(cfg.act_min, 127);
    }
  }

  // Per-channel multipliers log-uniform in [2^-22, 2^8] (large enough for an int32 accumulator
  // to reach any int8 output), each lane its own (M0, shift).
  ActRequantConfig InRangeConfig() {
    ActRequantConfig cfg;
    for (int c = 0; c < kN; ++c) {
      const golden::QuantizedMultiplier q = golden::QuantizeMultiplier(std::exp2(Real(-22, 8)));
      cfg.multiplier.push_back(q.multiplier);
      cfg.shift.push_back(q.shift);
      cfg.bias.push_back(Uniform(0, 3) == 0 ? Int32() : Uniform(-100000, 100000));
    }
    RandomOutput(cfg);
    return cfg;
  }

  std::vector<int32_t> InRangeRows(const ActRequantConfig& cfg, int rows) {
    std::vector<int32_t> acc;
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < kN; ++c) {
        const double real = std::ldexp(double(cfg.multiplier[c]), cfg.shift[c] - 31);
        // An output a little beyond the clamp window at most, before the zero point.
        const double y = Real(cfg.act_min - 4, cfg.act_max + 4) - cfg.out_zero_point;
        const double want = y / real + Uniform(-3, 3);
        const double sum = std::fmax(std::fmin(std::round(want), double(kMax)), double(kMin));
        acc.push_back(WrapSub(int32_t(sum), cfg.bias[c]));
      }
    }
    return acc;
  }

  // Any int32 bias and M0 (negative ones too: the datapath computes them exactly), any shift.
  ActRequantConfig FullRangeConfig() {
    ActRequantConfig cfg;
    for (int c = 0; c < kN; ++c) {
      cfg.bias.push_back(Int32());
      cfg.multiplier.push_back(Int32());
      cfg.shift.push_back(Uniform(-31, 30));
    }
    RandomOutput(cfg);
    return cfg;
  }

  std::vector<int32_t> FullRangeRows(int rows) {
    std::vector<int32_t> acc(size_t(rows) * kN);
    for (auto& a : acc) a = Int32();
    return acc;
  }

  golden::Lut RandomLut() {
    golden::Lut lut;
    for (auto& e : lut) e = int8_t(Uniform(-128, 127));
    return lut;
  }

 private:
  std::mt19937_64 rng_;
};

class ActRequantTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    h_ = MakeActRequantHarness<kN>(TestHarnessOptions(std::string(info->test_suite_name()) + "." +
                                                      info->name() + ".n" + std::to_string(kN)));
    h_->Reset();
    seed_ = BaseSeed() * 1000003 + std::hash<std::string>()(info->name());
  }

  // Random gaps and stalls for the next run, each run with its own seed.
  ActStreamOptions Stalls() {
    ActStreamOptions opts;
    opts.seed = seed_ + runs_++;
    opts.in_gap = 0.3;
    opts.out_stall = 0.3;
    return opts;
  }

  void LoadLut(const golden::Lut& lut) {
    lut_ = lut;
    tb::LoadLut(*h_, lut);
  }

  // Streams `acc` with `cfg` (and random stalls unless `opts` is given) and expects every
  // element to equal the golden reference. Returns the results.
  std::vector<int8_t> Expect(const std::vector<int32_t>& acc, const ActRequantConfig& cfg,
                             const std::string& what, const ActStreamOptions* opts = nullptr,
                             ActStreamStats* stats = nullptr) {
    const ActStreamOptions run = opts != nullptr ? *opts : Stalls();
    h_->SetConfig(cfg);
    const std::vector<int8_t> got = RunActRequant(*h_, acc, run, stats);
    const std::vector<int8_t> want = Golden(acc, cfg, lut_);
    int mismatches = 0;
    for (size_t i = 0; i < want.size() && mismatches < 5; ++i) {
      if (got[i] == want[i]) continue;
      ++mismatches;
      const int c = int(i % kN);
      ADD_FAILURE() << what << ": row " << i / kN << " channel " << c << " = " << int(got[i])
                    << ", golden " << int(want[i]) << " (acc " << acc[i] << " bias " << cfg.bias[c]
                    << " M0 " << cfg.multiplier[c] << " shift " << cfg.shift[c] << " zp "
                    << cfg.out_zero_point << " clamp [" << cfg.act_min << ", " << cfg.act_max
                    << "] lut " << cfg.lut_enable << "; stall seed " << run.seed << ", TPU_SEED "
                    << BaseSeed() << ")";
    }
    return got;
  }

  std::unique_ptr<ActRequantHarness> h_;
  golden::Lut lut_{};
  uint64_t seed_ = 0;
  uint64_t runs_ = 0;
};

// ---- Timing and handshakes ------------------------------------------------------------------

TEST_F(ActRequantTest, LatencyIsSevenAndTagComesBack) {
  const ActRequantConfig cfg = Uniform(kHalf, 1);  // x 1.0
  h_->SetConfig(cfg);
  std::vector<int32_t> row(kN);
  for (int c = 0; c < kN; ++c) row[c] = c - 3;
  h_->SetOutReady(true);
  h_->SetIn(true, row.data(), 0xBEEF);
  h_->Eval();
  ASSERT_TRUE(h_->in_ready());
  h_->Tick();
  h_->SetIn(false, nullptr, 0);
  int seen_at = -1;
  for (int cyc = 1; cyc <= 20; ++cyc) {
    h_->Eval();
    EXPECT_EQ(h_->busy(), seen_at == -1) << "cycle " << cyc;
    if (h_->out_valid()) {
      ASSERT_EQ(seen_at, -1) << "one row in, two results out";
      seen_at = cyc;
      EXPECT_EQ(h_->out_tag(), 0xBEEFu);
      std::vector<int8_t> out(kN);
      h_->GetOut(out.data());
      for (int c = 0; c < kN; ++c) EXPECT_EQ(out[c], c - 3) << "channel " << c;
    }
    h_->Tick();
  }
  EXPECT_EQ(seen_at, h_->latency());
  EXPECT_EQ(h_->latency(), 7);
}

TEST_F(ActRequantTest, ThroughputIsOneRowPerCycle) {
  Generator gen(seed_);
  const ActRequantConfig cfg = gen.InRangeConfig();
  const int rows = 16 * kN;
  const ActStreamOptions no_stalls;
  ActStreamStats stats;
  Expect(gen.InRangeRows(cfg, rows), cfg, "unstalled stream", &no_stalls, &stats);
  EXPECT_EQ(stats.in_wait, 0u) << "the input was back-pressured without an output stall";
  EXPECT_EQ(stats.cycles, uint64_t(rows + h_->latency()));
  EXPECT_DOUBLE_EQ(stats.SteadyRowsPerCycle(), 1.0);
}

TEST_F(ActRequantTest, OutputStallFillsThePipelineAndLosesNothing) {
  Generator gen(seed_);
  const ActRequantConfig cfg = gen.InRangeConfig();
  const int rows = 12;
  const std::vector<int32_t> acc = gen.InRangeRows(cfg, rows);
  const std::vector<int8_t> want = Golden(acc, cfg, lut_);
  h_->SetConfig(cfg);
  // The consumer refuses everything for 20 cycles: exactly one row per stage gets in.
  int sent = 0, received = 0;
  for (int cyc = 0; cyc < 20; ++cyc) {
    h_->SetIn(true, &acc[size_t(sent) * kN], uint32_t(sent));
    h_->SetOutReady(false);
    h_->Eval();
    if (h_->in_ready()) ++sent;
    h_->Tick();
  }
  EXPECT_EQ(sent, h_->latency());
  // Then it takes every third cycle; the pipeline must hand over every row, in order, once.
  std::vector<int8_t> out(kN);
  for (int cyc = 0; received < rows && cyc < 200; ++cyc) {
    const bool offer = sent < rows;
    h_->SetIn(offer, offer ? &acc[size_t(sent) * kN] : nullptr, uint32_t(sent));
    const bool ready = cyc % 3 == 2;
    h_->SetOutReady(ready);
    h_->Eval();
    EXPECT_TRUE(h_->out_valid()) << "bubble while full, cycle " << cyc;
    if (offer && h_->in_ready()) ++sent;
    if (h_->out_valid() && ready) {
      EXPECT_EQ(h_->out_tag(), uint32_t(received));
      h_->GetOut(out.data());
      for (int c = 0; c < kN; ++c) {
        EXPECT_EQ(out[c], want[size_t(received) * kN + c]) << "row " << received << " ch " << c;
      }
      ++received;
    }
    h_->Tick();
  }
  EXPECT_EQ(received, rows);
  h_->Eval();
  EXPECT_FALSE(h_->busy());
}

TEST_F(ActRequantTest, ResetInTheMiddleOfAStreamStartsClean) {
  Generator gen(seed_);
  const ActRequantConfig cfg = gen.InRangeConfig();
  const std::vector<int32_t> acc = gen.InRangeRows(cfg, 4);
  h_->SetConfig(cfg);
  h_->SetIn(true, acc.data(), 0);
  h_->SetOutReady(false);
  for (int i = 0; i < 3; ++i) h_->Tick();
  h_->Reset();
  h_->Eval();
  EXPECT_FALSE(h_->busy());
  EXPECT_FALSE(h_->out_valid());
  Expect(acc, cfg, "after reset");
}

// ---- Arithmetic -----------------------------------------------------------------------------

TEST_F(ActRequantTest, RandomPerChannelInRange) {
  Generator gen(seed_);
  int inside = 0, total = 0;  // results strictly between the clamp bounds
  for (int pass = 0; pass < 12; ++pass) {
    const ActRequantConfig cfg = gen.InRangeConfig();
    const auto got =
        Expect(gen.InRangeRows(cfg, 3 * kN), cfg, "in-range pass " + std::to_string(pass));
    for (int8_t v : got) inside += v > cfg.act_min && v < cfg.act_max;
    total += int(got.size());
  }
  // Rounding, not saturation, must decide most results for this test to mean anything.
  EXPECT_GT(inside, total / 2);
}

TEST_F(ActRequantTest, RandomFullRange) {
  Generator gen(seed_);
  for (int pass = 0; pass < 12; ++pass) {
    const ActRequantConfig cfg = gen.FullRangeConfig();
    Expect(gen.FullRangeRows(3 * kN), cfg, "full-range pass " + std::to_string(pass));
  }
}

// One value through MultiplyByQuantizedMultiplier: acc + bias, M0 and shift of one lane.
struct EdgeCase {
  int32_t acc;
  int32_t bias;
  int32_t multiplier;
  int shift;
};

// Every case of tests/golden/test_requant.cpp, made visible at the int8 output: a large
// intermediate value only shows through the clamp, so each SRDHM case also runs with right
// shifts that bring it into the int8 window, and left-shift wraps use small multipliers.
std::vector<EdgeCase> EdgeCases() {
  std::vector<EdgeCase> cases;
  auto add = [&](int32_t x, int32_t m0, int shift) {
    cases.push_back({x, 0, m0, shift});
    // The same x reached through a bias that wraps the add.
    const int32_t bias = int32_t(0x9E3779B9u ^ uint32_t(x));
    cases.push_back({WrapSub(x, bias), bias, m0, shift});
  };
  // SaturatingRoundingDoublingHighMul: INT32_MIN x INT32_MIN, extremes, ties of both signs.
  const int32_t srdhm[][2] = {{kMin, kMin},    {kMin, kMax},          {kMax, kMax},
                              {kMin, kHalf},   {1 << 15, 1 << 15},    {3 << 15, 1 << 15},
                              {1001, kHalf},   {-(1 << 15), 1 << 15}, {-(3 << 15), 1 << 15},
                              {-1001, kHalf},  {-(kHalf + 1), 1},     {1000, kTenth},
                              {-1000, kTenth}, {7, 1 << 29},          {-7, 1 << 29}};
  for (const auto& p : srdhm) {
    for (int shift : {0, -1, -2, -8, -16, -23, -24, -25, -30, -31}) add(p[0], p[1], shift);
  }
  // RoundingDivideByPOT(x, e): SRDHM(-x, INT32_MIN) = x exactly, then shift -e. (x = INT32_MIN
  // cannot come out of SRDHM, so it has no case here.)
  const std::vector<std::pair<int, std::vector<int32_t>>> rdbpot = {
      {1, {5, -5, 3, -3, -1, -4}},  // ties away from zero, and exact
      {2, {6, -6, -7, -5, 5}},
      {3, {800}},
      {0, {kMin + 1, -7, -1, 0, 1, 7, kMax}},
      {31, {kMax, kHalf, -kHalf, kHalf - 1, -(kHalf - 1), -kMax}},
      {30, {kMax}},
      {24, {kMax, -kMax}}};
  for (const auto& [e, xs] : rdbpot) {
    for (int32_t x : xs) {
      EXPECT_EQ(golden::SaturatingRoundingDoublingHighMul(-x, kMin), x);
      add(-x, kMin, -e);
    }
  }
  // MultiplyByQuantizedMultiplier and Requantize cases, as written there.
  const int32_t mbqm[][3] = {
      {7, kHalf, 0},       {-7, kHalf, 0},     {-10, kHalf, -1},     {10, kHalf, -1},
      {1000, kTenth, -3},  {kMax, kHalf, -31}, {kMin, kHalf, -31},   {1000, kHalf, -31},
      {12345, kHalf, 1},   {-12345, kHalf, 1}, {100, 1610612736, 2}, {1, kMax, 30},
      {kHalf, kHalf, 1},   {2000, kTenth, -3}, {-2000, kTenth, -3},  {0, kTenth, -3},
      {-1000, kTenth, -3}, {-50, kHalf, 0},    {200, kHalf, 0},      {40, kHalf, 0},
      {kMax, kMax, 0},     {kMin, kMax, 0},    {-10, kHalf, -1},     {110, kHalf, 0}};
  for (const auto& p : mbqm) add(p[0], p[1], p[2]);
  // Left shifts that wrap in int32, seen through small multipliers (|result| <= |M0|).
  for (int32_t x : {kHalf, 3 << 29, 0x12345678, -0x12345678, kMax, kMin, kHalf + 1, -kHalf - 1}) {
    for (int shift : {1, 2, 7, 30}) {
      for (int32_t m0 : {100, 256, -77}) add(x, m0, shift);
    }
  }
  // M0 = 0 and M0 = INT32_MAX, at shifts 0, -31 and +30.
  for (int32_t x : {kMin, -1, 0, 1, 12345, kMax}) {
    for (int shift : {0, -31, 30}) {
      add(x, 0, shift);
      add(x, kMax, shift);
    }
  }
  return cases;
}

TEST_F(ActRequantTest, EveryGoldenEdgeCase) {
  const std::vector<EdgeCase> cases = EdgeCases();
  // Zero point and clamp of each pass: none, the extremes, ReLU and ReLU6-style bounds.
  const int32_t outputs[][3] = {{0, -128, 127},    {5, -128, 127},  {127, -128, 127},
                                {-128, -128, 127}, {-1, -128, 127}, {-10, -10, 127},
                                {-10, -10, 50}};
  Generator gen(seed_);
  int pass = 0;
  for (const auto& o : outputs) {
    for (size_t first = 0; first < cases.size(); first += kN) {
      // Lane c takes case first + c (wrapping around at the end); a second row reuses the lanes'
      // configuration with random accumulators.
      ActRequantConfig cfg = Uniform(0, 0, o[0], o[1], o[2]);
      std::vector<int32_t> acc;
      for (int c = 0; c < kN; ++c) {
        const EdgeCase& e = cases[(first + c) % cases.size()];
        cfg.bias[c] = e.bias;
        cfg.multiplier[c] = e.multiplier;
        cfg.shift[c] = e.shift;
        acc.push_back(e.acc);
      }
      for (int c = 0; c < kN; ++c) acc.push_back(gen.Int32());
      Expect(acc, cfg, "edge-case pass " + std::to_string(pass++));
    }
  }
}

TEST_F(ActRequantTest, SaturatesAtBothEnds) {
  // x 1.0 (whose left shift wraps the largest values), x 0.5, x ~1 without a shift and the
  // saturated (INT32_MAX, 30): huge accumulators hit 127 and -128, with and without the bias
  // add wrapping, for the extreme zero points.
  const std::vector<int32_t> big = {kMax, kMin, kMax - 1, kMin + 1, 1 << 20, -(1 << 20), 128, -129};
  for (int32_t zp : {-128, 0, 127}) {
    for (const auto& [m0, shift] :
         std::vector<std::pair<int32_t, int>>{{kHalf, 1}, {kHalf, 0}, {kMax, 30}, {kMax, 0}}) {
      ActRequantConfig cfg = Uniform(m0, shift, zp);
      std::vector<int32_t> acc;
      for (int i = 0; i < 2 * kN; ++i) acc.push_back(big[i % big.size()]);
      for (int c = 0; c < kN; ++c) cfg.bias[c] = (c % 4 == 3) ? 1000 : 0;  // wraps kMax
      const std::vector<int8_t> got = Expect(acc, cfg, "saturation zp " + std::to_string(zp));
      if (m0 == kMax && shift == 0 && zp == 0) {
        EXPECT_EQ(got[0], 127);   // INT32_MAX x (1 - 2^-31)
        EXPECT_EQ(got[1], -128);  // INT32_MIN x (1 - 2^-31)
      }
    }
  }
}

TEST_F(ActRequantTest, ActivationBoundsFromQuantizedActivationRange) {
  Generator gen(seed_);
  using golden::Activation;
  for (Activation act :
       {Activation::kNone, Activation::kRelu, Activation::kRelu6, Activation::kReluN1To1}) {
    for (const auto& [scale, zp] : std::vector<std::pair<float, int32_t>>{
             {0.05f, -128}, {0.02f, 0}, {0.1f, 10}, {0.5f, 127}}) {
      const golden::ActivationRange range = golden::QuantizedActivationRange(act, scale, zp);
      ActRequantConfig cfg = gen.InRangeConfig();
      cfg.out_zero_point = zp;
      cfg.act_min = range.min;
      cfg.act_max = range.max;
      const std::vector<int8_t> got =
          Expect(gen.InRangeRows(cfg, 4 * kN), cfg, "activation " + std::to_string(int(act)));
      for (int8_t v : got) {
        EXPECT_GE(v, range.min);
        EXPECT_LE(v, range.max);
      }
    }
  }
}

// ---- Lookup table ---------------------------------------------------------------------------

// Rows whose clamped values cover all 256 codes (x 1.0, zero point 0), then random rows.
std::vector<int32_t> EveryCodeRows(Generator& gen, const ActRequantConfig& cfg) {
  std::vector<int32_t> acc;
  for (int v = -128; v <= 127; ++v) acc.push_back(v);
  const std::vector<int32_t> more = gen.InRangeRows(cfg, 2 * kN);
  acc.insert(acc.end(), more.begin(), more.end());
  return acc;
}

TEST_F(ActRequantTest, SigmoidAndTanhTables) {
  Generator gen(seed_);
  const golden::Lut sigmoid = golden::BuildLut([](float x) { return 1.0f / (1.0f + std::exp(-x)); },
                                               1.0f / 16, 0, 1.0f / 256, -128);
  const golden::Lut tanh =
      golden::BuildLut([](float x) { return std::tanh(x); }, 1.0f / 32, 0, 1.0f / 128, 0);
  ActRequantConfig cfg = Uniform(kHalf, 1);
  cfg.lut_enable = true;
  LoadLut(sigmoid);
  std::vector<int8_t> got = Expect(EveryCodeRows(gen, cfg), cfg, "sigmoid");
  EXPECT_EQ(got[128], 0);   // sigmoid(0) = 0.5 -> 128 - 128
  EXPECT_EQ(got[144], 59);  // sigmoid(1) (test_activation.cpp)
  LoadLut(tanh);
  got = Expect(EveryCodeRows(gen, cfg), cfg, "tanh");
  EXPECT_EQ(got[128 + 32], 97);  // tanh(1) x 128
  EXPECT_EQ(got[0], -128);
}

TEST_F(ActRequantTest, RandomTablePerChannelAndClamped) {
  Generator gen(seed_);
  LoadLut(gen.RandomLut());
  for (int pass = 0; pass < 4; ++pass) {
    ActRequantConfig cfg = gen.InRangeConfig();
    cfg.lut_enable = true;
    Expect(gen.InRangeRows(cfg, 3 * kN), cfg, "random table pass " + std::to_string(pass));
  }
  ActRequantConfig cfg = Uniform(kHalf, 1);
  cfg.lut_enable = true;
  Expect(EveryCodeRows(gen, cfg), cfg, "random table, every code");
}

TEST_F(ActRequantTest, TableReloadsAndBypass) {
  Generator gen(seed_);
  ActRequantConfig cfg = Uniform(kHalf, 1);
  for (int table = 0; table < 2; ++table) {
    LoadLut(gen.RandomLut());
    cfg.lut_enable = true;
    Expect(EveryCodeRows(gen, cfg), cfg, "table " + std::to_string(table));
    cfg.lut_enable = false;  // the table is still loaded, and ignored
    Expect(EveryCodeRows(gen, cfg), cfg, "bypass after table " + std::to_string(table));
  }
}

// ---- Assertions -----------------------------------------------------------------------------

// Loading the table while rows are in flight is not allowed; the RTL assertion stops the
// simulation. (Verilator prints assertion messages on stdout: the death test reads stderr.)
TEST(ActRequantDeathTest, LutWriteWithRowsInFlightFailsAnAssertion) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_DEATH(
      {
        ::dup2(STDERR_FILENO, STDOUT_FILENO);
        std::setvbuf(stdout, nullptr, _IONBF, 0);
        auto h = MakeActRequantHarness<kN>();
        h->Reset();
        h->SetConfig(Uniform(kHalf, 0));
        std::vector<int32_t> row(kN, 1);
        h->SetIn(true, row.data(), 0);
        h->Tick();
        h->SetIn(false, nullptr, 0);
        h->SetLutWrite(true, 3, 4);
        h->Tick();
        h->Tick();
      },
      "LutLoadOnlyWhenIdle");
}

}  // namespace
}  // namespace tpu::tb
