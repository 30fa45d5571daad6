// The per-unit instruction queue tpu_fifo (docs/controller.md) against a std::deque, at
// the controller's configuration (Width=160, Depth=4), a narrow one at the minimum depth
// (Width=17, Depth=2) and one whose depth is not a power of two (Width=33, Depth=3). Every
// cycle, before the edge, the outputs are checked against the model: out_valid/empty/count
// from the entries held, out_data is the oldest entry, in_ready is "not full, or a pop this
// cycle". An entry pushed at edge t is at the head after edge t and not before (no bypass);
// clear_i drops every entry, including the one offered in its cycle. Random traffic prints
// its seed; set TPU_SEED to rerun with another base seed, TPU_TRACE=1 to dump waveforms.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <random>
#include <string>

#include "ctrl/queue_harness.h"

namespace tpu::tb {
namespace {

using MakeFn = std::unique_ptr<QueueHarness> (*)(const HarnessOptions&);

struct Variant {
  const char* name;
  MakeFn make;
};

const Variant kVariants[] = {
    {"W160D4", &MakeQueueHarness<160, 4>},
    {"W17D2", &MakeQueueHarness<17, 2>},
    {"W33D3", &MakeQueueHarness<33, 3>},
};

// The inputs of one cycle.
struct CycleIn {
  bool in_valid = false;
  QueueEntry data;
  bool out_ready = false;
  bool clear = false;
};

// What random traffic exercised, to make sure the interesting cases happened.
struct Coverage {
  int pushes = 0;
  int pops = 0;
  int push_into_empty = 0;   // the pushed entry must not be visible before the edge
  int full_push_pop = 0;     // push and pop in one cycle while full
  int full_stalls = 0;       // in_valid while full and no pop: not taken
  int clears_nonempty = 0;   // clear while holding entries
  int clears_with_push = 0;  // clear while in_valid && in_ready: the entry is dropped
  int resets_nonempty = 0;   // reset while holding entries
};

uint64_t BaseSeed() {
  const char* s = std::getenv("TPU_SEED");
  return s != nullptr ? std::strtoull(s, nullptr, 0) : 1;
}

class CtrlQueueTest : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string name = std::string(info->test_suite_name()) + "." + info->name();
    dut_ = GetParam().make(TestHarnessOptions(name));
    width_ = dut_->config().width;
    depth_ = dut_->config().depth;
    words_ = (width_ + 31) / 32;
    seed_ = BaseSeed() * 1000003 + std::hash<std::string>()(name);
    std::printf("[ seed     ] %llu\n", (unsigned long long)seed_);
    dut_->Reset();
  }

  QueueEntry Entry(std::mt19937_64& rng) const {
    QueueEntry e(words_);
    for (int w = 0; w < words_; ++w) e[w] = uint32_t(rng());
    if (width_ % 32 != 0) e[words_ - 1] &= (1u << (width_ % 32)) - 1;
    return e;
  }
  QueueEntry Zero() const { return QueueEntry(words_, 0); }

  // Checks the outputs against the model for the inputs already applied (after Eval()).
  void CheckOutputs(bool out_ready) {
    const int held = int(model_.size());
    ASSERT_EQ(dut_->count(), held) << "cycle " << cycle_;
    ASSERT_EQ(dut_->empty(), held == 0) << "cycle " << cycle_;
    ASSERT_EQ(dut_->out_valid(), held > 0) << "cycle " << cycle_;
    ASSERT_EQ(dut_->in_ready(), held < depth_ || out_ready)
        << "cycle " << cycle_ << " held " << held << " out_ready " << out_ready;
    if (held > 0) ASSERT_EQ(dut_->out_data(), model_.front()) << "cycle " << cycle_;
  }

  // One cycle: apply the inputs, check every output before the edge, clock DUT and model.
  void Step(const CycleIn& in) {
    const QueueEntry data = in.data.empty() ? Zero() : in.data;
    dut_->SetIn(in.in_valid, data);
    dut_->SetOutReady(in.out_ready);
    dut_->SetClear(in.clear);
    dut_->Eval();
    CheckOutputs(in.out_ready);
    if (::testing::Test::HasFatalFailure()) return;
    const int held = int(model_.size());
    const bool in_ready = held < depth_ || in.out_ready;
    const bool push = in.in_valid && in_ready && !in.clear;
    const bool pop = held > 0 && in.out_ready && !in.clear;
    cov_.pushes += push;
    cov_.pops += pop;
    cov_.push_into_empty += push && held == 0;
    cov_.full_push_pop += push && pop && held == depth_;
    cov_.full_stalls += in.in_valid && !in_ready;
    cov_.clears_nonempty += in.clear && held > 0;
    cov_.clears_with_push += in.clear && in.in_valid && in_ready;
    if (in.clear) {
      model_.clear();
    } else {
      if (pop) model_.pop_front();
      if (push) model_.push_back(data);
    }
    dut_->Tick();
    ++cycle_;
  }

