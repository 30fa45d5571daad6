// The instruction check tpu_ctrl_decode against tpu::isa::Check (host_driver/isa) on random
// instructions, in every configuration built by testbench/ctrl/CMakeLists.txt, with random
// valid/ready stalls on both sides, and its timing: one instruction at a time, latency 1, or
// 1 + kPoolDecodeCycles for a pooled ACTIVATE. Random tests print their seed on failure; set
// TPU_SEED to rerun with another base seed, TPU_TRACE=1 to dump waveforms.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "ctrl/decode_harness.h"
#include "isa/isa.h"

namespace tpu::tb {
namespace {

using MakeFn = std::unique_ptr<DecodeHarness> (*)(const HarnessOptions&);

struct Variant {
  const char* name;
  MakeFn make;
};

// Keep in step with the models built in testbench/ctrl/CMakeLists.txt.
const Variant kVariants[] = {
    {"N8_small", &MakeDecodeHarness<0>},
    {"N16_default", &MakeDecodeHarness<1>},
    {"N12_odd", &MakeDecodeHarness<2>},
    {"V1", &MakeDecodeHarness<3>},  // 98,304 UB rows, 4096 accumulator rows, 8 GiB of DRAM
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

uint64_t BaseSeed() {
  const char* s = std::getenv("TPU_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 0) : 1;
}

// Cycles a pooled ACTIVATE (pool MAX or AVG) spends in the decode beyond the one every
// instruction takes: its ragged-rows and pooled UB range checks run over them
// (rtl/ctrl/tpu_ctrl_decode.sv, PoolCycles; the model device's timing has the same constant).
constexpr int kPoolDecodeCycles = 3;

const isa::FieldInfo& FieldOf(isa::Opcode op, const std::string& name) {
  for (const isa::InstrInfo& info : isa::kInstrs) {
    if (info.opcode != op) continue;
    for (int f = 0; f < info.num_fields; ++f) {
      if (name == info.fields[f].name) return info.fields[f];
    }
  }
  std::abort();
}

// Cycles from the one in which the decode takes an instruction to the first in which it offers
// the result: 1, or 1 + kPoolDecodeCycles for an ACTIVATE whose pool field is MAX or AVG,
// whatever its checks find.
int DecodeLatency(const isa::Words& w) {
  if (isa::GetBits(w, 0, 8) != uint64_t(isa::Opcode::kActivate)) return 1;
  const isa::FieldInfo& pool = FieldOf(isa::Opcode::kActivate, "pool");
  const uint64_t mode = isa::GetBits(w, pool.lsb, pool.width);
  return mode == uint64_t(isa::Pool::kMax) || mode == uint64_t(isa::Pool::kAvg)
             ? 1 + kPoolDecodeCycles
             : 1;
}

std::string Hex(const InstrWords& w) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%08x_%08x_%08x_%08x", w[3], w[2], w[1], w[0]);
  return buf;
}

// Random instructions biased towards the boundaries of the device's ranges, so that every
// check both passes and fails often.
class InstrGen {
 public:
  InstrGen(const isa::DeviceLimits& lim, uint64_t seed) : rng_(seed), ub_rows_(lim.ub_rows) {
    const int64_t n = lim.n;
    limits_ = {n,
               lim.ub_rows,
               lim.acc_rows,
               lim.acc_rows / 2,
               lim.dram_bytes,
               lim.dram_bytes / (n * n),
               lim.param_sets,
               lim.param_sets * 9 * n,
               256,
               int64_t{1} << 48,
               lim.ub_rows * n};
  }

  isa::Words Next() {
    isa::Words w{};
    if (Chance(8)) {  // any 128 bits: mostly ILLEGAL_OPCODE
      for (auto& x : w) x = uint32_t(rng_());
      if (Chance(2)) w[0] = (w[0] & ~0xffu) | kOpcodeBytes[Uniform(0, 7)];
      return w;
    }
    const isa::InstrInfo& info = isa::kInstrs[Uniform(0, std::size(isa::kInstrs) - 1)];
    isa::SetBits(&w, 0, 8, uint64_t(info.opcode));
    const bool pooled = info.opcode == isa::Opcode::kActivate && Chance(2);
    const bool windowed = info.opcode == isa::Opcode::kMatmul && !Chance(3);
    for (int f = 0; f < info.num_fields; ++f) {
      const isa::FieldInfo& fi = info.fields[f];
      isa::SetBits(&w, fi.lsb, fi.width, FieldValue(fi.width));
    }
    if (pooled) Pooling(info, &w);
    if (windowed) Window(info, &w);
    if (Chance(10)) {  // one reserved bit set, if the instruction has any
      std::vector<int> bits;
      for (int b = 0; b < 128; ++b) {
        if ((info.reserved_mask[b / 32] >> (b % 32)) & 1u) bits.push_back(b);
      }
      if (!bits.empty()) {
        const int b = bits[Uniform(0, bits.size() - 1)];
        w[b / 32] |= 1u << (b % 32);
      }
    }
    return w;
  }

 private:
  static constexpr uint32_t kOpcodeBytes[8] = {0x01, 0x02, 0x03, 0x10, 0x11, 0x20, 0x30, 0x40};

  bool Chance(int one_in) { return Uniform(0, one_in - 1) == 0; }
  uint64_t Uniform(uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_);
  }

  uint64_t FieldValue(int width) {
    const uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;
    switch (Uniform(0, 5)) {
      case 0:
        return rng_() & mask;  // anything
      case 1:
        return Uniform(0, 3);  // tiny
      case 2:
        return Uniform(0, 64) & mask;  // small
      default: {  // near a limit, or near a fraction of one
        int64_t v = limits_[Uniform(0, limits_.size() - 1)];
        const int shift = int(Uniform(0, 3)) == 0 ? int(Uniform(1, 4)) : 0;
        v >>= shift;
        v += int64_t(Uniform(0, 6)) - 3;
        return uint64_t(v) & mask;
      }
    }
  }

  // Consistent pooling fields for ACTIVATE (whole images, windows inside VALID images), with
  // an occasional field broken.
  void Pooling(const isa::InstrInfo& info, isa::Words* w) {
    const int ih = int(Uniform(1, 9)), iw = int(Uniform(1, 9));
    const bool same = Chance(2);
    const int wh = int(Uniform(1, same ? 15 : ih)), ww = int(Uniform(1, same ? 15 : iw));
    const int64_t rows = int64_t(ih) * iw * int64_t(Uniform(1, 8));
    auto set = [&](const char* name, int64_t v) {
      for (int f = 0; f < info.num_fields; ++f) {
        const isa::FieldInfo& fi = info.fields[f];
        if (std::string(fi.name) == name) isa::SetBits(w, fi.lsb, fi.width, uint64_t(v));
      }
    };
    set("pool", int64_t(Uniform(1, 2)));
    set("padding", same ? 1 : 0);
    set("image_h", ih);
    set("image_w", iw);
    set("win_h", wh);
    set("win_w", ww);
    const int sh = int(Uniform(1, 3)), sw = int(Uniform(1, 3));  // 2-bit pooling strides
    set("stride_h", sh);
    set("stride_w", sw);
    set("rows", Chance(6) ? rows + 1 : rows);
    set("acc", int64_t(Uniform(0, 16)));
    set("param_set", 0);
    set("clamp_min", -128);
    set("clamp_max", 127);
    // The UB range rule at its boundary: ub + out_rows == UB_ROWS (+ -1, 0, 1).
    auto pool_out = [same](int size, int win, int stride) {
      return same ? (size + stride - 1) / stride : (size - win) / stride + 1;
    };
    const int64_t out_rows = rows / (int64_t(ih) * iw) * pool_out(ih, wh, sh) *
                             pool_out(iw, ww, sw);
    if (Chance(2)) {
      set("ub", std::max<int64_t>(0, ub_rows_ - out_rows + int64_t(Uniform(0, 2)) - 1));
    } else if (Chance(2)) {
      set("ub", int64_t(Uniform(0, 64)));
    }
  }

  // Consistent MATMUL window fields (window=1: strides, image and output width >= 1; window=0:
  // every window field 0), with an occasional field broken, rows and acc small enough to pass
  // ACC_RANGE mostly, and ub often at the UB_RANGE boundary of either mode.
  void Window(const isa::InstrInfo& info, isa::Words* w) {
    auto set = [&](const char* name, int64_t v) {
      for (int f = 0; f < info.num_fields; ++f) {
        const isa::FieldInfo& fi = info.fields[f];
        if (std::string(fi.name) == name) isa::SetBits(w, fi.lsb, fi.width, uint64_t(v));
      }
    };
    const bool window = !Chance(3);
    const int64_t ih = Chance(4) ? int64_t(Uniform(1, 255)) : int64_t(Uniform(1, 12));
    const int64_t iw = Chance(4) ? int64_t(Uniform(1, 255)) : int64_t(Uniform(1, 12));
    const int64_t rows = int64_t(Uniform(1, 40));
    set("window", window ? 1 : 0);
    set("rows", rows);
    set("acc", int64_t(Uniform(0, 16)));
    static const char* const kFields[] = {"stride_h", "stride_w", "image_w", "image_h",
                                          "out_w",    "pad_value", "y0",     "x0"};
    if (window) {
      set("stride_h", int64_t(Uniform(1, 7)));
      set("stride_w", int64_t(Uniform(1, 7)));
      set("image_h", ih);
      set("image_w", iw);
      set("out_w", int64_t(Uniform(1, 255)));
      set("pad_value", int64_t(Uniform(0, 255)));
      set("y0", int64_t(Uniform(0, 1023)));
      set("x0", int64_t(Uniform(0, 31)));
      if (Chance(6)) set(kFields[Uniform(0, 4)], 0);  // a required field 0
    } else {
      for (const char* f : kFields) set(f, 0);
      if (Chance(6)) set(kFields[Uniform(0, 7)], int64_t(Uniform(1, 3)));  // a stray field
    }
    const int64_t span = window ? ih * iw : rows;  // UB rows the rule covers
    if (Chance(2)) {
      set("ub", std::max<int64_t>(0, ub_rows_ - span + int64_t(Uniform(0, 2)) - 1));
    } else if (Chance(2)) {
      set("ub", int64_t(Uniform(0, 64)));
    }
  }

  std::mt19937_64 rng_;
  int64_t ub_rows_;
  std::vector<int64_t> limits_;
};

class CtrlDecodeTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dut_ = GetParam().make(
        TestHarnessOptions(std::string(info->test_suite_name()) + "." + info->name()));
    seed_ = BaseSeed() * 1000003 + std::hash<std::string>()(info->name());
    const DecodeConfig& c = dut_->config();
    limits_.n = c.n;
    limits_.ub_rows = c.ub_rows;
    limits_.acc_rows = c.acc_rows;
    limits_.dram_bytes = c.dram_bytes;
    limits_.param_sets = c.param_sets;
    dut_->Reset();
  }

