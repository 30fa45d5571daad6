// Whole programs on the Verilated core against the reference machine (host_driver/model) and
// the golden reference: random valid programs from the generator (testbench/core/program_gen)
// under random memory timing, and dense layers lowered by the runtime (host_driver/runtime),
// alone and chained through the UB. Seeds are printed; TPU_CORE_SEEDS sets how many random
// programs run per configuration (the long label runs many).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "compiler/dense_lowering.h"
#include "core/program_gen.h"
#include "core_configs.h"
#include "golden/dense.h"
#include "model/machine.h"

namespace tpu::tb {
namespace {

constexpr uint64_t kBudget = 5'000'000;

int SeedCount(int fallback) {
  const char* env = std::getenv("TPU_CORE_SEEDS");
  return env ? std::atoi(env) : fallback;
}

CoreTiming RandomTiming(std::mt19937_64& rng) {
  if (rng() % 3 == 0) return IdealTiming();
  std::uniform_real_distribution<double> prob(0.3, 1.0);
  CoreTiming t;
  t.host = PortTiming{prob(rng), 1, 1 + static_cast<int>(rng() % 40), prob(rng)};
  t.dram = PortTiming{prob(rng), 1, 1 + static_cast<int>(rng() % 40), prob(rng)};
  t.instr_prob = prob(rng);
  return t;
}

class CorePrograms : public ::testing::TestWithParam<int> {};

TEST_P(CorePrograms, RandomProgramsMatchTheReferenceMachine) {
  auto h = MakeCore(GetParam());
  const isa::DeviceLimits limits = h->config().limits;
  ProgramGenOptions options;
  options.ub_rows = std::min<int64_t>(options.ub_rows, limits.ub_rows);
  options.acc_rows = std::min<int64_t>(options.acc_rows, limits.acc_rows);
  options.param_sets = std::min<int64_t>(options.param_sets, limits.param_sets);
  const int seeds = SeedCount(12);
  for (int i = 0; i < seeds; ++i) {
    const uint64_t seed = 1000 * static_cast<uint64_t>(GetParam()) + i + 1;
    SCOPED_TRACE("program seed " + std::to_string(seed) + " (TPU_CORE_SEEDS=" +
                 std::to_string(seeds) + ")");
    const GeneratedProgram g = GenerateProgram(seed, limits, options);
    model::Machine machine(limits);
    for (const HostSegment& s : g.memory) {
      h->host().Write(s.address, s.bytes);
      machine.host().Write(s.address, s.bytes);
    }
    const model::RunResult expected = machine.Run(g.program);
    ASSERT_TRUE(expected.halted()) << model::ToString(expected);
    std::mt19937_64 rng(seed);
    h->SetTiming(RandomTiming(rng));
    const CoreRunResult r = h->Run(EncodeProgram(g.program), kBudget);
    ASSERT_TRUE(r.finished && r.done && !r.error) << r.Describe() << "\n" << Describe(g);
    for (const HostRange& range : g.compare) {
      const auto got = h->host().Read(range.address, range.length);
      const auto want = machine.host().Read(range.address, range.length);
      for (uint64_t b = 0; b < range.length; ++b) {
        ASSERT_EQ(got[b], want[b]) << "host byte 0x" << std::hex << range.address + b
                                   << std::dec << " " << r.Describe();
      }
    }
  }
}

// Loads the lowered program's images, runs it, returns the result read back.
golden::Tensor<int8_t> RunLowered(CoreHarness& h, const compiler::DenseProgram& p,
                                  CoreRunResult* result) {
  for (const compiler::HostImage& img : p.images) h.host().Write(img.address, img.bytes);
  *result = h.Run(p.instrs.words(), kBudget);
  return compiler::ExtractDenseOutput(
      p.output, [&](uint64_t a, uint64_t n) { return h.host().Read(a, n); });
}

compiler::DenseLayer RandomLayer(int64_t k, int64_t n_out, std::mt19937_64& rng) {
  compiler::DenseLayer layer;
  std::uniform_int_distribution<int> byte(-128, 127);
  layer.weights = golden::Tensor<int8_t>({k, n_out});
  for (auto& v : layer.weights.data) v = static_cast<int8_t>(byte(rng));
  layer.bias.resize(n_out);
  for (auto& v : layer.bias) v = std::uniform_int_distribution<int32_t>(-9000, 9000)(rng);
  layer.input_zero_point = std::uniform_int_distribution<int>(-12, 12)(rng);
  std::uniform_real_distribution<double> scale(0.3, 3.0);
  for (int64_t c = 0; c < n_out; ++c) {
    layer.requant.multipliers.push_back(golden::QuantizeMultiplier(scale(rng) / (64.0 * k)));
  }
  layer.requant.out_zero_point = std::uniform_int_distribution<int>(-10, 10)(rng);
  layer.requant.act_min = (rng() % 2) ? layer.requant.out_zero_point : -128;
  layer.requant.act_max = (rng() % 4) ? 127 : 100;
  return layer;
}

golden::Tensor<int8_t> RandomInput(int64_t m, int64_t k, std::mt19937_64& rng) {
  golden::Tensor<int8_t> x({m, k});
  std::uniform_int_distribution<int> byte(-128, 127);
  for (auto& v : x.data) v = static_cast<int8_t>(byte(rng));
  return x;
}

golden::Tensor<int8_t> Golden(const golden::Tensor<int8_t>& x, const compiler::DenseLayer& l) {
  return golden::Dense(x, l.weights, l.bias, l.input_zero_point, l.requant);
}

void ExpectSame(const golden::Tensor<int8_t>& got, const golden::Tensor<int8_t>& want,
                const CoreRunResult& r) {
  ASSERT_EQ(got.shape, want.shape);
  const int64_t cols = want.shape[1];
  for (size_t i = 0; i < want.data.size(); ++i) {
    ASSERT_EQ(static_cast<int>(got.data[i]), static_cast<int>(want.data[i]))
        << "first difference at (" << i / cols << ", " << i % cols << ") " << r.Describe();
  }
}

const compiler::HostRegion kRegion{0x100000000ull, 1ull << 28};

TEST_P(CorePrograms, LoweredDenseLayersOfRandomShapes) {
  auto h = MakeCore(GetParam());
  const isa::DeviceLimits limits = h->config().limits;
  const int64_t n = limits.n;
  // Shapes not multiples of N, K over several tiles, M beyond one accumulator region.
  const int64_t shapes[][3] = {{1, 1, 1},
                               {n - 1, n + 1, 2 * n + 3},
                               {3 * n + 5, 4 * n - 3, 2 * n + 1},
                               {limits.acc_rows / 2 + 7, 2 * n + 2, n + 1},
                               {50, 70, 33}};
  uint64_t seed = 500 + 10 * GetParam();
  for (const auto& s : shapes) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " shape " + std::to_string(s[0]) + "x" +
                 std::to_string(s[1]) + "x" + std::to_string(s[2]));
    std::mt19937_64 rng(seed++);
    const auto x = RandomInput(s[0], s[1], rng);
    const auto layer = RandomLayer(s[1], s[2], rng);
    const auto program = compiler::LowerDense(x, layer, limits, kRegion);
    h->SetTiming(RandomTiming(rng));
    CoreRunResult r;
    const auto y = RunLowered(*h, program, &r);
    ASSERT_TRUE(r.done && !r.error) << r.Describe();
    ExpectSame(y, Golden(x, layer), r);
  }
}

TEST_P(CorePrograms, TwoLayersChainedThroughTheUb) {
  auto h = MakeCore(GetParam());
  const isa::DeviceLimits limits = h->config().limits;
  const int64_t n = limits.n;
  std::mt19937_64 rng(700 + GetParam());
  const int64_t m = 2 * n + 3, k = 3 * n - 1, hidden = 2 * n + 5, n_out = n + 2;
  const auto x = RandomInput(m, k, rng);
  const auto first = RandomLayer(k, hidden, rng);
  const auto second = RandomLayer(hidden, n_out, rng);
  const auto program = compiler::LowerDenseChain(x, first, second, limits, kRegion);
  CoreRunResult r;
  const auto y = RunLowered(*h, program, &r);
  ASSERT_TRUE(r.done && !r.error) << r.Describe();
  ExpectSame(y, Golden(Golden(x, first), second), r);
}

INSTANTIATE_TEST_SUITE_P(Configs, CorePrograms, ::testing::Values(0, 1),
                         [](const auto& info) { return "config" + std::to_string(info.param); });

}  // namespace
}  // namespace tpu::tb
