// Dense layers through the Verilated core (tpu_core) with C++ host-memory and weight-DRAM
// models, checked bit for bit against tpu::golden::Dense.
#include <gtest/gtest.h>

#include <random>

#include "core_configs.h"
#include "core_programs.h"

namespace tpu::tb {
namespace {

struct Shape {
  int64_t m, k, n_out;
};

void RunDense(CoreHarness& h, const Shape& s, uint64_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " shape " + std::to_string(s.m) + "x" +
               std::to_string(s.k) + "x" + std::to_string(s.n_out));
  std::mt19937_64 rng(seed);
  const DenseCase c = MakeDenseCase(h.config().limits, s.m, s.k, s.n_out, rng);
  LoadDenseCase(c, h);
  const CoreRunResult r = h.Run(EncodeProgram(c.program), 2'000'000);
  ASSERT_TRUE(r.finished && r.done && !r.error) << r.Describe();
  EXPECT_EQ(r.irq_pulses, 1u);
  EXPECT_EQ(r.instructions, c.program.size());
  const golden::Tensor<int8_t> y = ReadDenseResult(c, h);
  for (size_t i = 0; i < y.data.size(); ++i) {
    ASSERT_EQ(y.data[i], c.expected.data[i])
        << "element (" << i / s.n_out << ", " << i % s.n_out << ") " << r.Describe();
  }
}

class CoreDense : public ::testing::TestWithParam<int> {};

TEST_P(CoreDense, OneTile) {
  auto h = MakeCore(GetParam(), TestHarnessOptions("core_dense_one_tile"));
  const int64_t n = h->config().limits.n;
  RunDense(*h, {5, n, n}, 1);
}

TEST_P(CoreDense, ShapesNotMultiplesOfN) {
  auto h = MakeCore(GetParam());
  const int64_t n = h->config().limits.n;
  const Shape shapes[] = {{1, 1, 1}, {3, n + 3, 2 * n - 1}, {2 * n + 1, 3 * n - 2, n + 1},
                          {7, 5, 3 * n}};
  uint64_t seed = 10;
  for (const Shape& s : shapes) RunDense(*h, s, seed++);
}

TEST_P(CoreDense, JitteryMemories) {
  auto h = MakeCore(GetParam());
  h->SetTiming(JitteryTiming());
  const int64_t n = h->config().limits.n;
  RunDense(*h, {2 * n + 3, 2 * n + 1, n + 5}, 21);
}

INSTANTIATE_TEST_SUITE_P(Configs, CoreDense, ::testing::Values(0, 1),
                         [](const auto& info) { return "config" + std::to_string(info.param); });

}  // namespace
}  // namespace tpu::tb