  // Streams `count` instructions through the DUT with the given chances (in percent) of
  // offering an instruction and of taking a result per cycle; checks every result against
  // tpu::isa::Check, and the timing: the decode holds one instruction at a time, offers its
  // result DecodeLatency() cycles after taking it (neither offering nor taking anything in
  // between) and holds it until it is taken. Returns how often each error code came out.
  std::array<int, 256> Run(int count, int in_pct, int out_pct) {
    SCOPED_TRACE("seed " + std::to_string(seed_));
    std::mt19937_64 rng(seed_);
    InstrGen gen(limits_, seed_ ^ 0x5eed);
    std::array<int, 256> hist{};
    std::deque<isa::Words> expected;
    int sent = 0, received = 0, pooled = 0;
    uint64_t taken_at = 0;  // the cycle the instruction in the decode was taken
    int latency = 0;        // ... and its DecodeLatency()
    isa::Words next = gen.Next();
    bool offering = false;
    for (uint64_t cycle = 0; received < count; ++cycle) {
      if (cycle > uint64_t(count) * 200 + 1000) {
        ADD_FAILURE() << "stuck after " << received << " results";
        break;
      }
      // An offered instruction stays offered until it is taken (valid/ready rule).
      if (!offering && sent < count) offering = int(rng() % 100) < in_pct;
      const bool take = int(rng() % 100) < out_pct;
      dut_->SetIn(offering, next);
      dut_->SetOutReady(take);
      dut_->Eval();
      if (expected.empty()) {
        EXPECT_FALSE(dut_->out_valid()) << "cycle " << cycle << ": a result with nothing taken";
      } else if (cycle < taken_at + uint64_t(latency)) {
        EXPECT_FALSE(dut_->out_valid()) << "cycle " << cycle << ": result " << received
                                        << " offered before its latency " << latency;
        EXPECT_FALSE(dut_->in_ready()) << "cycle " << cycle << ": instruction " << received
                                       << " still checked, another one taken";
      } else {
        EXPECT_TRUE(dut_->out_valid()) << "cycle " << cycle << ": result " << received
                                       << " not offered after its latency " << latency;
      }
      if (dut_->out_valid() && take) {
        if (expected.empty()) {
          ADD_FAILURE() << "result with nothing in flight";
          break;
        }
        const isa::Words words = expected.front();
        expected.pop_front();
        const int want = int(isa::Check(words, limits_));
        const int got = dut_->out_error();
        EXPECT_EQ(dut_->out_instr(), words) << "instruction " << received;
        if (got != want) {
          ADD_FAILURE() << "instruction " << received << " " << Hex(words) << " ("
                        << isa::Disassemble(words) << "): RTL "
                        << isa::ErrorName(isa::Error(got)) << ", Check "
                        << isa::ErrorName(isa::Error(want));
          if (::testing::Test::HasFailure() && received > 20) break;
        }
        ++hist[want & 0xff];
        ++received;
      }
      if (offering && dut_->in_ready()) {
        // One at a time: the previous result leaves in this cycle at the latest.
        EXPECT_TRUE(expected.empty()) << "cycle " << cycle << ": a second instruction taken";
        expected.push_back(next);
        taken_at = cycle;
        latency = DecodeLatency(next);
        pooled += latency > 1;
        ++sent;
        next = gen.Next();
        offering = false;
      }
      dut_->Tick();
      if (::testing::Test::HasFailure() && received > 20) break;
    }
    EXPECT_GT(pooled, 0) << "no pooled ACTIVATE";
    return hist;
  }

