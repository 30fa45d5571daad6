// Two chained dense layers (compiler::LowerDenseChain): the hidden activations never leave the UB,
// and the result equals golden::Dense applied twice, bit for bit.
#include <gtest/gtest.h>

#include <variant>

#include "golden/dense.h"
#include "tests/compiler/dense_testing.h"

namespace tpu::compiler {
namespace {

constexpr HostRegion kRegion{0x100000003, 1 << 24};  // odd base: unaligned host transfers

void CheckChain(const isa::DeviceLimits& limits, int64_t m, int64_t k, int64_t hidden, int64_t nout,
                std::mt19937_64& rng, const LoweringOptions& options = {}) {
  SCOPED_TRACE(LimitsText(limits) + " M=" + std::to_string(m) + " K=" + std::to_string(k) +
               " hidden=" + std::to_string(hidden) + " Nout=" + std::to_string(nout));
  const DenseLayer first = RandomDenseLayer(rng, k, hidden);
  DenseLayer second = RandomDenseLayer(rng, hidden, nout);
  if (Uniform(rng, 0, 1) == 0) second.input_zero_point = first.requant.out_zero_point;
  const golden::Tensor<int8_t> x = RandomInt8(rng, m, k);
  const DenseProgram program = LowerDenseChain(x, first, second, limits, kRegion, options);
  ExpectWellFormed(program.instrs, limits);
  const golden::Tensor<int8_t> h =
      golden::Dense(x, first.weights, first.bias, first.input_zero_point, first.requant);
  const golden::Tensor<int8_t> expected =
      golden::Dense(h, second.weights, second.bias, second.input_zero_point, second.requant);
  const golden::Tensor<int8_t> got = RunOnMachine(program);
  ASSERT_EQ(got.shape, expected.shape);
  for (std::size_t i = 0; i < got.data.size(); ++i) {
    ASSERT_EQ(got.data[i], expected.data[i]) << "y[" << i / nout << "][" << i % nout << "]";
  }
  // Only the weights, parameters and x are read from the host; one output.
  for (const isa::Instr& instr : program.instrs) {
    if (const auto* wh = std::get_if<isa::WriteHost>(&instr)) {
      EXPECT_GE(wh->host, program.output.address);
      EXPECT_LE(wh->host + wh->length, program.output.address + program.output.bytes());
    }
  }
}

TEST(DenseChain, RandomShapes) {
  std::mt19937_64 rng(TestSeed());
  const isa::DeviceLimits limits[] = {
      {8, 512, 64, 1 << 20, 32}, {16, 1024, 128, 1 << 22, 16}, isa::DeviceLimits{}};
  for (const isa::DeviceLimits& l : limits) {
    for (int i = 0; i < 8; ++i) {
      const int64_t max_out = std::min<int64_t>(100, l.param_sets * l.n / 2);
      const int64_t hidden = Uniform(rng, 1, max_out);
      // The hidden activations (ceil(hidden / N) slices of M rows) take at most half the UB.
      const int64_t max_m = std::min<int64_t>(60, l.ub_rows / 2 / ((hidden + l.n - 1) / l.n));
      CheckChain(l, Uniform(rng, 1, max_m), Uniform(rng, 1, 100), hidden, Uniform(rng, 1, max_out),
                 rng);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(DenseChain, LargerShapes) {
  std::mt19937_64 rng(TestSeed());
  CheckChain(isa::DeviceLimits{}, 300, 200, 70, 30, rng);
  LoweringOptions options;
  options.max_chunk_rows = 7;
  options.ub_begin = 10;
  options.dram_tile_base = 3;
  options.param_set_base = 1;
  CheckChain({8, 1024, 64, 1 << 20, 32}, 45, 90, 33, 17, rng, options);
}

TEST(DenseChain, HiddenLayerMustFitInTheUb) {
  std::mt19937_64 rng(4);
  const DenseLayer first = RandomDenseLayer(rng, 10, 40);
  const DenseLayer second = RandomDenseLayer(rng, 40, 5);
  // 5 output tiles x 60 rows = 300 rows > 256.
  try {
    LowerDenseChain(RandomInt8(rng, 60, 10), first, second, {8, 256, 64, 65536, 16}, kRegion);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("must stay in the UB"), std::string::npos) << e.what();
  }
  try {
    LowerDenseChain(RandomInt8(rng, 6, 10), first, RandomDenseLayer(rng, 41, 5),
                    isa::DeviceLimits{}, kRegion);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("differs"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tpu::compiler
