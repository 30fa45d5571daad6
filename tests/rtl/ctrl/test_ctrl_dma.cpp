// The DMA unit sequencer tpu_ctrl_dma (docs/controller.md, sections 1a and 2) at N = 8 and 16,
// driven by the C++ models of testbench/ctrl/dma_harness_env.h: every READ_HOST / WRITE_HOST
// is checked against the byte-copy reference of docs/isa.md by comparing whole memory images
// (guard bytes around every destination must stay untouched), and its traffic is checked beat by
// beat (request addresses, row addresses, byte masks, one give after the last row). Random
// tests print their seed; set TPU_SEED to rerun with another base seed, TPU_TRACE=1 to dump
// waveforms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "ctrl/dma_harness.h"
#include "ctrl/dma_harness_env.h"
#include "isa/isa.h"

namespace tpu::tb {
namespace {

using MakeFn = std::unique_ptr<DmaHarness> (*)(const HarnessOptions&);

struct Variant {
  const char* name;
  MakeFn make;
};

// Keep in step with the models built in testbench/ctrl/CMakeLists.txt.
const Variant kVariants[] = {
    {"N8", &MakeDmaHarness<8>},
    {"N16", &MakeDmaHarness<16>},
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

uint64_t BaseSeed() {
  const char* s = std::getenv("TPU_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 0) : 1;
}

constexpr uint64_t kHostBytes = 64 * 1024;
constexpr uint64_t kHostTop = (uint64_t{1} << 48) - kHostBytes;  // the last 64 KiB of HOST_SPACE
constexpr uint32_t kDramBytes = 64 * 1024;
constexpr int kParamSets = 64;
constexpr uint32_t kLutBytes = 256;
constexpr uint32_t kLarge = 4096 + 7;

// Stalls on every port: ready about two cycles in three, host latency 1..6.
DmaEnvConfig Stalls() {
  DmaEnvConfig c;
  c.instr_valid = 0.8;
  c.hm_req_ready = 0.7;
  c.hm_lat_min = 1;
  c.hm_lat_max = 6;
  c.hm_rsp_valid = 0.8;
  c.dst_ready = 0.7;
  c.ub_req_ready = 0.7;
  c.ub_lat_max = 3;
  c.ub_rsp_valid = 0.8;
  return c;
}

// Byte mask of output row j of a transfer of `len` bytes starting at byte `off` of row 0.
uint64_t RowMask(int64_t off, int64_t len, int64_t j, int n) {
  uint64_t m = 0;
  for (int l = 0; l < n; ++l) {
    const int64_t i = j * n + l - off;
    if (i >= 0 && i < len) m |= uint64_t{1} << l;
  }
  return m;
}

class CtrlDmaTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string name = std::string(info->test_suite_name()) + "." + info->name();
    dut_ = GetParam().make(TestHarnessOptions(name));
    dut_->Reset();
    n_ = dut_->n();
    seed_ = BaseSeed() * 1000003 + std::hash<std::string>()(name);
    std::printf("[ seed     ] %s: %llu\n", name.c_str(), static_cast<unsigned long long>(seed_));
    rng_.seed(seed_);
  }
  void TearDown() override {
    if (env_) {
      for (const auto& v : env_->log().violations) ADD_FAILURE() << v;
    }
    EXPECT_EQ(dut_->assertion_failures(), 0u);
  }

  // Random contents everywhere: untouched bytes keep their (random) guard values.
  DmaMemories RandomMemories(uint64_t host_base) {
    DmaMemories m;
    m.host_base = host_base;
    m.host.resize(kHostBytes);
    m.dst[kDmaUb].resize(uint64_t(dut_->ub_rows()) * n_);
    m.dst[kDmaDram].resize(kDramBytes);
    m.dst[kDmaParam].resize(uint64_t(kParamSets) * 9 * n_);
    m.dst[kDmaLut].resize(kLutBytes);
    for (auto& x : m.host) x = uint8_t(rng_());
    for (auto& v : m.dst) {
      for (auto& x : v) x = uint8_t(rng_());
    }
    return m;
  }

  void MakeEnv(uint64_t host_base, const DmaEnvConfig& cfg) {
    env_ = std::make_unique<DmaEnv>(dut_.get(), RandomMemories(host_base), seed_ + 1);
    env_->config() = cfg;
    want_ = env_->mem();
  }

  isa::DeviceLimits Limits() const {
    isa::DeviceLimits lim;
    lim.n = n_;
    lim.ub_rows = int(dut_->ub_rows());
    lim.dram_bytes = kDramBytes;
    lim.param_sets = kParamSets;
    return lim;
  }

  // Queues an instruction (which must pass the dispatcher's checks) and applies it to want_.
  void Push(const DmaInstr& in) {
    ASSERT_EQ(isa::Check(EncodeDma(in), Limits()), isa::Error::kOk)
        << (in.write ? "WRITE_HOST" : "READ_HOST") << " host=" << in.host << " dest=" << in.dest
        << " ub=" << in.ub << " length=" << in.length << " target=" << in.target;
    env_->Push(in);
    prog_.push_back(in);
    ApplyDma(in, n_, &want_);
  }

  // Steps until pred() holds (checked before each step); false after max_cycles.
  template <typename Pred>
  bool StepUntil(Pred pred, int max_cycles = 10000) {
    for (int i = 0; i < max_cycles; ++i) {
      if (pred()) return true;
      env_->Step();
    }
    return pred();
  }

  // Runs what is queued to the end and checks it: memory images, then the traffic of every
  // instruction pushed since the last call (all of them complete with a give).
  void RunAndCheck(int max_cycles = 200000) {
    ASSERT_TRUE(env_->RunUntilIdle(max_cycles)) << "timeout at cycle " << env_->cycle();
    ExpectImages(env_->mem(), want_);
    CheckTraffic();
  }

  static void ExpectBytes(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                          const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[i] && bad++ == 0) first = i;
    }
    EXPECT_EQ(bad, 0u) << what << ": " << bad << " bytes differ, first at " << first << " (got "
                       << int(got[first]) << ", want " << int(want[first]) << ")";
  }
  static void ExpectImages(const DmaMemories& got, const DmaMemories& want) {
    ExpectBytes(got.host, want.host, "host memory");
    const char* names[kDmaTargets] = {"UB", "DRAM", "parameter memory", "LUT"};
    for (int t = 0; t < kDmaTargets; ++t) ExpectBytes(got.dst[t], want.dst[t], names[t]);
  }