  // Takes `words` with the consumer always ready and checks its timing (offered
  // DecodeLatency() cycles later, nothing taken in between) and code: Check's, and `want` when
  // given. Returns the code.
  int Directed(const isa::Words& words, const std::string& what, int want = -1) {
    const std::string where = what + ": " + isa::Disassemble(words);
    const int latency = DecodeLatency(words);
    dut_->SetOutReady(true);
    dut_->SetIn(true, words);
    dut_->Eval();
    EXPECT_TRUE(dut_->in_ready()) << where;
    dut_->Tick();
    dut_->SetIn(true, isa::Words{0x01, 0, 0, 0});  // a NOP offered all along: not taken early
    for (int c = 1; c < latency; ++c) {
      dut_->Eval();
      EXPECT_FALSE(dut_->out_valid()) << where << ", cycle " << c;
      EXPECT_FALSE(dut_->in_ready()) << where << ", cycle " << c;
      dut_->Tick();
    }
    dut_->SetIn(false, isa::Words{});
    dut_->Eval();
    EXPECT_TRUE(dut_->out_valid()) << where << ", cycle " << latency;
    EXPECT_EQ(dut_->out_instr(), words) << where;
    const int got = dut_->out_error();
    EXPECT_EQ(got, int(isa::Check(words, limits_))) << where;
    if (want >= 0) EXPECT_EQ(got, want) << where;
    dut_->Tick();
    return got;
  }

