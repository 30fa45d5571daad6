// The Verilated accumulators against a reference model (int32 rows, golden WrapAdd), at the size
// given by TPU_ACC_N (built for 8 with 72 rows and 16 with 1024 rows). Set TPU_TRACE=1 to dump
// build/waves/<suite>.<test>.fst for each test.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "acc/acc_harness.h"
#include "acc/acc_model.h"
#include "acc/acc_traffic.h"

namespace tpu::tb {
namespace {

constexpr int kN = TPU_ACC_N;
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
constexpr int32_t kMin = std::numeric_limits<int32_t>::min();

// Random int32, a quarter of them at or next to the wrap-around edges.
int32_t RandomValue(std::mt19937_64& rng) {
  static constexpr int32_t kEdges[] = {kMax, kMin, kMax - 1, kMin + 1, -1, 0, 1};
  if (rng() % 4 == 0) return kEdges[rng() % (sizeof(kEdges) / sizeof(kEdges[0]))];
  return int32_t(uint32_t(rng()));
}

std::vector<int32_t> RandomRow(std::mt19937_64& rng) {
  std::vector<int32_t> row(kN);
  for (auto& v : row) v = RandomValue(rng);
  return row;
}

class AccTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    acc_ = MakeAccHarness<kN>(TestHarnessOptions(std::string(info->test_suite_name()) + "." +
                                                 info->name() + ".n" + std::to_string(kN)));
    model_ = std::make_unique<AccModel>(kN, acc_->depth());
    half_ = acc_->depth() / 2;
    acc_->Reset();
  }
  void TearDown() override {
    EXPECT_EQ(acc_->assertion_failures(), expected_assertions_) << "RTL assertions failed";
  }

  AccTrafficStats Run(const AccTraffic& t, const AccTrafficOptions& opts = {}) {
    try {
      return RunAccTraffic(*acc_, *model_, t, opts);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
      return {};
    }
  }

  // Reads every row back (both regions) and checks it against the model.
  void ExpectContents(uint64_t seed = 1) {
    AccTraffic t;
    for (uint32_t a = 0; a < acc_->depth(); ++a) t.reads.push_back(a);
    AccTrafficOptions opts;
    opts.seed = seed;
    opts.rsp_ready = 0.7;
    Run(t, opts);
  }

  // `passes` passes over rows [first, first + rows): the first pass overwrites when
  // `overwrite_first`, every other write accumulates.
  AccTraffic Passes(uint32_t first, uint32_t rows, int passes, bool overwrite_first,
                    std::mt19937_64& rng) {
    AccTraffic t;
    for (int p = 0; p < passes; ++p) {
      for (uint32_t r = 0; r < rows; ++r) {
        t.writes.push_back({first + r, !(p == 0 && overwrite_first), RandomRow(rng)});
      }
    }
    return t;
  }

  std::unique_ptr<AccHarness> acc_;
  std::unique_ptr<AccModel> model_;
  uint32_t half_ = 0;
  uint64_t expected_assertions_ = 0;
};

TEST_F(AccTest, RandomTrafficWithStallsOnEveryPort) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed * 104729 + kN);
    // Writes and reads mostly inside a few rows of each region, sometimes anywhere.
    const uint32_t base0 = uint32_t(rng() % (half_ - 4)), base1 = half_ + base0;
    auto addr = [&] {
      if (rng() % 8 == 0) return uint32_t(rng() % acc_->depth());
      return (rng() % 2 ? base0 : base1) + uint32_t(rng() % 4);
    };
    AccTraffic t;
    for (int i = 0; i < 1000; ++i) {
      t.writes.push_back({addr(), rng() % 4 != 0, RandomRow(rng)});
      t.reads.push_back(addr());
    }
    AccTrafficOptions opts;
    opts.seed = seed;
    std::uniform_real_distribution<double> prob(0.3, 1.0);
    opts.write_valid = prob(rng);
    opts.read_valid = prob(rng);
    opts.rsp_ready = prob(rng);
    const auto st = Run(t, opts);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    EXPECT_EQ(st.writes, 1000u);
    EXPECT_EQ(st.reads, 1000u);
    ExpectContents(seed);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
}

