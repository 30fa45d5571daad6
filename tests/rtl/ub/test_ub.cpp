// The Verilated unified buffer against a reference model (a vector of rows), at the size given by
// TPU_UB_N (built for 8 with 300 rows and 16 with 4096 rows). Set TPU_TRACE=1 to dump
// build/waves/<suite>.<test>.fst for each test.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ub/ub_harness.h"
#include "ub/ub_model.h"
#include "ub/ub_traffic.h"

namespace tpu::tb {
namespace {

constexpr int kN = TPU_UB_N;
constexpr UbWriter kWriters[] = {UbWriter::kDma, UbWriter::kAct};
constexpr UbReader kReaders[] = {UbReader::kDma, UbReader::kMxu};

std::vector<int8_t> RandomRow(std::mt19937_64& rng) {
  std::vector<int8_t> row(kN);
  for (auto& b : row) b = int8_t(rng());
  return row;
}

// Random operations on every port: addresses mostly inside a window of `window` rows (so that
// reads and writes of the same row meet often), sometimes anywhere; random DMA byte masks.
UbTraffic RandomTraffic(uint32_t depth, int ops, uint32_t window, std::mt19937_64& rng) {
  const uint32_t base = uint32_t(rng() % (depth - window + 1));
  auto addr = [&] { return rng() % 8 ? base + uint32_t(rng() % window) : uint32_t(rng() % depth); };
  UbTraffic t;
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < ops; ++i) {
      UbWriteOp op{addr(), RandomRow(rng), {}};
      if (p == int(UbWriter::kDma) && rng() % 4) {
        op.mask.resize(kN);
        for (auto& m : op.mask) m = uint8_t(rng() & 1);
      }
      t.writes[p].push_back(std::move(op));
      t.reads[p].push_back(addr());
    }
  }
  return t;
}

class UbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    ub_ = MakeUbHarness<kN>(TestHarnessOptions(std::string(info->test_suite_name()) + "." +
                                               info->name() + ".n" + std::to_string(kN)));
    model_ = std::make_unique<UbModel>(kN, ub_->depth());
    ub_->Reset();
  }
  void TearDown() override {
    EXPECT_EQ(ub_->assertion_failures(), expected_assertions_) << "RTL assertions failed";
  }

  UbTrafficStats Run(const UbTraffic& t, const UbTrafficOptions& opts = {}) {
    try {
      return RunUbTraffic(*ub_, *model_, t, opts);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
      return {};
    }
  }

  // One write, held until accepted.
  void Write(UbWriter w, uint32_t addr, const std::vector<int8_t>& row,
             const std::vector<uint8_t>& mask = {}) {
    UbTraffic t;
    t.writes[int(w)].push_back({addr, row, mask});
    Run(t);
  }
  // One read; returns the response.
  std::vector<int8_t> Read(UbReader r, uint32_t addr) {
    ub_->SetReadReq(r, true, addr);
    ub_->SetReadRspReady(r, true);
    ub_->Eval();
    EXPECT_TRUE(ub_->read_req_ready(r));
    ub_->Tick();
    ub_->SetReadReq(r, false, 0);
    ub_->Eval();
    EXPECT_TRUE(ub_->read_rsp_valid(r));
    std::vector<int8_t> row(kN);
    ub_->GetReadRsp(r, row.data());
    ub_->Tick();
    ub_->SetReadRspReady(r, false);
    return row;
  }

  std::unique_ptr<UbHarness> ub_;
  std::unique_ptr<UbModel> model_;
  uint64_t expected_assertions_ = 0;
};

TEST_F(UbTest, RandomTrafficOnAllPortsWithStalls) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed * 7919 + kN);
    UbTrafficOptions opts;
    opts.seed = seed;
    std::uniform_real_distribution<double> prob(0.2, 1.0);
    for (int p = 0; p < 2; ++p) {
      opts.write_valid[p] = prob(rng);
      opts.read_valid[p] = prob(rng);
      opts.rsp_ready[p] = prob(rng);
    }
    const auto t = RandomTraffic(ub_->depth(), 1000, 6, rng);
    const auto st = Run(t, opts);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    for (int p = 0; p < 2; ++p) {
      EXPECT_EQ(st.write[p].accepted, 1000u) << "seed " << seed;
      EXPECT_EQ(st.read[p].accepted, 1000u) << "seed " << seed;
    }
  }
}

TEST_F(UbTest, FullLoadOnOneRowAtATime) {
  // Every port busy every cycle on two rows: each read meets a write of its row in its cycle.
  std::mt19937_64 rng(11);
  const auto t = RandomTraffic(ub_->depth(), 400, 2, rng);
  Run(t, {});
}