  std::unique_ptr<DecodeHarness> dut_;
  isa::DeviceLimits limits_;
  uint64_t seed_ = 0;
};

// Thousands of random instructions with random stalls on both sides; every error code of the
// checks (OK and 1..12) must come out, so that each check is exercised both ways.
TEST_P(CtrlDecodeTest, RandomInstructionsWithStalls) {
  const auto hist = Run(20000, 60, 60);
  std::string counts;
  for (int code = 0; code <= 12; ++code) counts += " " + std::to_string(hist[code]);
  std::printf("results per error code 0..12:%s\n", counts.c_str());
  for (int code = 0; code <= 12; ++code) {
    EXPECT_GT(hist[code], 0) << "no instruction raised " << isa::ErrorName(isa::Error(code))
                             << " (seed " << seed_ << ")";
  }
}

// MATMUL window rules, directed: each instruction through the DUT, its code equal to
// tpu::isa::Check's and to the code the rule order of docs/isa.md gives.
TEST_P(CtrlDecodeTest, MatmulWindowRules) {
  const int64_t ub_rows = limits_.ub_rows, acc_rows = limits_.acc_rows;
  auto win = [](int64_t ub, int64_t rows, int64_t ih, int64_t iw) {
    isa::Matmul m;
    m.ub = uint32_t(ub);
    m.rows = uint32_t(rows);
    m.new_tile = true;
    m.window = true;
    m.stride_h = 2;
    m.stride_w = 1;
    m.image_h = uint32_t(ih);
    m.image_w = uint32_t(iw);
    m.out_w = 3;
    m.pad_value = -5;
    m.y0 = -1;
    m.x0 = -1;
    return m;
  };
  struct Case {
    const char* what;
    isa::Matmul m;
    isa::Error want;
  };
  std::vector<Case> cases;
  cases.push_back({"window image ends at UB_ROWS", win(ub_rows - 6, 4, 2, 3), isa::Error::kOk});
  cases.push_back({"window image one past UB_ROWS", win(ub_rows - 5, 4, 2, 3),
                   isa::Error::kUbRange});
  // Rows may exceed the image's UB rows (padding taps): only the image counts.
  cases.push_back({"window rows beyond the image", win(ub_rows - 6, 12, 2, 3), isa::Error::kOk});
  cases.push_back({"window ACC_RANGE", win(0, acc_rows + 1, 2, 3), isa::Error::kAccRange});
  {
    Case c{"window stride_h 0", win(0, 4, 2, 3), isa::Error::kConvConfig};
    c.m.stride_h = 0;
    cases.push_back(c);
  }
  {
    Case c{"window stride_w 0", win(0, 4, 2, 3), isa::Error::kConvConfig};
    c.m.stride_w = 0;
    cases.push_back(c);
  }
  {
    Case c{"window out_w 0 before UB_RANGE", win(ub_rows, 4, 2, 3), isa::Error::kConvConfig};
    c.m.out_w = 0;
    cases.push_back(c);
  }
  cases.push_back({"window image_h 0", win(0, 4, 0, 3), isa::Error::kConvConfig});
  cases.push_back({"window image_w 0", win(0, 4, 2, 0), isa::Error::kConvConfig});
  {
    Case c{"window rows 0 before CONV_CONFIG", win(0, 0, 0, 3), isa::Error::kLengthZero};
    cases.push_back(c);
  }
  const char* const kStray[] = {"stride_h", "stride_w", "image_w", "image_h",
                                "out_w",    "pad_value", "y0",     "x0"};
  for (int f = 0; f < 8; ++f) {
    isa::Matmul m;
    m.ub = uint32_t(ub_rows);  // UB_RANGE too: CONV_CONFIG comes first
    m.rows = 4;
    m.new_tile = true;
    uint32_t* const fields[] = {&m.stride_h, &m.stride_w, &m.image_w, &m.image_h, &m.out_w};
    if (f < 5) {
      *fields[f] = 1;
    } else {
      (f == 5 ? m.pad_value : f == 6 ? m.y0 : m.x0) = -1;
    }
    cases.push_back({kStray[f], m, isa::Error::kConvConfig});
  }
  {
    isa::Matmul m;
    m.ub = uint32_t(ub_rows - 4);
    m.rows = 5;
    cases.push_back({"plain UB_RANGE", m, isa::Error::kUbRange});
    m.rows = 4;
    cases.push_back({"plain ends at UB_ROWS", m, isa::Error::kOk});
  }

  for (const Case& c : cases) Directed(isa::Encode(c.m), c.what, int(c.want));
}