TEST_F(AccTest, FiftyPassesOfAccumulationWrapAround) {
  std::mt19937_64 rng(2);
  const uint32_t rows = std::min<uint32_t>(half_, 24);
  // Region 0 with back-to-back rows; region 1 with gaps and a reader reading along.
  const AccTraffic t0 = Passes(0, rows, 50, true, rng);
  Run(t0);
  // The exact sums leave the int32 range in some lane: the hardware had to wrap around.
  std::vector<int64_t> exact(size_t(rows) * kN, 0);
  for (const auto& op : t0.writes) {
    for (int i = 0; i < kN; ++i) {
      int64_t& e = exact[size_t(op.addr) * kN + i];
      e = (op.accumulate ? e : 0) + op.row[i];
    }
  }
  bool wrapped = false;
  for (int64_t e : exact) wrapped |= e > kMax || e < kMin;
  EXPECT_TRUE(wrapped);
  AccTraffic t = Passes(half_, rows, 50, true, rng);
  for (int i = 0; i < 200; ++i) t.reads.push_back(half_ + uint32_t(rng() % rows));
  AccTrafficOptions opts;
  opts.write_valid = 0.8;
  opts.read_valid = 0.3;
  opts.rsp_ready = 0.5;
  opts.seed = 3;
  Run(t, opts);
  ExpectContents();
}

TEST_F(AccTest, SameRowOnConsecutiveCycles) {
  std::mt19937_64 rng(4);
  const uint32_t a = 1, b = 2, c = half_ + 1;
  const std::vector<std::vector<uint32_t>> patterns = {
      std::vector<uint32_t>(32, a),  // the same row every cycle
      {a, b, a, b, a, b, a, b},      // every other cycle
      {a, a, b, b, a, a, b, b},      // pairs
      {a, c, a, c, c, a, a, c},      // across the regions
      {a, b, c, a, b, c, a, b, c}};  // every third cycle
  for (const auto& pattern : patterns) {
    AccTraffic t;
    for (size_t i = 0; i < pattern.size(); ++i) {
      // Mostly accumulate, with an overwrite in the middle of each run.
      t.writes.push_back({pattern[i], i != pattern.size() / 2, RandomRow(rng)});
    }
    t.reads = {a, b, c, a};  // reads close behind the writes
    Run(t);
    ExpectContents();
  }
}

TEST_F(AccTest, OverwriteAfterAccumulateAndBack) {
  std::mt19937_64 rng(5);
  AccTraffic t;
  const uint32_t a = half_ - 1, b = half_;  // the last row of region 0, the first of region 1
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 5; ++i) t.writes.push_back({a, true, RandomRow(rng)});
    t.writes.push_back({a, false, RandomRow(rng)});  // overwrite right after accumulating
    t.writes.push_back({a, true, RandomRow(rng)});   // accumulate right after overwriting
    t.writes.push_back({b, false, RandomRow(rng)});
    t.writes.push_back({a, false, RandomRow(rng)});
    t.writes.push_back({b, true, RandomRow(rng)});
  }
  Run(t);
  ExpectContents();
}