  // Splits the log at the gives: instruction k's traffic lies between give k-1 and give k.
  // Checks the instructions pushed since the last call.
  void CheckTraffic() {
    const DmaLog& log = env_->log();
    ASSERT_TRUE(log.errors.empty());
    ASSERT_EQ(log.gives.size(), prog_.size());
    ASSERT_EQ(log.takes.size(), prog_.size());
    for (size_t k = checked_; k < prog_.size(); ++k) {
      SCOPED_TRACE("instruction " + std::to_string(k));
      const DmaInstr& in = prog_[k];
      const uint64_t give = log.gives[k].cycle, take = log.takes[k].cycle;
      EXPECT_EQ(log.gives[k].mask, in.signal);
      EXPECT_EQ(log.takes[k].mask, in.wait);
      if (k > 0) EXPECT_GT(take, log.gives[k - 1].cycle);
      EXPECT_LT(take, give);
      uint64_t last = take;
      const int64_t beats = DmaBeatsIn(in, n_), rows = DmaRowsOut(in, n_);
      const uint64_t host_beat = in.host / n_ * n_;
      if (!in.write) {
        for (int64_t b = 0; b < beats; ++b, ++hr_) {
          ASSERT_LT(hr_, log.host_reqs.size());
          const auto& r = log.host_reqs[hr_];
          ASSERT_LT(r.cycle, give);
          EXPECT_GT(r.cycle, take);
          EXPECT_FALSE(r.write);
          EXPECT_EQ(r.addr, host_beat + uint64_t(b) * n_) << "beat " << b;
        }
        const int64_t off = in.target == kDmaUb ? 0 : in.dest % n_;
        const uint32_t base = in.target == kDmaUb ? in.dest : in.dest / n_;
        for (int64_t j = 0; j < rows; ++j, ++row_) {
          ASSERT_LT(row_, log.rows.size());
          const auto& r = log.rows[row_];
          ASSERT_LT(r.cycle, give);
          EXPECT_EQ(r.target, in.target);
          EXPECT_EQ(r.row, base + uint32_t(j)) << "row " << j;
          EXPECT_EQ(r.mask, RowMask(off, in.length, j, n_)) << "row " << j;
          last = std::max(last, r.cycle);
        }
        row_pulses_ += rows;
      } else {
        for (int64_t b = 0; b < beats; ++b, ++ur_) {
          ASSERT_LT(ur_, log.ub_reqs.size());
          ASSERT_LT(log.ub_reqs[ur_].cycle, give);
          EXPECT_GT(log.ub_reqs[ur_].cycle, take);
          EXPECT_EQ(log.ub_reqs[ur_].row, in.ub + uint32_t(b)) << "UB row " << b;
        }
        for (int64_t j = 0; j < rows; ++j, ++hr_) {
          ASSERT_LT(hr_, log.host_reqs.size());
          const auto& r = log.host_reqs[hr_];
          ASSERT_LT(r.cycle, give);
          EXPECT_TRUE(r.write);
          EXPECT_EQ(r.addr, host_beat + uint64_t(j) * n_) << "beat " << j;
          EXPECT_EQ(r.mask, RowMask(in.host % n_, in.length, j, n_)) << "beat " << j;
          last = std::max(last, r.cycle);
        }
        row_pulses_ += beats;
      }
      // The give follows the last row or write beat taken.
      EXPECT_GT(give, last);
    }
    EXPECT_EQ(hr_, log.host_reqs.size()) << "host requests beyond the instructions'";
    EXPECT_EQ(row_, log.rows.size()) << "destination rows beyond the instructions'";
    EXPECT_EQ(ur_, log.ub_reqs.size()) << "UB reads beyond the instructions'";
    EXPECT_EQ(int64_t(log.row_pulses), row_pulses_);
    checked_ = prog_.size();
  }