// Pooled ACTIVATE, directed: the ragged-rows rule on both sides of every multiple of the image
// (pixel counts 1 .. 65,025, rows up to the field's 4,095) and the pooled UB range rule at its
// boundary (ub + images * out_h * out_w = UB_ROWS - 1, UB_ROWS, UB_ROWS + 1, ub past
// UB_ROWS), each in the decode's pooled timing, its code equal to tpu::isa::Check's.
TEST_P(CtrlDecodeTest, PooledActivateBoundaries) {
  const int64_t ub_rows = limits_.ub_rows, acc_rows = limits_.acc_rows;
  struct Geometry {
    int ih, iw, wh, ww, sh, sw;
    bool same;
  };
  const Geometry kGeometries[] = {
      {1, 1, 1, 1, 1, 1, false},     {2, 3, 2, 2, 1, 1, false},   {7, 9, 3, 3, 2, 2, true},
      {8, 8, 2, 2, 2, 2, false},     {5, 1, 5, 1, 3, 1, false},   {13, 11, 15, 15, 3, 3, true},
      {64, 128, 2, 2, 2, 2, false},  {90, 91, 3, 2, 3, 2, false}, {1, 255, 1, 4, 1, 3, true},
      {255, 32, 4, 4, 1, 1, false},  {255, 255, 2, 2, 2, 2, true}, {45, 182, 1, 1, 1, 1, false},
      {1, 2, 1, 2, 1, 2, false},     {3, 3, 3, 3, 3, 3, true}};
  auto make = [&](const Geometry& g, int64_t rows, int64_t ub) {
    isa::Activate a;
    a.acc = 0;
    a.ub = uint32_t(ub);
    a.rows = uint32_t(rows);
    a.pool = (g.ih + g.iw) % 2 ? isa::Pool::kMax : isa::Pool::kAvg;
    a.padding = g.same ? isa::Padding::kSame : isa::Padding::kValid;
    a.image_h = uint32_t(g.ih);
    a.image_w = uint32_t(g.iw);
    a.win_h = uint32_t(g.wh);
    a.win_w = uint32_t(g.ww);
    a.stride_h = uint32_t(g.sh);
    a.stride_w = uint32_t(g.sw);
    return isa::Encode(a);
  };
  auto pool_out = [](int size, int win, int stride, bool same) {
    return same ? (size + stride - 1) / stride : (size - win) / stride + 1;
  };
  const int64_t kMaxRows = 4095;  // the rows field's 12 bits
  std::array<int, 256> hist{};
  for (const Geometry& g : kGeometries) {
    const int64_t pixels = int64_t(g.ih) * g.iw;
    const int64_t per_image =
        int64_t(pool_out(g.ih, g.wh, g.sh, g.same)) * pool_out(g.iw, g.ww, g.sw, g.same);
    // Rows around 1, 2 and the largest whole number of images within ACC_ROWS and the field.
    const int64_t row_cap = std::min(acc_rows, kMaxRows);
    std::vector<int64_t> rows_list;
    for (int64_t images : {int64_t{1}, int64_t{2}, row_cap / pixels, kMaxRows / pixels}) {
      for (int64_t d = -1; d <= 1; ++d) rows_list.push_back(images * pixels + d);
    }
    rows_list.push_back(kMaxRows);
    for (int64_t rows : rows_list) {
      if (rows < 1 || rows > kMaxRows) continue;
      const std::string what = "pooled " + std::to_string(g.ih) + "x" + std::to_string(g.iw) +
                               ", rows " + std::to_string(rows);
      ++hist[Directed(make(g, rows, 0), what + ", ub 0") & 0xff];
      if (rows % pixels != 0) continue;
      // Whole images: the UB range rule at its boundary, and ub itself past UB_ROWS.
      const int64_t out_rows = rows / pixels * per_image;
      for (int64_t ub : {ub_rows - out_rows - 1, ub_rows - out_rows, ub_rows - out_rows + 1,
                         ub_rows, ub_rows + 1, int64_t{(1 << 18) - 1}}) {
        if (ub < 0 || ub >= (1 << 18)) continue;
        ++hist[Directed(make(g, rows, ub), what + ", ub " + std::to_string(ub)) & 0xff];
      }
    }
  }
  // Each side of both rules came out (an ACC_RANGE only where rows pass ACC_ROWS).
  EXPECT_GT(hist[int(isa::Error::kOk)], 0);
  EXPECT_GT(hist[int(isa::Error::kPoolConfig)], 0);
  EXPECT_GT(hist[int(isa::Error::kUbRange)], 0);
}

