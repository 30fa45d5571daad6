// Errors of the TPU core (docs/isa.md "Error codes", docs/controller.md section 3): every
// decode error at a random instruction index stops the queue with that code and index before
// the instruction touches anything; DEADLOCK, NO_TILE, DMA_ERROR and TOKEN_OVERFLOW at run
// time; and after each, reset (or, in half of the cases, a new start alone) brings the core
// back so that a dense layer runs bit-exact.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core_configs.h"
#include "core_programs.h"

namespace tpu::tb {
namespace {

using isa::Error;

constexpr uint64_t kSentinelHost = 0x900000;  // a WRITE_HOST after the error would land here
constexpr uint64_t kBudget = 200'000;

// A bad instruction for each decode error, for the device `l`.
isa::Words BadInstruction(Error e, const isa::DeviceLimits& l) {
  using namespace isa;
  const uint32_t ub_rows = static_cast<uint32_t>(l.ub_rows);
  switch (e) {
    case Error::kIllegalOpcode: return Words{0x55, 0, 0, 0};
    case Error::kReservedNonzero: {
      Words w = Encode(Nop{});
      w[3] |= 1u << 7;
      return w;
    }
    case Error::kLengthZero: return Encode(ReadHost{Target::kUb, 0x1000, 0, 0, 0, 0});
    case Error::kUbRange: {
      Matmul m;
      m.ub = ub_rows - 1;
      m.rows = 2;
      m.new_tile = true;
      return Encode(m);
    }
    case Error::kAccRange: {
      Matmul m;
      m.acc = static_cast<uint32_t>(l.acc_rows - 1);
      m.rows = 2;
      m.new_tile = true;
      return Encode(m);
    }
    case Error::kDramRange:
      return Encode(ReadWeights{static_cast<uint32_t>(l.dram_bytes / (l.n * l.n)), 1, 0, 0});
    case Error::kHostRange:
      return Encode(ReadHost{Target::kUb, (1ull << 48) - 1, 0, 2, 0, 0});
    case Error::kParamRange:  // one byte past the parameter memory
      return Encode(ReadHost{Target::kParam, 0x1000,
                             static_cast<uint32_t>(l.param_sets * 9 * l.n - 1), 2, 0, 0});
    case Error::kLutRange: return Encode(ReadHost{Target::kLut, 0x1000, 255, 2, 0, 0});
    case Error::kPoolConfig: {
      Activate a;
      a.rows = 1;
      Words w = Encode(a);
      const InstrInfo& info = InfoOf(Opcode::kActivate);
      for (int i = 0; i < info.num_fields; ++i) {  // pool = 3, an unlisted encoding
        if (std::string(info.fields[i].name) == "pool") SetBits(&w, info.fields[i].lsb, 2, 3);
      }
      return w;
    }
    case Error::kClampOrder: {
      Activate a;
      a.rows = 1;
      a.clamp_min = 5;
      a.clamp_max = 4;
      return Encode(a);
    }
    default: throw std::invalid_argument("not a decode error");
  }
}

class CoreErrors : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { h_ = MakeCore(GetParam()); }