  // A fresh environment and program (after a reset of the unit).
  void Restart(uint64_t host_base, const DmaEnvConfig& cfg) {
    dut_->Reset();
    prog_.clear();
    checked_ = hr_ = row_ = ur_ = 0;
    row_pulses_ = 0;
    MakeEnv(host_base, cfg);
  }

  uint32_t RandomHostBeat(uint32_t len) {
    const uint64_t span = kHostBytes - len - 2 * n_;
    return uint32_t(rng_() % span) / n_ * n_;
  }

  // READ_HOST of every length 1 .. 3N+1 (and kLarge where it fits) from every host offset, into
  // every destination offset for dram / param / lut (row 0 of a row for ub). Destinations are
  // laid out one after the other with guard bytes between; when the target is full, the images
  // are checked and the layout starts over.
  void ReadSweep(int target) {
    MakeEnv(kHostTop, Stalls());
    const uint64_t size = env_->mem().dst[target].size();
    const int dest_offs = target == kDmaUb ? 1 : n_;
    std::vector<uint32_t> lengths;
    for (int len = 1; len <= 3 * n_ + 1; ++len) lengths.push_back(uint32_t(len));
    uint64_t cursor = 0;
    for (int ho = 0; ho < n_; ++ho) {
      for (int dof = 0; dof < dest_offs; ++dof) {
        std::vector<uint32_t> lens = lengths;
        if (target != kDmaLut && (ho % 5 == 0 || ho == n_ - 1) && dof % 3 == 0) {
          lens.push_back(kLarge);
        }
        for (const uint32_t len : lens) {
          DmaInstr in;
          in.target = target;
          in.length = len;
          in.host = kHostTop + RandomHostBeat(len) + uint64_t(ho);
          uint64_t start = (cursor + n_ - 1) / n_ * n_ + uint64_t(dof);
          if (start + len > size) {  // full: check, start over
            RunAndCheck();
            if (HasFailure()) return;
            start = uint64_t(dof);
          }
          in.dest = target == kDmaUb ? uint32_t(start / n_) : uint32_t(start);
          Push(in);
          cursor = start + len + 1 + rng_() % n_;  // at least one guard byte
        }
      }
    }
    RunAndCheck();
    std::printf("[ info     ] N=%d: %zu transfers, %llu cycles\n", n_, prog_.size(),
                static_cast<unsigned long long>(env_->cycle()));
  }

  std::unique_ptr<DmaHarness> dut_;
  std::unique_ptr<DmaEnv> env_;
  int n_ = 0;
  uint64_t seed_ = 0;
  std::mt19937_64 rng_;
  DmaMemories want_;
  std::vector<DmaInstr> prog_;                      // pushed since the environment was made
  size_t checked_ = 0, hr_ = 0, row_ = 0, ur_ = 0;  // checked so far: instructions, log entries
  int64_t row_pulses_ = 0;                          // row_o pulses expected so far
};

// ---- Realignment: every length, host offset and destination offset ----

TEST_P(CtrlDmaTest, ReadHostSweepUb) { ReadSweep(kDmaUb); }
TEST_P(CtrlDmaTest, ReadHostSweepDram) { ReadSweep(kDmaDram); }
TEST_P(CtrlDmaTest, ReadHostSweepParam) { ReadSweep(kDmaParam); }
TEST_P(CtrlDmaTest, ReadHostSweepLut) { ReadSweep(kDmaLut); }