// A pooled ACTIVATE whose earlier checks fail keeps that code, and the pooled timing.
TEST_P(CtrlDecodeTest, PooledActivateEarlierErrors) {
  isa::Activate a;
  a.rows = 7;  // ragged as well: the earlier code wins
  a.pool = isa::Pool::kMax;
  a.image_h = 2;
  a.image_w = 2;
  a.win_h = 2;
  a.win_w = 2;
  a.stride_h = 1;
  a.stride_w = 1;
  a.ub = uint32_t(limits_.ub_rows + 1);
  {
    isa::Activate b = a;
    b.clamp_min = 5;
    b.clamp_max = 4;
    Directed(isa::Encode(b), "clamp order", int(isa::Error::kClampOrder));
  }
  {
    isa::Activate b = a;
    b.win_h = 3;  // a VALID window taller than the image
    Directed(isa::Encode(b), "window > image", int(isa::Error::kPoolConfig));
  }
  {
    isa::Activate b = a;
    b.acc = uint32_t(limits_.acc_rows - 2);  // acc + rows past ACC_ROWS
    Directed(isa::Encode(b), "acc range", int(isa::Error::kAccRange));
  }
  {
    isa::Activate b = a;
    b.rows = 8;  // whole images: the UB range rule decides
    Directed(isa::Encode(b), "ub past UB_ROWS", int(isa::Error::kUbRange));
  }
  {
    isa::Activate b = a;
    b.pool = isa::Pool::kNone;  // not pooled: one cycle (and pooling fields set)
    Directed(isa::Encode(b), "pool none with pooling fields", int(isa::Error::kPoolConfig));
  }
}