TEST_F(UbTest, ReadSeesTheWriteOfItsOwnCycleButNoLaterOne) {
  std::mt19937_64 rng(21);
  const uint32_t a = 7;
  const auto p = RandomRow(rng), q = RandomRow(rng), r = RandomRow(rng);
  Write(UbWriter::kAct, a, p);
  std::vector<uint8_t> mask(kN);
  for (int i = 0; i < kN; ++i) mask[i] = i % 3 != 1;
  std::vector<int8_t> pq = p;
  for (int i = 0; i < kN; ++i) {
    if (mask[i]) pq[i] = q[i];
  }

  // Cycle t: a masked DMA write of row a and an MXU read of row a, both accepted.
  ub_->SetWrite(UbWriter::kDma, true, a, q.data(), mask.data());
  ub_->SetReadReq(UbReader::kMxu, true, a);
  ub_->SetReadRspReady(UbReader::kMxu, false);
  ub_->Eval();
  ASSERT_TRUE(ub_->write_ready(UbWriter::kDma));
  ASSERT_TRUE(ub_->read_req_ready(UbReader::kMxu));
  ub_->Tick();
  // Cycle t + 1: the activation port overwrites row a and the DMA reads it; the MXU response
  // (still not taken) must keep the value of cycle t.
  ub_->SetWrite(UbWriter::kDma, false, 0, nullptr, nullptr);
  ub_->SetReadReq(UbReader::kMxu, false, 0);
  ub_->SetWrite(UbWriter::kAct, true, a, r.data(), nullptr);
  ub_->SetReadReq(UbReader::kDma, true, a);
  ub_->SetReadRspReady(UbReader::kDma, false);
  ub_->Eval();
  ASSERT_TRUE(ub_->write_ready(UbWriter::kAct));
  ASSERT_TRUE(ub_->read_req_ready(UbReader::kDma));
  ub_->Tick();
  ub_->SetWrite(UbWriter::kAct, false, 0, nullptr, nullptr);
  ub_->SetReadReq(UbReader::kDma, false, 0);
  for (int i = 0; i < 3; ++i) ub_->Tick();  // responses wait, later writes must not leak in
  ub_->Eval();
  std::vector<int8_t> got(kN);
  ASSERT_TRUE(ub_->read_rsp_valid(UbReader::kMxu));
  ub_->GetReadRsp(UbReader::kMxu, got.data());
  EXPECT_EQ(got, pq) << "read in the cycle of a masked write";
  ASSERT_TRUE(ub_->read_rsp_valid(UbReader::kDma));
  ub_->GetReadRsp(UbReader::kDma, got.data());
  EXPECT_EQ(got, r) << "read in the cycle of a full-row write";
  ub_->SetReadRspReady(UbReader::kMxu, true);
  ub_->SetReadRspReady(UbReader::kDma, true);
  ub_->Tick();
  ub_->SetReadRspReady(UbReader::kMxu, false);
  ub_->SetReadRspReady(UbReader::kDma, false);
  ub_->Eval();
  EXPECT_FALSE(ub_->read_rsp_valid(UbReader::kMxu));
  EXPECT_FALSE(ub_->read_rsp_valid(UbReader::kDma));
  EXPECT_FALSE(ub_->busy());

  // Read in cycle t, write in t + 1: the read returns the old row; a read in t + 2 the new one.
  ub_->SetReadReq(UbReader::kMxu, true, a);
  ub_->SetReadRspReady(UbReader::kMxu, false);
  ub_->Eval();
  ASSERT_TRUE(ub_->read_req_ready(UbReader::kMxu));
  ub_->Tick();
  ub_->SetReadReq(UbReader::kMxu, false, 0);
  ub_->SetWrite(UbWriter::kDma, true, a, p.data(), nullptr);
  ub_->Eval();
  ASSERT_TRUE(ub_->write_ready(UbWriter::kDma));
  ub_->Tick();
  ub_->SetWrite(UbWriter::kDma, false, 0, nullptr, nullptr);
  ub_->SetReadRspReady(UbReader::kMxu, true);
  ub_->Eval();
  ASSERT_TRUE(ub_->read_rsp_valid(UbReader::kMxu));
  ub_->GetReadRsp(UbReader::kMxu, got.data());
  EXPECT_EQ(got, r) << "read one cycle before a write";
  ub_->Tick();
  EXPECT_EQ(Read(UbReader::kMxu, a), p) << "read one cycle after a write";
}