// WRITE_HOST of every length 1 .. 3N+1 (and kLarge) from random UB rows to every host offset;
// host destinations one after the other with guard bytes between.
TEST_P(CtrlDmaTest, WriteHostSweep) {
  MakeEnv(kHostTop, Stalls());
  const uint32_t ub_rows = dut_->ub_rows();
  uint64_t cursor = 0;
  for (int ho = 0; ho < n_; ++ho) {
    std::vector<uint32_t> lens;
    for (int len = 1; len <= 3 * n_ + 1; ++len) lens.push_back(uint32_t(len));
    if (ho % 5 == 0 || ho == n_ - 1) lens.push_back(kLarge);
    for (const uint32_t len : lens) {
      DmaInstr in;
      in.write = true;
      in.length = len;
      const uint32_t rows = (len + n_ - 1) / n_;
      in.ub = uint32_t(rng_() % (ub_rows - rows + 1));
      uint64_t start = (cursor + n_ - 1) / n_ * n_ + uint64_t(ho);
      if (start + len > kHostBytes) {
        RunAndCheck();
        if (HasFailure()) return;
        start = uint64_t(ho);
      }
      in.host = kHostTop + start;
      Push(in);
      cursor = start + len + 1 + rng_() % n_;
    }
  }
  RunAndCheck();
}

// ---- Back-to-back instructions, throughput ----

// A random mix of READ_HOST (every target) and WRITE_HOST, queued back to back, once with
// every port always ready (the gaps between instructions are bounded) and once with stalls.
TEST_P(CtrlDmaTest, BackToBackMixed) {
  for (const bool stalls : {false, true}) {
    SCOPED_TRACE(stalls ? "with stalls" : "always ready");
    Restart(0x123456780000ull, stalls ? Stalls() : DmaEnvConfig{});
    int64_t beats = 0;
    for (int i = 0; i < 60; ++i) {
      DmaInstr in;
      in.write = rng_() % 3 == 0;
      in.target = int(rng_() % kDmaTargets);
      in.length = uint32_t(1 + rng_() % (rng_() % 4 == 0 ? 200 : 3 * n_));
      in.host = 0x123456780000ull + RandomHostBeat(in.length) + rng_() % n_;
      const uint32_t rows = (in.length + n_ - 1) / n_;
      if (in.write) {
        in.ub = uint32_t(rng_() % (dut_->ub_rows() - rows + 1));
      } else if (in.target == kDmaUb) {
        in.dest = uint32_t(rng_() % (dut_->ub_rows() - rows + 1));
      } else {
        const uint64_t size = want_.dst[in.target].size();
        if (in.length > size) in.length = uint32_t(size);
        in.dest = uint32_t(rng_() % (size - in.length + 1));
      }
      Push(in);
      if (HasFailure()) return;
      beats += std::max(DmaBeatsIn(in, n_), DmaRowsOut(in, n_));
    }
    const uint64_t start = env_->cycle();
    RunAndCheck();
    const uint64_t cycles = env_->cycle() - start;
    std::printf("[ info     ] N=%d %s: 60 instructions, %lld beats in %llu cycles\n", n_,
                stalls ? "with stalls" : "always ready", static_cast<long long>(beats),
                static_cast<unsigned long long>(cycles));
    if (!stalls) {
      // One beat per cycle, plus a few cycles per instruction (pop, take, latency, give).
      EXPECT_LE(int64_t(cycles), beats + 60 * 6);
    }
  }
}

// One beat per cycle each way with every port always ready, several host reads outstanding.
TEST_P(CtrlDmaTest, Throughput) {
  DmaEnvConfig cfg;
  cfg.hm_lat_min = cfg.hm_lat_max = 8;
  MakeEnv(0, cfg);
  struct Case {
    const char* what;
    DmaInstr in;
  };
  DmaInstr rd_ub, rd_dram, wr;
  rd_ub.target = kDmaUb;
  rd_ub.dest = 3;
  rd_ub.length = kLarge;
  rd_ub.host = 1000 * n_ + 3;
  rd_dram.target = kDmaDram;
  rd_dram.dest = 5;
  rd_dram.length = kLarge;
  rd_dram.host = 40 * n_ + 1;
  wr.write = true;
  wr.ub = 7;
  wr.length = kLarge;
  wr.host = 20000 + 5;
  for (const Case& c :
       {Case{"READ_HOST ub", rd_ub}, Case{"READ_HOST dram", rd_dram}, Case{"WRITE_HOST", wr}}) {
    Push(c.in);
    const uint64_t start = env_->cycle();
    ASSERT_TRUE(env_->RunUntilIdle(100000));
    const uint64_t cycles = env_->cycle() - start;
    const int64_t in = DmaBeatsIn(c.in, n_), out = DmaRowsOut(c.in, n_);
    // Outstanding host reads: requests taken minus responses taken, at its peak.
    int64_t peak = 0;
    {
      const DmaLog& log = env_->log();
      size_t q = 0, s = 0;
      int64_t cur = 0;
      while (q < log.host_reqs.size() && log.host_reqs[q].cycle < start) ++q;
      while (s < log.host_rsps.size() && log.host_rsps[s].cycle < start) ++s;
      for (uint64_t cy = start; cy <= env_->cycle(); ++cy) {
        while (q < log.host_reqs.size() && log.host_reqs[q].cycle == cy) {
          cur += !log.host_reqs[q].write;
          ++q;
        }
        while (s < log.host_rsps.size() && log.host_rsps[s].cycle == cy) {
          --cur;
          ++s;
        }
        peak = std::max(peak, cur);
      }
    }
    std::printf(
        "[ info     ] N=%d %s of %u bytes: %lld beats in, %lld out, %llu cycles "
        "(%.3f beats/cycle), up to %lld host reads outstanding\n",
        n_, c.what, c.in.length, static_cast<long long>(in), static_cast<long long>(out),
        static_cast<unsigned long long>(cycles), double(std::max(in, out)) / double(cycles),
        static_cast<long long>(peak));
    // Pop, take, latency (8 host / 1 UB), output register, give.
    EXPECT_LE(int64_t(cycles), std::max(in, out) + (c.in.write ? 6 : 13)) << c.what;
    if (!c.in.write) {
      EXPECT_GE(peak, 8) << c.what;
    }
  }
  ExpectImages(env_->mem(), want_);
  CheckTraffic();
}