// A pooled ACTIVATE occupies the decode for 1 + kPoolDecodeCycles cycles; the instructions
// around it pass one per cycle.
TEST_P(CtrlDecodeTest, PooledActivateThroughput) {
  isa::Activate a;
  a.rows = 4;
  a.pool = isa::Pool::kAvg;
  a.image_h = 2;
  a.image_w = 2;
  a.win_h = 2;
  a.win_w = 2;
  a.stride_h = 2;
  a.stride_w = 2;
  const isa::Words act = isa::Encode(a), nop{0x01, 0, 0, 0};
  // NOP, NOP, ACTIVATE, NOP, ACTIVATE, ACTIVATE, NOP.
  const std::vector<isa::Words> stream = {nop, nop, act, nop, act, act, nop};
  dut_->SetOutReady(true);
  size_t next = 0;
  std::vector<uint64_t> result_cycles;
  for (uint64_t cycle = 0; cycle < 40 && result_cycles.size() < stream.size(); ++cycle) {
    dut_->SetIn(next < stream.size(), next < stream.size() ? stream[next] : nop);
    dut_->Eval();
    if (dut_->out_valid()) {
      EXPECT_EQ(dut_->out_error(), 0) << "cycle " << cycle;
      result_cycles.push_back(cycle);
    }
    if (next < stream.size() && dut_->in_ready()) ++next;
    dut_->Tick();
  }
  const int p = 1 + kPoolDecodeCycles;
  EXPECT_EQ(result_cycles,
            (std::vector<uint64_t>{1, 2, uint64_t(2 + p), uint64_t(3 + p), uint64_t(3 + 2 * p),
                                   uint64_t(3 + 3 * p), uint64_t(4 + 3 * p)}));
}

// One instruction per cycle when both sides are always ready.
TEST_P(CtrlDecodeTest, FullThroughput) {
  isa::Words nop{0x01, 0, 0, 0};
  dut_->SetOutReady(true);
  dut_->SetIn(true, nop);
  int taken = 0, results = 0;
  for (int cycle = 0; cycle < 100; ++cycle) {
    dut_->Eval();
    ASSERT_TRUE(dut_->in_ready()) << "cycle " << cycle;
    ++taken;
    if (dut_->out_valid()) {
      ++results;
      EXPECT_EQ(dut_->out_error(), 0);
    }
    dut_->Tick();
  }
  EXPECT_EQ(results, taken - 1);  // latency 1
}

// A result is held, unchanged, while the consumer is not ready.
TEST_P(CtrlDecodeTest, HoldsResultUnderBackPressure) {
  const isa::Words bad{0x00, 0, 0, 0};  // ILLEGAL_OPCODE
  dut_->SetOutReady(false);
  dut_->SetIn(true, bad);
  dut_->Tick();
  dut_->SetIn(true, isa::Words{0x01, 0, 0, 0});
  for (int cycle = 0; cycle < 5; ++cycle) {
    dut_->Eval();
    ASSERT_TRUE(dut_->out_valid());
    EXPECT_FALSE(dut_->in_ready());
    EXPECT_EQ(dut_->out_error(), int(isa::Error::kIllegalOpcode));
    EXPECT_EQ(dut_->out_instr(), bad);
    dut_->Tick();
  }
  dut_->SetOutReady(true);
  dut_->Eval();
  EXPECT_TRUE(dut_->in_ready());
  dut_->Tick();
  dut_->Eval();
  ASSERT_TRUE(dut_->out_valid());
  EXPECT_EQ(dut_->out_error(), 0);
}

INSTANTIATE_TEST_SUITE_P(Configs, CtrlDecodeTest, ::testing::ValuesIn(kVariants),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tpu::tb