  void Reset() {
    cov_.resets_nonempty += !model_.empty();
    dut_->Reset();
    model_.clear();
    // Reset leaves the inputs idle: nothing held, room for an entry.
    dut_->Eval();
    CheckOutputs(false);
  }

  // `cycles` of random traffic. Percentages are per cycle; when `phases` is set they are
  // redrawn every 32..159 cycles (bursts, long stalls on either side).
  void Random(int cycles, int in_pct, int out_pct, int clear_permille, int reset_permille,
              bool phases = false) {
    SCOPED_TRACE(std::string(GetParam().name) + " seed " + std::to_string(seed_));
    std::mt19937_64 rng(seed_);
    int phase_left = 0;
    for (int c = 0; c < cycles; ++c) {
      if (phases && --phase_left <= 0) {
        phase_left = 32 + int(rng() % 128);
        in_pct = int(rng() % 101);
        out_pct = int(rng() % 101);
      }
      if (int(rng() % 1000) < reset_permille) {
        Reset();
        if (HasFatalFailure()) return;
        continue;
      }
      CycleIn in;
      in.in_valid = int(rng() % 100) < in_pct;
      in.data = Entry(rng);  // changes every cycle, also while offered and not taken
      in.out_ready = int(rng() % 100) < out_pct;
      in.clear = int(rng() % 1000) < clear_permille;
      Step(in);
      if (HasFatalFailure()) return;
    }
    std::printf(
        "[ coverage ] pushes %d pops %d push_into_empty %d full_push_pop %d full_stalls %d "
        "clears_nonempty %d clears_with_push %d resets_nonempty %d\n",
        cov_.pushes, cov_.pops, cov_.push_into_empty, cov_.full_push_pop, cov_.full_stalls,
        cov_.clears_nonempty, cov_.clears_with_push, cov_.resets_nonempty);
  }

  std::unique_ptr<QueueHarness> dut_;
  int width_ = 0, depth_ = 0, words_ = 0;
  uint64_t seed_ = 0;
  uint64_t cycle_ = 0;
  std::deque<QueueEntry> model_;
  Coverage cov_;
};

// Both sides valid/ready about half the time: the queue wanders between empty and full.
TEST_P(CtrlQueueTest, RandomBalanced) {
  Random(100000, 50, 50, 4, 1);
  EXPECT_GT(cov_.pops, 25000);
  EXPECT_GT(cov_.full_push_pop, 2000);
  EXPECT_GT(cov_.clears_nonempty, 150);
  EXPECT_GT(cov_.resets_nonempty, 30);
}

// The dispatcher far ahead of the unit: the queue is mostly full, pushes wait for pops.
TEST_P(CtrlQueueTest, RandomProducerAhead) {
  Random(100000, 90, 30, 2, 0);
  EXPECT_GT(cov_.full_push_pop, 15000);
  EXPECT_GT(cov_.full_stalls, 30000);
}

// The unit far ahead of the dispatcher: the queue is mostly empty, entries go straight
// through with their one cycle of latency.
TEST_P(CtrlQueueTest, RandomConsumerAhead) {
  Random(100000, 30, 90, 2, 0);
  EXPECT_GT(cov_.push_into_empty, 15000);
}

// Bursts: valid/ready rates redrawn every few dozen cycles, frequent clears and resets.
TEST_P(CtrlQueueTest, RandomPhases) {
  Random(200000, 0, 0, 10, 2, /*phases=*/true);
  EXPECT_GT(cov_.pops, 25000);
  EXPECT_GT(cov_.full_push_pop, 5000);
  EXPECT_GT(cov_.clears_with_push, 300);
  EXPECT_GT(cov_.resets_nonempty, 100);
}