// ---- Tokens, abort ----

// The instruction does not start before its wait tokens are granted; it gives its signal mask
// exactly once, after its last row (or write beat) was taken.
TEST_P(CtrlDmaTest, WaitAndSignalTokens) {
  MakeEnv(0, Stalls());
  DmaInstr rd;
  rd.target = kDmaDram;
  rd.dest = 77;
  rd.length = 5 * n_ + 3;
  rd.host = 1234;
  rd.wait = 0x24;    // t2, t5
  rd.signal = 0x42;  // t1, t6
  Push(rd);
  DmaInstr wr;
  wr.write = true;
  wr.ub = 3;
  wr.length = 2 * n_ + 1;
  wr.host = 9001;
  wr.wait = 0x02;  // t1: given by the READ_HOST
  wr.signal = 0x80;
  Push(wr);
  const DmaLog& log = env_->log();
  for (int i = 0; i < 40; ++i) env_->Step();
  ASSERT_EQ(log.pops.size(), 1u);  // one instruction held, the next waits in the queue
  EXPECT_TRUE(log.takes.empty());
  EXPECT_TRUE(log.host_reqs.empty());
  EXPECT_GE(log.blocked, 20u);
  EXPECT_EQ(log.blocked, log.stall_dep);
  dut_->Eval();
  EXPECT_TRUE(dut_->take_valid());
  EXPECT_EQ(dut_->take_mask(), 0x24);
  EXPECT_FALSE(dut_->idle());
  env_->tokens()[2] = 1;  // one of two: still waiting
  for (int i = 0; i < 20; ++i) env_->Step();
  EXPECT_TRUE(log.takes.empty());
  EXPECT_TRUE(log.host_reqs.empty());
  env_->tokens()[5] = 1;
  RunAndCheck();
  EXPECT_EQ(env_->tokens()[2], 0);
  EXPECT_EQ(env_->tokens()[5], 0);
  EXPECT_EQ(env_->tokens()[1], 0);  // given by the READ_HOST, taken by the WRITE_HOST
  EXPECT_EQ(env_->tokens()[6], 1);
  EXPECT_EQ(env_->tokens()[7], 1);
  ASSERT_EQ(log.gives.size(), 2u);
  // The WRITE_HOST took t1 only after the READ_HOST gave it (a cycle later at the earliest).
  EXPECT_GT(log.takes[1].cycle, log.gives[0].cycle);
  EXPECT_GT(log.gives[0].cycle, log.rows.back().cycle);
  EXPECT_GT(log.gives[1].cycle, log.host_reqs.back().cycle);
}