  // A dense layer must run bit-exact after whatever happened before.
  void ExpectDenseRuns(uint64_t seed) {
    SCOPED_TRACE("dense after the error, seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const int64_t n = h_->config().limits.n;
    const DenseCase c = MakeDenseCase(h_->config().limits, n + 3, 2 * n - 1, n + 2, rng);
    LoadDenseCase(c, *h_);
    const CoreRunResult r = h_->Run(EncodeProgram(c.program), kBudget);
    ASSERT_TRUE(r.done && !r.error) << r.Describe();
    EXPECT_EQ(ReadDenseResult(c, *h_).data, c.expected.data);
  }

  void ExpectError(const CoreRunResult& r, Error code, uint32_t index) {
    EXPECT_TRUE(r.finished) << r.Describe();
    EXPECT_TRUE(r.error) << r.Describe();
    EXPECT_FALSE(r.done) << r.Describe();
    EXPECT_EQ(r.error_code, static_cast<uint8_t>(code)) << r.Describe();
    EXPECT_EQ(r.error_index, index) << r.Describe();
    EXPECT_EQ(r.irq_pulses, 1u) << r.Describe();
  }

  std::unique_ptr<CoreHarness> h_;
};

TEST_P(CoreErrors, EveryDecodeErrorAtARandomIndex) {
  const isa::DeviceLimits& l = h_->config().limits;
  const uint64_t seed = 0xdec0de + GetParam();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Error errors[] = {Error::kIllegalOpcode, Error::kReservedNonzero, Error::kLengthZero,
                          Error::kUbRange,       Error::kAccRange,        Error::kDramRange,
                          Error::kHostRange,     Error::kParamRange,      Error::kLutRange,
                          Error::kPoolConfig,    Error::kClampOrder};
  int round = 0;
  for (Error e : errors) {
    SCOPED_TRACE("error " + isa::ErrorName(e));
    const isa::Words bad = BadInstruction(e, l);
    ASSERT_EQ(isa::Check(bad, l), e) << "the test's bad instruction raises another error";
    const uint32_t index = std::uniform_int_distribution<uint32_t>(0, 20)(rng);
    std::vector<isa::Words> program;
    for (uint32_t i = 0; i < index; ++i) {
      program.push_back(isa::Encode(i % 3 == 0 ? isa::Instr{isa::Sync{0x0f, 0, 0}}
                                                : isa::Instr{isa::Nop{}}));
    }
    program.push_back(bad);
    // Never reached: it would overwrite the sentinel.
    program.push_back(isa::Encode(isa::WriteHost{0, kSentinelHost, 64, 0, 0}));
    program.push_back(isa::Encode(isa::Halt{}));
    h_->host().Write(kSentinelHost, std::vector<uint8_t>(64, 0x5a));
    ExpectError(h_->Run(program, kBudget), e, index);
    EXPECT_EQ(h_->host().Read(kSentinelHost, 64), std::vector<uint8_t>(64, 0x5a));
    // Recover alternately by reset and by a new start alone.
    if (round++ % 2 == 0) h_->Reset();
    ExpectDenseRuns(seed + round);
  }
}

TEST_P(CoreErrors, DeadlockOnATokenNobodySignals) {
  isa::Matmul m;
  m.rows = 4;
  m.new_tile = true;
  m.wait = isa::kTokensT7;
  const std::vector<isa::Instr> program = {isa::Nop{}, m, isa::Halt{}};
  ExpectError(h_->Run(EncodeProgram(program), kBudget), Error::kDeadlock, 2);
  h_->Reset();
  ExpectDenseRuns(31);
}

TEST_P(CoreErrors, DeadlockInSync) {
  const std::vector<isa::Instr> program = {isa::Sync{0, isa::kTokensT3, 0}, isa::Halt{}};
  ExpectError(h_->Run(EncodeProgram(program), kBudget), Error::kDeadlock, 0);
  ExpectDenseRuns(32);
}

TEST_P(CoreErrors, DeadlockOnAFullWeightFifo) {
  // Eight tiles but the FIFO holds four (and the MXU one more, loaded ahead of its first
  // MATMUL) and no MATMUL takes any: HALT can never complete.
  const std::vector<isa::Instr> program = {isa::ReadWeights{0, 8, 0, 0}, isa::Halt{}};
  ExpectError(h_->Run(EncodeProgram(program), kBudget), Error::kDeadlock, 1);
  ExpectDenseRuns(33);
}

TEST_P(CoreErrors, DeadlockOnAMissingTile) {
  // The second MATMUL asks for a tile that no READ_WEIGHTS pushes.
  isa::Matmul m;
  m.rows = 3;
  m.new_tile = true;
  const std::vector<isa::Instr> program = {isa::ReadWeights{0, 1, 0, 0}, m, m, isa::Halt{}};
  ExpectError(h_->Run(EncodeProgram(program), kBudget), Error::kDeadlock, 3);
  ExpectDenseRuns(34);
}

TEST_P(CoreErrors, NoTile) {
  isa::Matmul m;
  m.rows = 2;
  m.new_tile = false;
  const std::vector<isa::Instr> program = {isa::Nop{}, isa::Nop{}, m, isa::Halt{}};
  ExpectError(h_->Run(EncodeProgram(program), kBudget), Error::kNoTile, 2);
  h_->Reset();
  ExpectDenseRuns(35);
}

TEST_P(CoreErrors, DmaErrorStopsTheTransfer) {
  const int64_t n = h_->config().limits.n;
  const uint64_t host = 0x40000;
  std::vector<uint8_t> data(16 * n);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 + 1);
  h_->host().Write(host, data);
  h_->host().AddFault(host + 5 * n, 1);
  // The failing READ_HOST signals t0; the WRITE_HOST that waits for it never runs.
  const std::vector<isa::Instr> program = {
      isa::ReadHost{isa::Target::kUb, host, 0, static_cast<uint32_t>(data.size()), 0,
                    isa::kTokensT0},
      isa::WriteHost{0, kSentinelHost, 64, isa::kTokensT0, 0}, isa::Halt{}};
  h_->host().Write(kSentinelHost, std::vector<uint8_t>(64, 0x5a));
  ExpectError(h_->Run(EncodeProgram(program), kBudget), Error::kDmaError, 0);
  EXPECT_EQ(h_->host().Read(kSentinelHost, 64), std::vector<uint8_t>(64, 0x5a));
  EXPECT_EQ(h_->host_port().outstanding(), 0u) << "responses left unanswered";
  h_->host().ClearFaults();
  ExpectDenseRuns(36);
}

TEST_P(CoreErrors, TokenOverflow) {
  std::vector<isa::Instr> program(256, isa::Sync{0, 0, isa::kTokensT5});
  program.push_back(isa::Halt{});
  ExpectError(h_->Run(EncodeProgram(program), kBudget), Error::kTokenOverflow, 255);
  h_->Reset();
  ExpectDenseRuns(37);
}

TEST_P(CoreErrors, ResetInTheMiddleOfAProgram) {
  std::mt19937_64 rng(38);
  const int64_t n = h_->config().limits.n;
  const DenseCase c = MakeDenseCase(h_->config().limits, 3 * n, 3 * n, 3 * n, rng);
  LoadDenseCase(c, *h_);
  h_->SetTiming(JitteryTiming());
  for (uint64_t cut : {5u, 40u, 150u, 400u}) {
    const CoreRunResult r = h_->Run(EncodeProgram(c.program), cut);
    EXPECT_FALSE(r.finished) << "cut at " << cut << ": " << r.Describe();
    h_->Reset();
  }
  h_->SetTiming(IdealTiming());
  ExpectDenseRuns(39);
}

TEST_P(CoreErrors, StartIsIgnoredWhileRunning) {
  // A second program's start during a run must not disturb it: Run() pulses start once and
  // the core is stopped after HALT; a start while running is covered by the assertion-free
  // completion of consecutive programs.
  ExpectDenseRuns(40);
  ExpectDenseRuns(41);
}

INSTANTIATE_TEST_SUITE_P(Configs, CoreErrors, ::testing::Values(0, 1),
                         [](const auto& info) { return "config" + std::to_string(info.param); });

}  // namespace
}  // namespace tpu::tb