TEST_F(UbTest, ByteMasksWriteOnlyTheirBytes) {
  std::mt19937_64 rng(31);
  const uint32_t a = ub_->depth() - 1;
  auto row = RandomRow(rng);
  Write(UbWriter::kDma, a, row);
  EXPECT_EQ(Read(UbReader::kDma, a), row);
  std::vector<std::vector<uint8_t>> masks;
  masks.push_back(std::vector<uint8_t>(kN, 0));  // writes nothing
  for (int b : {0, kN - 1, kN / 2}) {
    masks.push_back(std::vector<uint8_t>(kN, 0));
    masks.back()[b] = 1;
  }
  for (int phase = 0; phase < 2; ++phase) {
    masks.push_back(std::vector<uint8_t>(kN));
    for (int i = 0; i < kN; ++i) masks.back()[i] = (i + phase) % 2;
  }
  for (const auto& mask : masks) {
    const auto q = RandomRow(rng);
    Write(UbWriter::kDma, a, q, mask);
    for (int i = 0; i < kN; ++i) {
      if (mask[i]) row[i] = q[i];
    }
    EXPECT_EQ(Read(UbReader::kMxu, a), row);
    EXPECT_EQ(Read(UbReader::kDma, a - 1), model_->Read(a - 1)) << "neighbour row changed";
  }
}

TEST_F(UbTest, RoundRobinGivesEveryPortHalfUnderFullLoad) {
  std::mt19937_64 rng(41);
  const int ops = 200;
  const auto t = RandomTraffic(ub_->depth(), ops, 16, rng);
  const auto st = Run(t, {});
  // Both ports of a pair always want the memory: on one bank they alternate, on different banks
  // both proceed; nobody waits twice in a row.
  for (int p = 0; p < 2; ++p) {
    EXPECT_LE(st.write[p].max_wait, 1u) << "writer " << p;
    EXPECT_LE(st.read[p].max_wait, 1u) << "reader " << p;
    EXPECT_LE(st.write[p].last_accept, uint64_t(2 * ops)) << "writer " << p;
    EXPECT_LE(st.read[p].last_accept, uint64_t(2 * ops)) << "reader " << p;
  }
  EXPECT_LE(st.cycles, uint64_t(2 * ops + 3));
}

TEST_F(UbTest, TwoReadersStreamingConsecutiveRowsBothGetOneRowPerCycle) {
  // A MATMUL and a WRITE_HOST at once: both read consecutive rows, fall into opposite banks
  // after at most one contested cycle, and then both read one row per cycle.
  UbTraffic t;
  const uint32_t rows = 200;
  for (uint32_t i = 0; i < rows; ++i) {
    t.reads[int(UbReader::kMxu)].push_back(i);
    t.reads[int(UbReader::kDma)].push_back(100 + i);
  }
  const auto st = Run(t, {});
  for (int p = 0; p < 2; ++p) {
    EXPECT_LE(st.read[p].wait_cycles, 1u) << "reader " << p;
    EXPECT_LE(st.read[p].last_accept - st.read[p].first_accept, uint64_t(rows)) << "reader " << p;
  }
  // Writers on rows of different parity never wait either.
  UbTraffic w;
  std::mt19937_64 rng(71);
  for (uint32_t i = 0; i < rows / 2; ++i) {
    w.writes[int(UbWriter::kDma)].push_back({2 * i, RandomRow(rng), {}});
    w.writes[int(UbWriter::kAct)].push_back({2 * i + 1, RandomRow(rng), {}});
  }
  const auto sw = Run(w, {});
  EXPECT_EQ(sw.write[0].wait_cycles + sw.write[1].wait_cycles, 0u);
  EXPECT_EQ(sw.cycles, uint64_t(rows / 2));
}

TEST_F(UbTest, AReaderThatStallsItsResponsesDoesNotStarveTheOther) {
  for (int slow = 0; slow < 2; ++slow) {
    std::mt19937_64 rng(51 + slow);
    UbTrafficOptions opts;
    opts.seed = 51 + slow;
    opts.rsp_ready[slow] = 0.2;
    const auto t = RandomTraffic(ub_->depth(), 200, 8, rng);
    const auto st = Run(t, opts);
    const int fast = 1 - slow;
    // The fast reader waits only in the cycles the slow one is served, which takes about one
    // row in five cycles; a slow reader that competed without room would halve the fast one.
    EXPECT_LE(st.read[fast].max_wait, 1u) << "slow reader " << slow;
    EXPECT_LT(st.read[fast].wait_cycles, 200u / 3) << "slow reader " << slow;
    EXPECT_EQ(st.read[slow].accepted, 200u) << "slow reader " << slow;
    EXPECT_LE(st.write[0].max_wait, 1u);
    EXPECT_LE(st.write[1].max_wait, 1u);
  }
}

TEST_F(UbTest, MxuAloneReadsOneRowPerCycle) {
  std::mt19937_64 rng(61);
  UbTraffic t = RandomTraffic(ub_->depth(), 256, 32, rng);
  t.reads[int(UbReader::kDma)].clear();
  const auto st = Run(t, {});
  const auto& mxu = st.read[int(UbReader::kMxu)];
  EXPECT_EQ(mxu.wait_cycles, 0u);
  EXPECT_EQ(mxu.last_accept - mxu.first_accept, 255u) << "one row per cycle";
  EXPECT_EQ(st.min_latency[int(UbReader::kMxu)], 1u);
}