// abort_i drops an instruction waiting for its tokens and stops popping the queue.
TEST_P(CtrlDmaTest, AbortWhileWaiting) {
  MakeEnv(0, Stalls());
  const DmaLog& log = env_->log();
  DmaInstr b;
  b.target = kDmaUb;
  b.dest = 100;
  b.length = 4 * n_ + 5;
  b.host = 333;
  b.wait = 0x08;  // t3: not available
  b.signal = 0x01;
  DmaInstr c = b;
  c.wait = 0;
  env_->Push(b);  // neither runs: not in the expected image
  env_->Push(c);
  ASSERT_TRUE(StepUntil([&] { return !log.pops.empty(); }));
  for (int i = 0; i < 10; ++i) env_->Step();
  dut_->Eval();
  ASSERT_TRUE(dut_->take_valid());
  const uint64_t blocked = log.blocked;
  env_->SetAbort(true);
  for (int i = 0; i < 2; ++i) env_->Step();
  env_->tokens()[3] = 1;  // too late: b is gone
  for (int i = 0; i < 50; ++i) env_->Step();
  dut_->Eval();
  EXPECT_EQ(log.blocked, blocked);  // take_valid_o fell with abort_i
  EXPECT_TRUE(dut_->idle());
  EXPECT_FALSE(dut_->take_valid());
  EXPECT_FALSE(dut_->instr_ready());
  EXPECT_TRUE(log.takes.empty());
  EXPECT_TRUE(log.gives.empty());
  EXPECT_TRUE(log.host_reqs.empty());
  EXPECT_EQ(log.pops.size(), 1u);  // c stays in the queue
  EXPECT_EQ(env_->queued(), 1u);
  EXPECT_EQ(env_->tokens()[3], 1);
  ExpectImages(env_->mem(), want_);
}

// A transfer already started when abort_i rises runs to its end and gives; nothing more is
// popped.
TEST_P(CtrlDmaTest, AbortWhileRunning) {
  MakeEnv(0, Stalls());
  const DmaLog& log = env_->log();
  DmaInstr a;
  a.target = kDmaDram;
  a.dest = 1001;
  a.length = 40 * n_ + 5;
  a.host = 333;
  a.signal = 0x01;
  Push(a);
  DmaInstr c = a;
  c.dest = 9000;
  env_->Push(c);  // never runs: not in the expected image
  ASSERT_TRUE(StepUntil([&] { return !log.takes.empty(); }));
  for (int i = 0; i < 5; ++i) env_->Step();
  env_->SetAbort(true);
  ASSERT_TRUE(log.gives.empty());
  ASSERT_TRUE(StepUntil([&] {
    dut_->Eval();
    return log.gives.size() == 1 && dut_->idle();
  }));
  for (int i = 0; i < 20; ++i) env_->Step();
  ExpectImages(env_->mem(), want_);
  CheckTraffic();
  EXPECT_EQ(log.pops.size(), 1u);
  EXPECT_EQ(env_->queued(), 1u);
  dut_->Eval();
  EXPECT_TRUE(dut_->idle());
}

// ---- DMA_ERROR ----

