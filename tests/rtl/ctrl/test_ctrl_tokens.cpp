// The dependency-token counters tpu_ctrl_tokens against a C++ model of docs/isa.md's tokens
// and docs/controller.md's arbitration (fixed priority, all-or-nothing takes, gives of one
// cycle added up, saturation at TOKEN_MAX with overflow). Random traffic prints its seed on
// failure; set TPU_SEED to rerun with another base seed, TPU_TRACE=1 to dump waveforms.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>

#include "ctrl/tokens_harness.h"

namespace tpu::tb {
namespace {

constexpr int kTokens = TokensHarness::kTokens;
constexpr int kPorts = TokensHarness::kPorts;
constexpr int kTokenMax = 255;

struct PortIn {
  bool take = false, give = false;
  uint8_t take_mask = 0, give_mask = 0;
};

// One cycle of the reference: grants, then the counters after the edge; true on overflow.
struct TokenModel {
  std::array<int, kTokens> count{};

  bool Step(bool clear, const std::array<PortIn, kPorts>& in, std::array<bool, kPorts>* grant) {
    std::array<int, kTokens> left = count;
    for (int p = 0; p < kPorts; ++p) {
      bool ok = in[p].take;
      for (int t = 0; t < kTokens; ++t) {
        if (((in[p].take_mask >> t) & 1) && left[t] == 0) ok = false;
      }
      (*grant)[p] = ok;
      if (!ok) continue;
      for (int t = 0; t < kTokens; ++t) left[t] -= (in[p].take_mask >> t) & 1;
    }
    bool overflow = false;
    for (int t = 0; t < kTokens; ++t) {
      int v = left[t];
      for (int p = 0; p < kPorts; ++p) v += in[p].give && ((in[p].give_mask >> t) & 1);
      if (v > kTokenMax) {
        overflow = true;
        v = kTokenMax;
      }
      count[t] = clear ? 0 : v;
    }
    return overflow && !clear;
  }
};

uint64_t BaseSeed() {
  const char* s = std::getenv("TPU_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 0) : 1;
}

class CtrlTokensTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dut_ = MakeTokensHarness(
        TestHarnessOptions(std::string(info->test_suite_name()) + "." + info->name()));
    seed_ = BaseSeed() * 1000003 + std::hash<std::string>()(info->name());
    dut_->Reset();
  }

  // `cycles` of random traffic; `give_pct` / `take_pct` per port and cycle; `sparse` masks
  // name one or two tokens. Counts grants and overflows seen.
  void Random(int cycles, int take_pct, int give_pct, int clear_permille) {
    SCOPED_TRACE("seed " + std::to_string(seed_));
    std::mt19937_64 rng(seed_);
    auto mask = [&]() -> uint8_t {
      if (rng() % 4 == 0) return uint8_t(rng());
      return uint8_t((1u << (rng() % kTokens)) | (rng() % 3 == 0 ? 1u << (rng() % kTokens) : 0));
    };
    TokenModel model;
    for (int cycle = 0; cycle < cycles; ++cycle) {
      std::array<PortIn, kPorts> in;
      for (int p = 0; p < kPorts; ++p) {
        in[p].take = int(rng() % 100) < take_pct;
        in[p].take_mask = rng() % 16 == 0 ? 0 : mask();
        in[p].give = int(rng() % 100) < give_pct;
        in[p].give_mask = mask();
        dut_->SetTake(p, in[p].take, in[p].take_mask);
        dut_->SetGive(p, in[p].give, in[p].give_mask);
      }
      const bool clear = int(rng() % 1000) < clear_permille;
      dut_->SetClear(clear);
      dut_->Eval();
      std::array<bool, kPorts> grant{};
      const bool overflow = model.Step(clear, in, &grant);
      for (int p = 0; p < kPorts; ++p) {
        ASSERT_EQ(dut_->grant(p), grant[p]) << "cycle " << cycle << " port " << p;
        grants_ += grant[p] && in[p].take_mask != 0;
      }
      ASSERT_EQ(dut_->overflow(), overflow) << "cycle " << cycle;
      overflows_ += overflow;
      dut_->Tick();
      uint8_t avail = 0;
      for (int t = 0; t < kTokens; ++t) {
        ASSERT_EQ(dut_->count(t), model.count[t]) << "cycle " << cycle << " token " << t;
        avail |= uint8_t((model.count[t] > 0) << t);
      }
      ASSERT_EQ(dut_->avail(), avail) << "cycle " << cycle;
    }
  }

  std::unique_ptr<TokensHarness> dut_;
  uint64_t seed_ = 0;
  int grants_ = 0, overflows_ = 0;
};

// Balanced traffic: counters wander around small values, takes compete.
TEST_F(CtrlTokensTest, RandomContention) {
  Random(20000, 50, 25, 2);
  EXPECT_GT(grants_, 1000);
}

// Producers far ahead of consumers: counters reach TOKEN_MAX and overflow.
TEST_F(CtrlTokensTest, RandomOverflow) {
  Random(5000, 5, 80, 0);
  EXPECT_GT(overflows_, 10);
}

// A take waits for its token and gets it the cycle after the give (not in the give's cycle).
TEST_F(CtrlTokensTest, TakeSeesGiveNextCycle) {
  dut_->SetTake(3, true, 0x10);
  dut_->SetGive(1, true, 0x10);
  dut_->Eval();
  EXPECT_FALSE(dut_->grant(3));
  dut_->Tick();
  dut_->SetGive(1, false, 0);
  dut_->Eval();
  EXPECT_EQ(dut_->count(4), 1);
  EXPECT_TRUE(dut_->grant(3));
  dut_->Tick();
  dut_->SetTake(3, false, 0);
  dut_->Eval();
  EXPECT_EQ(dut_->count(4), 0);
}

// All or nothing: a take naming an empty token takes none of its other tokens.
TEST_F(CtrlTokensTest, TakeIsAllOrNothing) {
  dut_->SetGive(0, true, 0x01);
  dut_->Tick();
  dut_->SetGive(0, false, 0);
  dut_->SetTake(2, true, 0x03);
  for (int i = 0; i < 3; ++i) {
    dut_->Eval();
    EXPECT_FALSE(dut_->grant(2));
    dut_->Tick();
    EXPECT_EQ(dut_->count(0), 1);
  }
}

}  // namespace
}  // namespace tpu::tb