TEST_F(AccTest, ReadSeesEveryEarlierWriteAndNoneOfItsOwnCycle) {
  std::mt19937_64 rng(6);
  const uint32_t a = 3;
  const auto p = RandomRow(rng), q = RandomRow(rng), old = model_->Read(a);
  std::vector<int32_t> got(kN), pq(kN);
  for (int i = 0; i < kN; ++i) pq[i] = golden::WrapAdd(p[i], q[i]);
  acc_->SetReadRspReady(true);

  // Cycle t: overwrite row a and read it. An overwrite leaves the read port free: the read is
  // accepted and returns the row before the write.
  acc_->SetWrite(true, a, false, p.data());
  acc_->SetReadReq(true, a);
  acc_->Eval();
  ASSERT_TRUE(acc_->read_req_ready());
  EXPECT_FALSE(acc_->rd_stall());
  acc_->Tick();
  // Cycle t + 1: read again, no write: the overwrite is seen (it lands at the end of this cycle).
  acc_->SetWrite(false, 0, false, nullptr);
  acc_->Eval();
  ASSERT_TRUE(acc_->read_rsp_valid());
  acc_->GetReadRsp(got.data());
  EXPECT_EQ(got, old) << "a read sees a write of its own cycle";
  EXPECT_TRUE(acc_->wr_busy());
  ASSERT_TRUE(acc_->read_req_ready());
  acc_->Tick();
  // Cycle t + 2: accumulate q into row a while reading it again: the read waits.
  acc_->SetWrite(true, a, true, q.data());
  acc_->Eval();
  ASSERT_TRUE(acc_->read_rsp_valid());
  acc_->GetReadRsp(got.data());
  EXPECT_EQ(got, p) << "a read misses a write of the cycle before it";
  EXPECT_FALSE(acc_->read_req_ready());
  EXPECT_TRUE(acc_->rd_stall());
  acc_->Tick();
  // Cycle t + 3: another accumulation of row a: the read keeps waiting.
  acc_->Eval();
  EXPECT_FALSE(acc_->read_req_ready());
  EXPECT_TRUE(acc_->rd_stall());
  acc_->Tick();
  // Cycle t + 4: no write: the read goes in and sees both accumulations.
  acc_->SetWrite(false, 0, false, nullptr);
  acc_->Eval();
  ASSERT_TRUE(acc_->read_req_ready());
  acc_->Tick();
  acc_->SetReadReq(false, 0);
  acc_->Eval();
  ASSERT_TRUE(acc_->read_rsp_valid());
  acc_->GetReadRsp(got.data());
  std::vector<int32_t> pqq(kN);
  for (int i = 0; i < kN; ++i) pqq[i] = golden::WrapAdd(pq[i], q[i]);
  EXPECT_EQ(got, pqq) << "a read sees both accumulations before it";
  acc_->Tick();
  acc_->Eval();
  EXPECT_FALSE(acc_->rd_busy());
  EXPECT_FALSE(acc_->wr_busy());
}

TEST_F(AccTest, FillOneRegionWhileDrainingTheOther) {
  std::mt19937_64 rng(7);
  for (int fill = 0; fill < 2; ++fill) {
    const uint32_t fill_base = fill ? half_ : 0, drain_base = fill ? 0 : half_;
    // Four passes over the whole fill region, back to back; meanwhile read the drain region
    // twice over, with the reader always ready.
    AccTraffic t = Passes(fill_base, half_, 4, true, rng);
    for (int pass = 0; pass < 2; ++pass) {
      for (uint32_t r = 0; r < half_; ++r) t.reads.push_back(drain_base + r);
    }
    const auto st = Run(t);
    ASSERT_FALSE(HasFailure());
    EXPECT_EQ(st.writes, 4u * half_);
    EXPECT_DOUBLE_EQ(st.WriteRowsPerCycle(), 1.0);
    EXPECT_EQ(st.read_stall, 0u) << "the write stream held up a read of the other region";
    EXPECT_EQ(st.read_wait, 0u);
    EXPECT_DOUBLE_EQ(st.ReadRowsPerCycle(), 1.0);
    EXPECT_DOUBLE_EQ(st.ResponseRowsPerCycle(), 1.0);
    EXPECT_EQ(st.min_latency, 1u);
    ExpectContents();
  }
}