// A failed response on beat k: error_o pulses once with DMA_ERROR and the instruction's index;
// no request follows it, no row carries a byte of it or of a later beat, every response of the
// requests already sent is taken, no give; the next instruction then runs normally.
TEST_P(CtrlDmaTest, DmaError) {
  MakeEnv(0, Stalls());
  const DmaLog& log = env_->log();
  for (int rep = 0; rep < 12; ++rep) {
    SCOPED_TRACE("repetition " + std::to_string(rep));
    DmaInstr bad;
    bad.target = rep % 3 == 0 ? kDmaUb : kDmaDram;
    bad.length = uint32_t(20 * n_ + rng_() % (2 * n_));
    bad.host = 4096 + rng_() % 8192;
    bad.dest = bad.target == kDmaUb ? uint32_t(rng_() % 200) : uint32_t(rng_() % 30000);
    bad.signal = 0x10;
    const int64_t beats = DmaBeatsIn(bad, n_);
    const int64_t k = rep % 4 == 0 ? 0 : rep % 4 == 1 ? beats - 1 : int64_t(rng_() % beats);
    DmaInstr next;
    next.write = true;
    next.ub = uint32_t(rng_() % 500);
    next.length = uint32_t(1 + rng_() % (3 * n_));
    next.host = 40000 + rng_() % 1000;
    next.signal = 0x20;

    const DmaMemories before = env_->mem();
    const size_t rows0 = log.rows.size(), reqs0 = log.host_reqs.size(),
                 rsps0 = log.host_rsps.size(), gives0 = log.gives.size();
    env_->InjectReadError(env_->reads_accepted() + k);
    const uint32_t index = env_->Push(bad);
    env_->Push(next);
    ASSERT_TRUE(env_->RunUntilIdle(100000));

    ASSERT_EQ(log.errors.size(), size_t(rep + 1));
    const auto& err = log.errors.back();
    EXPECT_EQ(err.code, 19);
    EXPECT_EQ(err.index, index);
    // The failed response, and the error pulse in the cycle after it.
    uint64_t bad_rsp = 0;
    size_t bad_count = 0;
    for (size_t i = rsps0; i < log.host_rsps.size(); ++i) {
      if (log.host_rsps[i].error) {
        bad_rsp = log.host_rsps[i].cycle;
        ++bad_count;
      }
    }
    ASSERT_EQ(bad_count, 1u);
    EXPECT_EQ(err.cycle, bad_rsp + 1);
    // Only the next instruction gives.
    ASSERT_EQ(log.gives.size(), gives0 + 1);
    EXPECT_EQ(log.gives.back().mask, 0x20);
    // Every request sent got its response (the models are quiet) and none followed the error.
    EXPECT_TRUE(env_->Quiet());
    // (A request already offered when the error arrived may still be taken: valid/ready.)
    size_t reads = 0, late_reads = 0;
    for (size_t i = reqs0; i < log.host_reqs.size(); ++i) {
      if (log.host_reqs[i].write) continue;
      ++reads;
      late_reads += log.host_reqs[i].cycle > bad_rsp;
    }
    EXPECT_LE(late_reads, 1u);
    EXPECT_EQ(log.host_rsps.size() - rsps0, reads);
    EXPECT_GT(int64_t(reads), k);
    // Rows written: only from beats before k; each byte equal to the reference.
    DmaMemories full = before;
    ApplyDma(bad, n_, &full);
    const int64_t off = bad.target == kDmaUb ? 0 : bad.dest % n_;
    const uint64_t base = bad.target == kDmaUb ? uint64_t(bad.dest) * n_ : bad.dest / n_ * n_;
    size_t late = 0;
    for (size_t r = rows0; r < log.rows.size(); ++r) {
      const auto& row = log.rows[r];
      late += row.cycle >= err.cycle;
      for (int l = 0; l < n_; ++l) {
        if (!((row.mask >> l) & 1)) continue;
        const uint64_t a = uint64_t(row.row) * n_ + l;
        const int64_t i = int64_t(a - base) - off;  // byte of the transfer
        ASSERT_GE(i, 0);
        ASSERT_LT(i, int64_t(bad.length));
        EXPECT_LT((int64_t(bad.host % n_) + i) / n_, k) << "byte " << i << " after the error";
        EXPECT_EQ(row.data[l], full.dst[bad.target][a]) << "byte " << i;
      }
    }
    EXPECT_LE(late, 1u);  // at most the row already offered when the error arrived
    // Untouched outside the transfer; the next instruction's bytes are in host memory.
    want_ = before;
    for (int t = 0; t < kDmaTargets; ++t) {
      if (t == bad.target) continue;
      ExpectBytes(env_->mem().dst[t], want_.dst[t], "other targets");
    }
    const auto& got = env_->mem().dst[bad.target];
    for (size_t a = 0; a < got.size(); ++a) {
      const bool in = a >= base + off && a < base + off + bad.length;
      if (!in) {
        ASSERT_EQ(got[a], before.dst[bad.target][a]) << "byte " << a << " outside the transfer";
      } else {
        ASSERT_TRUE(got[a] == before.dst[bad.target][a] || got[a] == full.dst[bad.target][a]);
      }
    }
    want_.dst[kDmaUb] = env_->mem().dst[kDmaUb];  // what the next instruction read
    ApplyDma(next, n_, &want_);
    ExpectBytes(env_->mem().host, want_.host, "host memory");
    if (HasFailure()) return;
  }
  env_->InjectReadError(-1);
}

// ---- Status outputs ----