// One cycle of latency, no bypass: an entry pushed into an empty queue (with the unit ready)
// is not at the head before the edge, and is after it; then streaming at one entry per cycle.
TEST_P(CtrlQueueTest, PushVisibleAfterEdge) {
  std::mt19937_64 rng(seed_);
  const QueueEntry a = Entry(rng);
  dut_->SetOutReady(true);
  dut_->SetIn(true, a);
  dut_->Eval();
  EXPECT_FALSE(dut_->out_valid());
  EXPECT_TRUE(dut_->empty());
  EXPECT_EQ(dut_->count(), 0);
  EXPECT_TRUE(dut_->in_ready());
  dut_->Tick();
  dut_->SetIn(false, Zero());
  dut_->SetOutReady(false);
  dut_->Eval();
  EXPECT_TRUE(dut_->out_valid());
  EXPECT_FALSE(dut_->empty());
  EXPECT_EQ(dut_->count(), 1);
  EXPECT_EQ(dut_->out_data(), a);
  // Held while not popped, whatever the push side offers.
  dut_->SetIn(false, Entry(rng));
  dut_->Tick();
  dut_->Eval();
  EXPECT_EQ(dut_->out_data(), a);
  dut_->SetIn(false, Zero());
  model_.push_back(a);
  // Push and pop every cycle: each entry appears one cycle after its push, count stays 1.
  for (int i = 0; i < 4 * depth_ && !HasFatalFailure(); ++i) {
    Step(CycleIn{true, Entry(rng), true, false});
  }
  Step(CycleIn{false, {}, true, false});
  Step(CycleIn{false, {}, false, false});
  EXPECT_TRUE(dut_->empty());
}

// Full: no push without a pop; with a pop, one push and one pop per cycle, in order.
TEST_P(CtrlQueueTest, FullPushAndPop) {
  std::mt19937_64 rng(seed_);
  for (int i = 0; i < depth_ && !HasFatalFailure(); ++i) Step(CycleIn{true, Entry(rng)});
  ASSERT_EQ(dut_->count(), depth_);
  // Offered but not taken while the unit stalls (CheckOutputs sees in_ready low).
  for (int i = 0; i < 3 && !HasFatalFailure(); ++i) Step(CycleIn{true, Entry(rng), false});
  dut_->SetOutReady(true);
  dut_->Eval();
  EXPECT_TRUE(dut_->in_ready());  // a pop this cycle makes room
  for (int i = 0; i < 5 * depth_ + 1 && !HasFatalFailure(); ++i) {
    Step(CycleIn{true, Entry(rng), true});
    ASSERT_EQ(dut_->count(), depth_);
  }
  for (int i = 0; i < depth_ && !HasFatalFailure(); ++i) Step(CycleIn{false, {}, true});
  dut_->Eval();
  EXPECT_TRUE(dut_->empty());
  EXPECT_FALSE(dut_->out_valid());
}

// clear_i drops every entry, the one offered in its cycle too, and pops nothing; the old
// entries never reappear and the next pushes come out in order.
TEST_P(CtrlQueueTest, ClearDropsEverything) {
  std::mt19937_64 rng(seed_);
  for (int fill = 1; fill <= depth_; ++fill) {
    for (int i = 0; i < fill && !HasFatalFailure(); ++i) Step(CycleIn{true, Entry(rng)});
    Step(CycleIn{true, Entry(rng), true, true});  // push, pop and clear in one cycle
    dut_->SetIn(false, Zero());
    dut_->SetOutReady(false);
    dut_->SetClear(false);
    dut_->Eval();
    EXPECT_TRUE(dut_->empty());
    EXPECT_FALSE(dut_->out_valid());
    EXPECT_EQ(dut_->count(), 0);
    for (int i = 0; i < 2 && !HasFatalFailure(); ++i) Step(CycleIn{false, {}, true});
    for (int i = 0; i < depth_ + 1 && !HasFatalFailure(); ++i) {
      Step(CycleIn{true, Entry(rng), i % 2 == 1});
    }
    for (int i = 0; i < depth_ + 1 && !HasFatalFailure(); ++i) Step(CycleIn{false, {}, true});
    ASSERT_TRUE(model_.empty());
  }
}

// Reset while entries are held, with the pointers away from slot 0: empty at once, then the
// next pushes come out in order.
TEST_P(CtrlQueueTest, ResetMidTraffic) {
  std::mt19937_64 rng(seed_);
  for (int fill = 1; fill <= depth_; ++fill) {
    for (int i = 0; i < fill + 1 && !HasFatalFailure(); ++i) {
      Step(CycleIn{true, Entry(rng), i == 1});  // one pop: the pointers leave slot 0
    }
    Reset();
    EXPECT_EQ(cov_.resets_nonempty, fill);
    for (int i = 0; i < 3 * depth_ && !HasFatalFailure(); ++i) {
      Step(CycleIn{true, Entry(rng), i >= depth_});
    }
    for (int i = 0; i < depth_ && !HasFatalFailure(); ++i) Step(CycleIn{false, {}, true});
    ASSERT_TRUE(model_.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, CtrlQueueTest, ::testing::ValuesIn(kVariants),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace tpu::tb
