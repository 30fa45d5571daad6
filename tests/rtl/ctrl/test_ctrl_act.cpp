// The activation unit tpu_ctrl_act together with the real activation pipeline tpu_act (test top
// testbench/ctrl/tpu_ctrl_act_tb.sv), in every configuration built by
// testbench/ctrl/CMakeLists.txt. Instructions are encoded with tpu::isa::Encode and checked with
// tpu::isa::Check; every UB row written is compared, in order, with the golden reference
// (host_driver/golden: RequantizeMatrix, ApplyLut, MaxPool2d / AvgPool2d), and so is every
// accumulator row read, the UB as a whole (rows never written keep their guard pattern), the
// tokens taken and given, and the shared unit ports (docs/controller.md section 1a). The
// parameter memory and the table are loaded through the unit's write ports by a model of the DMA
// unit, at unaligned byte addresses (byte masks), ordered by tokens. Random tests print their
// seed; set TPU_SEED to rerun with another base seed, TPU_TRACE=1 to dump waveforms.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "ctrl/act_unit_env.h"
#include "ctrl/act_unit_harness.h"
#include "golden/activation.h"
#include "golden/requant.h"
#include "isa/isa.h"

namespace tpu::tb {
namespace {

using MakeFn = std::unique_ptr<ActUnitHarness> (*)(const HarnessOptions&);

struct Variant {
  const char* name;
  MakeFn make;
};

// Keep in step with the models built in testbench/ctrl/CMakeLists.txt.
const Variant kVariants[] = {
    {"N8", &MakeActUnitHarness<0>},       // UbRows 1024, AccRows 1024, ParamSets 8
    {"N16_odd", &MakeActUnitHarness<1>},  // UbRows 1000, AccRows 2048, ParamSets 5
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

uint64_t BaseSeed() {
  const char* s = std::getenv("TPU_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 0) : 1;
}

// The pooling shape of an ACTIVATE (docs/isa.md fields).
struct Shape {
  isa::Pool pool;
  uint32_t h, w, win_h, win_w, stride_h, stride_w;
  bool same;
  uint32_t images;
};

class ActUnitTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string name = std::string(info->test_suite_name()) + "." + info->name();
    h_ = GetParam().make(TestHarnessOptions(name));
    h_->Reset();
    cfg_ = h_->config();
    n_ = cfg_.n;
    seed_ = BaseSeed() * 1000003 + std::hash<std::string>()(name);
    rng_.seed(seed_);
    std::printf("[ seed     ] %s: %llu\n", name.c_str(), static_cast<unsigned long long>(seed_));
    params_.assign(size_t(cfg_.param_sets), ActParamSet{});
    for (auto& p : params_) p = ZeroSet();
    for (int i = 0; i < 256; ++i) lut_[size_t(i)] = 0;
  }

  // ---- Random configurations -----------------------------------------------------------------
  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool Chance(int one_in) { return Uniform(0, one_in - 1) == 0; }

  ActParamSet ZeroSet() const {
    ActParamSet p;
    p.bias.assign(size_t(n_), 0);
    p.multiplier.assign(size_t(n_), 0);
    p.shift.assign(size_t(n_), 0);
    return p;
  }

  // Per channel: mostly a real multiplier in [2^-16, 4] (rounding decides), sometimes a raw
  // Q0.31 multiplier or any int32 with any shift in [-31, 30] (saturation decides).
  ActParamSet RandomSet() {
    ActParamSet p = ZeroSet();
    for (int c = 0; c < n_; ++c) {
      p.bias[c] = Chance(4) ? int32_t(uint32_t(rng_())) : int32_t(Uniform(-20000, 20000));
      const int kind = int(Uniform(0, 9));
      if (kind < 7) {
        const auto q = golden::QuantizeMultiplier(std::ldexp(1.0, -16) *
                                                  std::pow(2.0, double(Uniform(0, 18000)) / 1000));
        p.multiplier[c] = q.multiplier;
        p.shift[c] = int8_t(q.shift);
      } else {
        p.multiplier[c] = kind == 7 ? int32_t(Uniform(int64_t{1} << 30, (int64_t{1} << 31) - 1))
                                    : int32_t(uint32_t(rng_()));
        p.shift[c] = int8_t(Uniform(-31, 30));
      }
    }
    return p;
  }

  golden::Lut RandomLut() {
    golden::Lut lut;
    for (auto& v : lut) v = int8_t(Uniform(-128, 127));
    return lut;
  }

  void FillAcc(ActUnitEnv& env) {
    for (auto& a : env.acc) {
      a = Chance(5) ? int32_t(uint32_t(rng_())) : int32_t(Uniform(-200000, 200000));
    }
  }

  // A fresh UB guard pattern; the expected UB follows it.
  void FillUb(ActUnitEnv& env) {
    for (auto& b : env.ub) b = int8_t(Uniform(-128, 127));
    exp_ub_ = env.ub;
  }

  // Zero point and clamps: none, ReLU / ReLU6 style, or any ordered pair.
  void RandomRequant(isa::Activate* a) {
    a->zero_point = int32_t(Uniform(-128, 127));
    switch (Uniform(0, 3)) {
      case 0:
        a->clamp_min = -128;
        a->clamp_max = 127;
        break;
      case 1:
        a->clamp_min = a->zero_point;
        a->clamp_max = 127;
        break;
      case 2:
        a->clamp_min = a->zero_point;
        a->clamp_max = std::min<int32_t>(127, a->zero_point + int32_t(Uniform(0, 100)));
        break;
      default: {
        int32_t x = int32_t(Uniform(-128, 127)), y = int32_t(Uniform(-128, 127));
        a->clamp_min = std::min(x, y);
        a->clamp_max = std::max(x, y);
      }
    }
    a->lut = Chance(2);
  }

  uint32_t RandomDim() {
    switch (Uniform(0, 3)) {
      case 0:
        return 1;
      case 1:
        return uint32_t(Uniform(1, 4));
      default:
        return uint32_t(Uniform(1, 20));
    }
  }

  // A pooled shape whose rows fit the accumulators: images of up to 20 x 20 (1 x W and H x 1
  // included), windows up to 15 and strides up to 3, VALID or SAME.
  Shape RandomShape() {
    Shape s;
    s.pool = Chance(2) ? isa::Pool::kMax : isa::Pool::kAvg;
    s.h = RandomDim();
    s.w = RandomDim();
    s.same = Chance(2);
    s.win_h = uint32_t(Uniform(1, s.same ? 15 : std::min<int64_t>(15, s.h)));
    s.win_w = uint32_t(Uniform(1, s.same ? 15 : std::min<int64_t>(15, s.w)));
    s.stride_h = uint32_t(Uniform(1, 3));
    s.stride_w = uint32_t(Uniform(1, 3));
    const int64_t max_images = std::min<int64_t>(4, std::min(cfg_.acc_rows, 8191) / (s.h * s.w));
    s.images = uint32_t(Uniform(1, max_images));
    return s;
  }

  isa::Activate WithShape(isa::Activate a, const Shape& s) {
    a.pool = s.pool;
    a.image_h = s.h;
    a.image_w = s.w;
    a.win_h = s.win_h;
    a.win_w = s.win_w;
    a.stride_h = s.stride_h;
    a.stride_w = s.stride_w;
    a.padding = s.same ? isa::Padding::kSame : isa::Padding::kValid;
    a.rows = s.images * s.h * s.w;
    return a;
  }

  // Places rows and outputs at random addresses that fit.
  void Place(isa::Activate* a) {
    a->acc = uint32_t(Uniform(0, cfg_.acc_rows - int64_t(a->rows)));
    a->ub = uint32_t(Uniform(0, cfg_.ub_rows - ActivateOutRows(*a)));
  }

  // A random ACTIVATE of parameter set `set`: pool none in a third of the cases.
  isa::Activate RandomActivate(int set) {
    isa::Activate a;
    a.param_set = uint32_t(set);
    RandomRequant(&a);
    if (Chance(3)) {
      a.rows = uint32_t(Uniform(1, Chance(4) ? 600 : 80));
    } else {
      a = WithShape(a, RandomShape());
    }
    Place(&a);
    return a;
  }

  isa::DeviceLimits Limits() const {
    isa::DeviceLimits lim;
    lim.n = n_;
    lim.ub_rows = cfg_.ub_rows;
    lim.acc_rows = cfg_.acc_rows;
    lim.param_sets = cfg_.param_sets;
    return lim;
  }

  // ---- Program and expectations --------------------------------------------------------------
  // Writes the bytes [addr, addr + bytes) as a few READ_HOSTs at random byte boundaries, in a
  // random order, as one batch.
  ActWriteBatch Chunks(bool lut, uint32_t addr, const std::vector<uint8_t>& bytes) {
    std::vector<std::pair<size_t, size_t>> chunks;  // [begin, end)
    for (size_t b = 0; b < bytes.size();) {
      const size_t e = std::min(bytes.size(), b + size_t(Uniform(1, 3 * n_)));
      chunks.emplace_back(b, e);
      b = e;
    }
    std::shuffle(chunks.begin(), chunks.end(), rng_);
    ActWriteBatch batch;
    batch.lut = lut;
    for (const auto& [b, e] : chunks) {
      const std::vector<uint8_t> part(bytes.begin() + b, bytes.begin() + e);
      for (auto& r : BytesToRows(addr + uint32_t(b), part, n_)) batch.rows.push_back(r);
    }
    return batch;
  }

  // Loads parameter sets through the writer (the ACTIVATEs that use them must be ordered after
  // it by tokens; from then on the expectations use them).
  void LoadParams(ActUnitEnv& env, const std::vector<std::pair<int, ActParamSet>>& sets,
                  uint8_t wait, uint8_t signal) {
    ActWriteBatch all;
    for (const auto& [s, p] : sets) {
      ActWriteBatch b = Chunks(false, uint32_t(s * 9 * n_), ParamSetBytes(p, n_));
      all.rows.insert(all.rows.end(), b.rows.begin(), b.rows.end());
      params_[size_t(s)] = p;
    }
    all.wait = wait;
    all.signal = signal;
    Tokens(wait, signal);
    env.PushWrites(all);
  }

  // Loads a table through the writer; returns the number of rows it writes.
  size_t LoadLut(ActUnitEnv& env, const golden::Lut& lut, uint8_t wait, uint8_t signal) {
    ActWriteBatch b = Chunks(true, 0, std::vector<uint8_t>(lut.begin(), lut.end()));
    b.wait = wait;
    b.signal = signal;
    Tokens(wait, signal);
    lut_ = lut;
    env.PushWrites(b);
    return b.rows.size();
  }

  void Tokens(uint8_t wait, uint8_t signal) {
    for (int t = 0; t < 8; ++t) exp_tokens_[t] += ((signal >> t) & 1) - ((wait >> t) & 1);
  }

  // Queues an ACTIVATE and what it must do, with the parameters and table loaded so far.
  void Activate(ActUnitEnv& env, const isa::Activate& a) {
    const isa::Words w = isa::Encode(isa::Instr{a});
    ASSERT_EQ(isa::Check(w, Limits()), isa::Error::kOk) << isa::Disassemble(isa::Instr{a});
    env.PushInstr(ActWords{w[0], w[1], w[2], w[3]});
    Expected e;
    e.a = a;
    e.first_read = exp_reads_.size();
    e.first_write = exp_writes_.size();
    for (uint32_t r = 0; r < a.rows; ++r) exp_reads_.push_back(a.acc + r);
    const std::vector<int8_t> out = ActivateReference(a, params_[a.param_set], lut_, env.acc, n_);
    const int64_t out_rows = ActivateOutRows(a);
    ASSERT_EQ(int64_t(out.size()), out_rows * n_);
    for (int64_t k = 0; k < out_rows; ++k) {
      std::vector<int8_t> row(out.begin() + k * n_, out.begin() + (k + 1) * n_);
      std::copy(row.begin(), row.end(), exp_ub_.begin() + (a.ub + k) * n_);
      exp_writes_.emplace_back(a.ub + uint32_t(k), std::move(row));
    }
    Tokens(a.wait, a.signal);
    exp_.push_back(e);
  }

  // Everything the run did against the expectations.
  void Verify(const ActUnitEnv& env) {
    const ActEnvLog& log = env.log();
    for (const auto& e : env.errors()) ADD_FAILURE() << e;
    EXPECT_EQ(h_->assertion_failures(), 0u) << "RTL assertions failed";
    ASSERT_EQ(log.acc_reads.size(), exp_reads_.size()) << "accumulator rows read";
    for (size_t i = 0; i < exp_reads_.size(); ++i) {
      ASSERT_EQ(log.acc_reads[i].second, exp_reads_[i]) << "accumulator read " << i;
    }
    ASSERT_EQ(log.ub_writes.size(), exp_writes_.size()) << "UB rows written";
    size_t instr = 0;
    for (size_t k = 0; k < exp_writes_.size(); ++k) {
      while (instr + 1 < exp_.size() && exp_[instr + 1].first_write <= k) ++instr;
      const auto& got = log.ub_writes[k];
      const auto& [addr, row] = exp_writes_[k];
      const std::string where = "instruction " + std::to_string(instr) + " (" +
                                isa::Disassemble(isa::Instr{exp_[instr].a}) + "), output row " +
                                std::to_string(k - exp_[instr].first_write);
      ASSERT_EQ(got.addr, addr) << where;
      for (int c = 0; c < n_; ++c) {
        ASSERT_EQ(int(got.data[c]), int(row[c])) << where << ", channel " << c;
      }
    }
    for (int r = 0; r < cfg_.ub_rows; ++r) {
      for (int c = 0; c < n_; ++c) {
        ASSERT_EQ(env.ub[r * n_ + c], exp_ub_[r * n_ + c]) << "UB row " << r << " byte " << c;
      }
    }
    ASSERT_EQ(log.instrs.size(), exp_.size()) << "instructions popped";
    for (size_t i = 0; i < exp_.size(); ++i) {
      const ActEnvLog::Instr& in = log.instrs[i];
      const Expected& e = exp_[i];
      EXPECT_EQ(in.index, i);
      ASSERT_TRUE(in.granted && in.given) << "instruction " << i << " did not complete";
      EXPECT_EQ(in.give_mask, e.a.signal) << "instruction " << i;
      EXPECT_LT(in.pop, in.grant);
      if (e.a.rows > 0) {
        EXPECT_GT(log.acc_reads[e.first_read].first, in.grant) << "read before its tokens";
        EXPECT_LT(log.acc_reads[e.first_read + e.a.rows - 1].first, in.give);
      }
      const size_t writes = size_t(ActivateOutRows(e.a));
      EXPECT_GT(log.ub_writes[e.first_write].cycle, in.grant);
      EXPECT_LT(log.ub_writes[e.first_write + writes - 1].cycle, in.give)
          << "completed before its last UB row";
      if (i > 0) EXPECT_GT(log.ub_writes[e.first_write].cycle, log.instrs[i - 1].give);
    }
    EXPECT_EQ(log.row_pulses, log.ub_writes.size());
    EXPECT_EQ(env.tokens, exp_tokens_);
  }

  // Steps until `done` holds, at most `max_cycles`; false if it never did.
  static bool RunUntil(ActUnitEnv& env, const std::function<bool()>& done,
                       uint64_t max_cycles = 10000) {
    for (uint64_t i = 0; i < max_cycles; ++i) {
      if (done()) return true;
      env.Step();
    }
    return done();
  }

  ActEnvConfig Stalls(int level) {
    ActEnvConfig c;
    c.seed = seed_ + 17;
    if (level == 0) return c;
    const double p = level == 1 ? 0.8 : 0.4;
    c.instr_valid = p;
    c.wr_valid = p;
    c.acc_req_ready = p;
    c.acc_owed_max = level == 1 ? 3 : 2;
    c.acc_lat_min = 1;
    c.acc_lat_max = level == 1 ? 3 : 6;
    c.acc_rsp_valid = p;
    c.ub_ready = p;
    return c;
  }

  struct Expected {
    isa::Activate a;
    size_t first_read = 0, first_write = 0;
  };

  std::unique_ptr<ActUnitHarness> h_;
  ActUnitConfig cfg_;
  int n_ = 0;
  uint64_t seed_ = 0;
  std::mt19937_64 rng_;

  std::vector<ActParamSet> params_;  // the parameter memory as the next ACTIVATE sees it
  golden::Lut lut_{};                // the table as the next ACTIVATE sees it
  std::vector<Expected> exp_;
  std::vector<uint32_t> exp_reads_;
  std::vector<std::pair<uint32_t, std::vector<int8_t>>> exp_writes_;
  std::vector<int8_t> exp_ub_;
  std::array<int, 8> exp_tokens_{};
};

constexpr uint8_t kParamsIn = isa::kTokensT0;  // writer -> unit: parameter sets loaded
constexpr uint8_t kLutIn = isa::kTokensT1;     // writer -> unit: table loaded
constexpr uint8_t kPhaseOut = isa::kTokensT2;  // unit -> writer: a phase's ACTIVATEs are done

// Random programs in phases: the writer loads a phase's parameter sets (disjoint from those of
// the phase before, so that the load overlaps that phase's run) and, once the phase before is
// done, a new table; the phase's ACTIVATEs (random configurations back to back) wait for both.
TEST_P(ActUnitTest, RandomPrograms) {
  for (int prog = 0; prog < 18; ++prog) {
    const int level = prog % 3;
    SCOPED_TRACE("program " + std::to_string(prog) + ", stall level " + std::to_string(level));
    h_->Reset();
    exp_ = {};
    exp_reads_ = {};
    exp_writes_ = {};
    exp_tokens_ = {};
    ActUnitEnv env(*h_, Stalls(level));
    FillAcc(env);
    FillUb(env);
    std::vector<int> prev_sets;
    const int phases = 5;
    for (int p = 0; p < phases; ++p) {
      std::vector<int> free;
      for (int s = 0; s < cfg_.param_sets; ++s) {
        if (std::find(prev_sets.begin(), prev_sets.end(), s) == prev_sets.end()) free.push_back(s);
      }
      std::shuffle(free.begin(), free.end(), rng_);
      free.resize(std::min<size_t>(free.size(), size_t(Uniform(1, 2))));
      std::vector<std::pair<int, ActParamSet>> sets;
      for (int s : free) sets.emplace_back(s, RandomSet());
      LoadParams(env, sets, 0, kParamsIn);
      LoadLut(env, RandomLut(), p == 0 ? 0 : kPhaseOut, kLutIn);
      const int count = int(Uniform(2, 6));
      for (int i = 0; i < count; ++i) {
        isa::Activate a = RandomActivate(free[size_t(Uniform(0, int64_t(free.size()) - 1))]);
        if (i == 0) a.wait = kParamsIn | kLutIn;
        if (i == count - 1) a.signal = kPhaseOut;
        if (Chance(3)) a.signal |= isa::kTokensT5;  // counted by the token stub
        Activate(env, a);
      }
      prev_sets = free;
    }
    env.RunUntilDrained(400000);
    Verify(env);
    std::printf(
        "[ program  ] %d, stall level %d: %zu ACTIVATEs, %zu rows read, %zu written, "
        "%llu cycles\n",
        prog, level, exp_.size(), exp_reads_.size(), exp_writes_.size(),
        static_cast<unsigned long long>(env.cycle()));
    if (HasFailure()) return;
  }
}

// Pooling shapes at the edges: 1 x 1, 1 x W and H x 1 images, windows larger than the image
// (SAME), windows and strides at their maxima, VALID windows equal to the image, batches.
TEST_P(ActUnitTest, PoolingShapes) {
  ActUnitEnv env(*h_, Stalls(1));
  FillAcc(env);
  FillUb(env);
  LoadParams(env, {{0, RandomSet()}}, 0, kParamsIn);
  LoadLut(env, RandomLut(), 0, kLutIn);
  const std::vector<Shape> shapes = {
      {isa::Pool::kMax, 1, 1, 1, 1, 1, 1, false, 3},
      {isa::Pool::kMax, 1, 1, 15, 15, 3, 3, true, 2},
      {isa::Pool::kAvg, 1, 17, 1, 15, 1, 3, true, 2},
      {isa::Pool::kMax, 19, 1, 15, 1, 3, 1, true, 1},
      {isa::Pool::kAvg, 20, 20, 15, 15, 3, 3, false, 1},
      {isa::Pool::kMax, 20, 20, 15, 15, 3, 3, true, 1},
      {isa::Pool::kAvg, 3, 3, 15, 15, 3, 3, true, 3},
      {isa::Pool::kMax, 5, 7, 3, 2, 2, 3, false, 4},
      {isa::Pool::kAvg, 16, 16, 2, 2, 2, 2, false, 3},
      {isa::Pool::kAvg, 7, 5, 7, 5, 1, 1, false, 2},
      {isa::Pool::kMax, 1, 20, 1, 15, 1, 1, false, 2},
      {isa::Pool::kAvg, 20, 1, 2, 1, 3, 1, true, 4},
  };
  for (size_t i = 0; i < shapes.size(); ++i) {
    isa::Activate a;
    a.param_set = 0;
    RandomRequant(&a);
    a.lut = i % 2 == 0;
    a = WithShape(a, shapes[i]);
    Place(&a);
    if (i == 0) a.wait = kParamsIn | kLutIn;
    Activate(env, a);
  }
  env.RunUntilDrained(100000);
  Verify(env);
}

// Back-to-back ACTIVATEs without pooling and without stalls: one row per cycle, and the only
// overhead per instruction is the token take, the parameter load and tpu_act's latency.
TEST_P(ActUnitTest, ThroughputOneRowPerCycle) {
  ActUnitEnv env(*h_, Stalls(0));
  FillAcc(env);
  FillUb(env);
  LoadParams(env, {{0, RandomSet()}, {1, RandomSet()}}, 0, kParamsIn);
  const int kRows = 100, kInstrs = 4;
  for (int i = 0; i < kInstrs; ++i) {
    isa::Activate a;
    a.param_set = uint32_t(i % 2);
    RandomRequant(&a);
    a.lut = false;
    a.rows = kRows;
    Place(&a);
    if (i == 0) a.wait = kParamsIn;
    Activate(env, a);
  }
  env.RunUntilDrained(10000);
  Verify(env);
  const ActEnvLog& log = env.log();
  for (int i = 0; i < kInstrs; ++i) {
    const size_t r0 = size_t(i) * kRows;
    // The accumulators hold 4 reads owed: the reads stop during the parameter load, then go on
    // at one per cycle.
    EXPECT_EQ(log.acc_reads[r0 + kRows - 1].first - log.acc_reads[r0 + 4].first,
              uint64_t(kRows - 5))
        << "reads of instruction " << i << " not one per cycle";
    EXPECT_EQ(log.ub_writes[r0 + kRows - 1].cycle - log.ub_writes[r0].cycle, uint64_t(kRows - 1))
        << "writes of instruction " << i << " not one per cycle";
    if (i > 0) {
      // give -> pop (same cycle), take (1), parameters (10), tpu_act latency (13), busy (1).
      const uint64_t span = log.instrs[i].give - log.instrs[i - 1].give;
      EXPECT_LE(span, uint64_t(kRows + 26)) << "instruction " << i;
      std::printf("[ cycles   ] instruction %d: %llu cycles for %d rows\n", i,
                  static_cast<unsigned long long>(span), kRows);
    }
  }
}

// An ACTIVATE waits for its tokens (blocked, stall_dep, nothing read, table rows still taken),
// takes them when they appear, and signals its mask once its last row is written.
TEST_P(ActUnitTest, TokensWaitAndSignal) {
  ActUnitEnv env(*h_, Stalls(0));
  FillAcc(env);
  FillUb(env);
  LoadParams(env, {{1, RandomSet()}}, 0, kParamsIn);
  env.RunUntilDrained(1000);
  isa::Activate a;
  a.param_set = 1;
  RandomRequant(&a);
  a.lut = true;
  a.rows = 30;
  Place(&a);
  a.wait = kParamsIn | isa::kTokensT3 | isa::kTokensT6;
  a.signal = isa::kTokensT4 | isa::kTokensT7;
  env.GiveTokens(isa::kTokensT6);
  Tokens(0, isa::kTokensT6);
  env.Run(3);
  const size_t lut_rows = LoadLut(env, RandomLut(), 0, 0);  // taken while the ACTIVATE waits
  Activate(env, a);
  env.Run(300);
  EXPECT_GT(env.log().blocked_cycles, 250u);
  EXPECT_TRUE(env.log().acc_reads.empty()) << "read before the tokens were there";
  EXPECT_EQ(env.log().lut_rows_taken.size(), lut_rows) << "table rows not taken while waiting";
  EXPECT_FALSE(h_->idle());
  EXPECT_TRUE(h_->blocked());
  EXPECT_TRUE(h_->stall_dep());
  env.GiveTokens(isa::kTokensT3);
  Tokens(0, isa::kTokensT3);
  env.RunUntilDrained(1000);
  EXPECT_FALSE(h_->blocked());
  EXPECT_TRUE(h_->idle());
  Verify(env);
  EXPECT_EQ(env.tokens[4], 1);
  EXPECT_EQ(env.tokens[7], 1);
}

// abort_i while an ACTIVATE waits for its tokens: it is dropped without taking any token,
// nothing is read or written, and the next instruction is not popped.
TEST_P(ActUnitTest, AbortWhileWaitingForTokens) {
  ActUnitEnv env(*h_, Stalls(0));
  FillAcc(env);
  FillUb(env);
  isa::Activate a;
  a.param_set = 0;
  a.rows = 10;
  Place(&a);
  a.wait = isa::kTokensT3 | isa::kTokensT1;
  a.signal = isa::kTokensT2;
  const isa::Words w = isa::Encode(isa::Instr{a});
  env.PushInstr(ActWords{w[0], w[1], w[2], w[3]});
  env.PushInstr(ActWords{w[0], w[1], w[2], w[3]});
  env.GiveTokens(isa::kTokensT1);  // only one of the two
  env.Run(20);
  ASSERT_EQ(env.log().instrs.size(), 1u);
  EXPECT_TRUE(h_->blocked());
  env.SetAbort(true);
  env.Run(5);
  EXPECT_TRUE(env.log().instrs[0].dropped);
  EXPECT_FALSE(env.log().instrs[0].granted);
  EXPECT_TRUE(h_->idle());
  EXPECT_FALSE(h_->blocked());
  env.GiveTokens(isa::kTokensT3);  // the tokens appear: nothing may start any more
  env.Run(50);
  EXPECT_EQ(env.log().instrs.size(), 1u) << "popped during abort";
  EXPECT_EQ(env.queued(), 1u);
  EXPECT_TRUE(env.log().acc_reads.empty());
  EXPECT_TRUE(env.log().ub_writes.empty());
  EXPECT_EQ(env.tokens[1], 1) << "a dropped instruction took tokens";
  EXPECT_EQ(env.tokens[3], 1);
  EXPECT_EQ(env.tokens[2], 0);
  EXPECT_EQ(env.ub, exp_ub_);
  for (const auto& e : env.errors()) ADD_FAILURE() << e;
  EXPECT_EQ(h_->assertion_failures(), 0u);
}

// abort_i while an ACTIVATE runs: it finishes (every row written, tokens signalled) and the
// next one is not popped.
TEST_P(ActUnitTest, AbortWhileRunningFinishes) {
  ActUnitEnv env(*h_, Stalls(1));
  FillAcc(env);
  FillUb(env);
  LoadParams(env, {{0, RandomSet()}}, 0, kParamsIn);
  isa::Activate a = WithShape(isa::Activate{}, {isa::Pool::kAvg, 9, 9, 3, 3, 2, 2, true, 2});
  a.param_set = 0;
  RandomRequant(&a);
  Place(&a);
  a.wait = kParamsIn;
  a.signal = isa::kTokensT5;
  Activate(env, a);
  isa::Activate b = a;
  b.wait = 0;
  const isa::Words w = isa::Encode(isa::Instr{b});
  env.PushInstr(ActWords{w[0], w[1], w[2], w[3]});
  ASSERT_TRUE(RunUntil(env, [&env] { return !env.log().ub_writes.empty(); })) << "never ran";
  env.SetAbort(true);
  env.Run(1000);
  EXPECT_EQ(env.queued(), 1u) << "popped during abort";
  EXPECT_TRUE(h_->idle());
  Verify(env);
}

// Table rows offered while an ACTIVATE runs wait for it to complete (it still sees the old
// table); an ACTIVATE ordered after them by a token sees the new one.
TEST_P(ActUnitTest, TableRowsWaitForTheRun) {
  ActUnitEnv env(*h_, Stalls(1));
  FillAcc(env);
  FillUb(env);
  LoadParams(env, {{0, RandomSet()}}, 0, kParamsIn);
  LoadLut(env, RandomLut(), 0, kLutIn);
  isa::Activate a;
  a.param_set = 0;
  RandomRequant(&a);
  a.lut = true;
  a.rows = 200;
  Place(&a);
  a.wait = kParamsIn | kLutIn;
  Activate(env, a);
  ASSERT_TRUE(RunUntil(env, [&env] { return !env.log().acc_reads.empty(); })) << "never ran";
  LoadLut(env, RandomLut(), 0, kLutIn);            // not ordered against the run: must wait for it
  isa::Activate b = a;
  Place(&b);
  b.wait = kLutIn;
  b.zero_point = -a.zero_point / 2;
  Activate(env, b);
  env.RunUntilDrained(20000);
  EXPECT_GT(env.log().lut_refused_while_running, 0u);
  Verify(env);
}

INSTANTIATE_TEST_SUITE_P(Configs, ActUnitTest, ::testing::ValuesIn(kVariants),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace tpu::tb