// idle_o, stall_o (host request not ready, or data not back; not a destination stall) and
// row_o.
TEST_P(CtrlDmaTest, StatusOutputs) {
  DmaEnvConfig cfg;
  cfg.hm_lat_min = cfg.hm_lat_max = 1;
  MakeEnv(0, cfg);
  const DmaLog& log = env_->log();
  dut_->Eval();
  EXPECT_TRUE(dut_->idle());
  EXPECT_FALSE(dut_->blocked());
  EXPECT_FALSE(dut_->stall());
  EXPECT_FALSE(dut_->stall_dep());

  DmaInstr rd;
  rd.target = kDmaParam;
  rd.dest = 3;
  rd.length = 30 * n_;
  rd.host = 100;
  Push(rd);
  ASSERT_TRUE(StepUntil([&] { return !log.takes.empty(); }));
  // Host requests refused: a stall every cycle.
  env_->config().hm_req_ready = 0.0;
  uint64_t s0 = log.stall;
  for (int i = 0; i < 20; ++i) env_->Step();
  EXPECT_EQ(log.stall - s0, 20u);
  dut_->Eval();
  EXPECT_FALSE(dut_->idle());
  // Destination refused while responses wait: not a host stall.
  env_->config().hm_req_ready = 1.0;
  for (int i = 0; i < 6; ++i) env_->Step();
  env_->config().dst_ready = 0.0;
  for (int i = 0; i < 3; ++i) env_->Step();
  s0 = log.stall;
  const uint64_t rows0 = log.row_pulses;
  for (int i = 0; i < 20; ++i) env_->Step();
  EXPECT_EQ(log.stall, s0);
  EXPECT_EQ(log.row_pulses, rows0);
  // Everything ready, latency 1: rows flow, one stall cycle at most at the end.
  env_->config().dst_ready = 1.0;
  s0 = log.stall;
  RunAndCheck();
  EXPECT_LE(log.stall - s0, 2u);
  EXPECT_EQ(int64_t(log.row_pulses), DmaRowsOut(rd, n_));

  // Host latency 20, every port ready: the unit waits for the first response (19 stall
  // cycles or more after the first request), then beats flow without a stall.
  env_->config().hm_lat_min = env_->config().hm_lat_max = 20;
  DmaInstr rd2 = rd;
  rd2.dest = 500;
  Push(rd2);
  s0 = log.stall;
  RunAndCheck();
  EXPECT_GE(log.stall - s0, 19u);
  EXPECT_LE(log.stall - s0, 21u);
  env_->config().hm_lat_min = env_->config().hm_lat_max = 1;

  // WRITE_HOST: row_o per UB row read; stall_o while a write beat waits for the host.
  DmaInstr wr;
  wr.write = true;
  wr.ub = 5;
  wr.length = 10 * n_ + 1;
  wr.host = 777;
  Push(wr);
  const size_t takes = log.takes.size();
  ASSERT_TRUE(StepUntil([&] { return log.takes.size() > takes; }));
  for (int i = 0; i < 3; ++i) env_->Step();
  env_->config().hm_req_ready = 0.0;
  s0 = log.stall;
  for (int i = 0; i < 10; ++i) env_->Step();
  EXPECT_EQ(log.stall - s0, 10u);
  env_->config().hm_req_ready = 1.0;
  RunAndCheck();
  EXPECT_EQ(int64_t(log.row_pulses), 2 * DmaRowsOut(rd, n_) + DmaBeatsIn(wr, n_));
  EXPECT_EQ(log.blocked, 0u);
  dut_->Eval();
  EXPECT_TRUE(dut_->idle());
  EXPECT_FALSE(dut_->stall());
}

// ---- Random programs ----

// Random instructions (targets, lengths, offsets, wait/signal tokens satisfiable in order) under
// random stalls, several seeds.
TEST_P(CtrlDmaTest, RandomPrograms) {
  for (int run = 0; run < 6; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    DmaEnvConfig cfg;
    auto p = [&]() { return 0.3 + 0.7 * double(rng_() % 1000) / 1000.0; };
    cfg.instr_valid = p();
    cfg.hm_req_ready = p();
    cfg.hm_lat_min = 1 + int(rng_() % 4);
    cfg.hm_lat_max = cfg.hm_lat_min + int(rng_() % 20);
    cfg.hm_rsp_valid = p();
    cfg.dst_ready = p();
    cfg.ub_req_ready = p();
    cfg.ub_lat_max = 1 + int(rng_() % 4);
    cfg.ub_rsp_valid = p();
    Restart(0x800000000000ull + (rng_() % 1000) * kHostBytes, cfg);
    std::array<int, 8> avail{};  // tokens given by earlier instructions, not yet taken
    for (int i = 0; i < 40; ++i) {
      DmaInstr in;
      in.write = rng_() % 3 == 0;
      in.target = int(rng_() % kDmaTargets);
      in.length = uint32_t(1 + rng_() % (rng_() % 5 == 0 ? 1500 : 4 * n_));
      in.host = want_.host_base + RandomHostBeat(in.length) + rng_() % n_;
      const uint32_t rows = (in.length + n_ - 1) / n_;
      if (in.write) {
        in.ub = uint32_t(rng_() % (dut_->ub_rows() - rows + 1));
      } else if (in.target == kDmaUb) {
        in.dest = uint32_t(rng_() % (dut_->ub_rows() - rows + 1));
      } else {
        const uint64_t size = want_.dst[in.target].size();
        if (in.length > size) in.length = uint32_t(size);
        in.dest = uint32_t(rng_() % (size - in.length + 1));
      }
      for (int t = 0; t < 8; ++t) {
        if (avail[t] > 0 && rng_() % 2 == 0) {
          in.wait |= uint8_t(1u << t);
          --avail[t];
        }
      }
      in.signal = uint8_t(rng_());
      for (int t = 0; t < 8; ++t) avail[t] += (in.signal >> t) & 1;
      Push(in);
      if (HasFailure()) return;
    }
    RunAndCheck();
    if (HasFailure()) return;
    for (int t = 0; t < 8; ++t) EXPECT_EQ(env_->tokens()[t], avail[t]) << "token " << t;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CtrlDmaTest, ::testing::ValuesIn(kVariants),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace tpu::tb