TEST_F(AccTest, ReadsOfTheRegionBeingAccumulatedWaitAndStayExact) {
  std::mt19937_64 rng(8);
  const uint32_t rows = std::min<uint32_t>(half_, 8);
  AccTraffic t = Passes(0, rows, 30, true, rng);
  for (int i = 0; i < 150; ++i) t.reads.push_back(uint32_t(rng() % rows));
  AccTrafficOptions opts;
  opts.write_valid = 0.7;
  opts.rsp_ready = 0.8;
  opts.seed = 9;
  const auto st = Run(t, opts);
  EXPECT_GT(st.read_stall, 0u) << "no read met an accumulating write of its region";
  EXPECT_EQ(st.writes, 30u * rows);
  ExpectContents();
}

TEST_F(AccTest, StalledResponsesHoldTwoRowsAndComeBackInOrder) {
  std::mt19937_64 rng(10);
  Run(Passes(0, 6, 1, true, rng));
  uint32_t next = 0;
  acc_->SetReadRspReady(false);
  for (int c = 0; c < 10; ++c) {
    acc_->SetReadReq(true, next);
    acc_->Eval();
    if (acc_->read_req_ready()) ++next;
    acc_->Tick();
  }
  EXPECT_EQ(next, 2u) << "requests accepted with no room for their responses";
  EXPECT_TRUE(acc_->rd_busy());
  std::vector<int32_t> got(kN);
  uint32_t taken = 0;
  for (int c = 0; c < 12 && taken < 6; ++c) {
    acc_->SetReadReq(next < 6, next < 6 ? next : 0);
    acc_->SetReadRspReady(true);
    acc_->Eval();
    if (acc_->read_rsp_valid()) {
      acc_->GetReadRsp(got.data());
      EXPECT_EQ(got, model_->Read(taken)) << "response " << taken;
      ++taken;
    }
    if (next < 6 && acc_->read_req_ready()) ++next;
    acc_->Tick();
  }
  EXPECT_EQ(taken, 6u);
  acc_->SetReadReq(false, 0);
  acc_->Eval();
  EXPECT_FALSE(acc_->rd_busy());
}

TEST_F(AccTest, OutOfRangeAddressesWriteNothingAndReadZero) {
  const uint32_t depth = acc_->depth();
  const uint32_t addr_space = 1u << (32 - __builtin_clz(depth - 1));
  // The test models are built with depths that are not powers of two, so that some
  // addresses of the port's width are out of range.
  ASSERT_LT(depth, addr_space) << "build this model with a depth that is not a power of two";
  std::mt19937_64 rng(11);
  Run(Passes(0, depth, 1, true, rng));
  AccTraffic bad;
  for (uint32_t a : {depth, depth + 1, depth + half_, addr_space - 1}) {
    if (a >= addr_space) continue;
    bad.writes.push_back({a, false, RandomRow(rng)});
    bad.writes.push_back({a, true, RandomRow(rng)});
    // Zeros, even right after a read of a non-zero row of the same region.
    bad.reads.insert(bad.reads.end(), {half_ + a % 8, a});
  }
  Run(bad);
  EXPECT_GT(acc_->assertion_failures(), 0u) << "out-of-range addresses raised no assertion";
  expected_assertions_ = acc_->assertion_failures();
  ExpectContents();
}

TEST_F(AccTest, ResetClearsThePipelinesAndKeepsTheRows) {
  std::mt19937_64 rng(12);
  Run(Passes(0, 4, 1, true, rng));
  const auto row = RandomRow(rng);
  acc_->SetWrite(true, 0, true, row.data());
  acc_->SetReadReq(true, half_);
  acc_->SetReadRspReady(false);
  acc_->Tick();
  acc_->SetWrite(false, 0, false, nullptr);
  acc_->Eval();
  EXPECT_TRUE(acc_->wr_busy());
  EXPECT_TRUE(acc_->rd_busy());
  acc_->Reset();  // the accumulation in flight may or may not land: forget row 0
  acc_->Eval();
  EXPECT_FALSE(acc_->wr_busy());
  EXPECT_FALSE(acc_->rd_busy());
  EXPECT_FALSE(acc_->read_rsp_valid());
  AccTraffic t = Passes(0, 1, 1, true, rng);
  Run(t);
  ExpectContents();
}

}  // namespace
}  // namespace tpu::tb