TEST_F(UbTest, StalledResponsesHoldTwoRowsAndComeBackInOrder) {
  std::mt19937_64 rng(71);
  for (uint32_t a = 0; a < 6; ++a) Write(UbWriter::kAct, a, RandomRow(rng));
  // The MXU asks for rows 0..5 continuously but takes no response for 10 cycles.
  uint32_t next = 0;
  ub_->SetReadRspReady(UbReader::kMxu, false);
  for (int c = 0; c < 10; ++c) {
    ub_->SetReadReq(UbReader::kMxu, true, next);
    ub_->Eval();
    if (ub_->read_req_ready(UbReader::kMxu)) ++next;
    ub_->Tick();
  }
  EXPECT_EQ(next, 2u) << "requests accepted with no room for their responses";
  EXPECT_TRUE(ub_->busy());
  // Now take one response per cycle and keep requesting.
  std::vector<int8_t> got(kN);
  uint32_t taken = 0;
  for (int c = 0; c < 12 && taken < 6; ++c) {
    ub_->SetReadReq(UbReader::kMxu, next < 6, next < 6 ? next : 0);
    ub_->SetReadRspReady(UbReader::kMxu, true);
    ub_->Eval();
    if (ub_->read_rsp_valid(UbReader::kMxu)) {
      ub_->GetReadRsp(UbReader::kMxu, got.data());
      EXPECT_EQ(got, model_->Read(taken)) << "response " << taken;
      ++taken;
    }
    if (next < 6 && ub_->read_req_ready(UbReader::kMxu)) ++next;
    ub_->Tick();
  }
  EXPECT_EQ(taken, 6u);
  ub_->SetReadReq(UbReader::kMxu, false, 0);
  ub_->Eval();
  EXPECT_FALSE(ub_->busy());
}

TEST_F(UbTest, OutOfRangeAddressesWriteNothingAndReadZero) {
  const uint32_t depth = ub_->depth();
  const uint32_t addr_space = 1u << (32 - __builtin_clz(depth - 1));
  // The test models are built with depths that are not powers of two, so that some
  // addresses of the port's width are out of range.
  ASSERT_LT(depth, addr_space) << "build this model with a depth that is not a power of two";
  std::mt19937_64 rng(81);
  for (uint32_t a = 0; a < depth; ++a) model_->Write(a, RandomRow(rng).data(), nullptr);
  UbTraffic fill;
  for (uint32_t a = 0; a < depth; ++a) fill.writes[a % 2].push_back({a, model_->Read(a), {}});
  Run(fill);
  // Writes above the last row on both ports (including addresses that alias row 0 and the
  // last row modulo a power of two), then read everything back.
  UbTraffic bad;
  const uint32_t bad_addrs[] = {depth, depth + 1, depth + (addr_space - depth) / 2, addr_space - 1};
  for (uint32_t a : bad_addrs) {
    bad.writes[0].push_back({a, RandomRow(rng), {}});
    bad.writes[1].push_back({a, RandomRow(rng), {}});
  }
  // Out-of-range reads, each right after a read of a (non-zero) row, return zeros.
  for (uint32_t a : bad_addrs) {
    for (auto r : kReaders) bad.reads[int(r)].insert(bad.reads[int(r)].end(), {a % 8, a});
  }
  Run(bad);
  EXPECT_GT(ub_->assertion_failures(), 0u) << "out-of-range addresses raised no assertion";
  expected_assertions_ = ub_->assertion_failures();
  UbTraffic check;
  for (uint32_t a = 0; a < depth; ++a) check.reads[a % 2].push_back(a);
  Run(check);
}

TEST_F(UbTest, ResetDropsOwedResponsesAndKeepsTheRows) {
  std::mt19937_64 rng(91);
  const auto row = RandomRow(rng);
  Write(UbWriter::kAct, 3, row);
  ub_->SetReadReq(UbReader::kDma, true, 3);
  ub_->SetReadReq(UbReader::kMxu, true, 3);
  ub_->SetReadRspReady(UbReader::kDma, false);
  ub_->SetReadRspReady(UbReader::kMxu, false);
  for (int c = 0; c < 4; ++c) ub_->Tick();
  ub_->Eval();
  EXPECT_TRUE(ub_->busy());
  ub_->Reset();
  ub_->Eval();
  EXPECT_FALSE(ub_->busy());
  for (auto r : kReaders) EXPECT_FALSE(ub_->read_rsp_valid(r));
  for (auto w : kWriters) EXPECT_TRUE(ub_->write_ready(w));
  EXPECT_EQ(Read(UbReader::kMxu, 3), row);
  const auto t = RandomTraffic(ub_->depth(), 50, 4, rng);
  Run(t, {});
}

}  // namespace
}  // namespace tpu::tb
