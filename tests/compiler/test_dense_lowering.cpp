// The dense lowering (compiler/dense_lowering.h) run on the reference machine equals
// golden::Dense bit for bit, for random shapes (M, K, Nout not multiples of N, several K and
// output tiles, M in several chunks, the input streamed when it does not fit in the UB) at
// N = 8 and 16 with small and default device limits; every program orders its hazards with
// tokens, finishes in every schedule tried and leaves all counters at 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <variant>

#include "golden/dense.h"
#include "tests/compiler/dense_testing.h"

namespace tpu::compiler {
namespace {

constexpr HostRegion kRegion{0x7f0000001000, 1 << 24};

isa::DeviceLimits SmallN8() { return {8, 256, 64, 65536, 16}; }
isa::DeviceLimits SmallN16() { return {16, 512, 128, 1 << 20, 8}; }
isa::DeviceLimits DefaultN8() { return {8, 4096, 1024, 1 << 26, 64}; }
isa::DeviceLimits DefaultN16() { return isa::DeviceLimits{}; }

void CheckDense(const isa::DeviceLimits& limits, int64_t m, int64_t k, int64_t nout,
                std::mt19937_64& rng, const LoweringOptions& options = {},
                int random_schedules = 2) {
  SCOPED_TRACE(LimitsText(limits) + " M=" + std::to_string(m) + " K=" + std::to_string(k) +
               " Nout=" + std::to_string(nout));
  const DenseLayer layer = RandomDenseLayer(rng, k, nout);
  const golden::Tensor<int8_t> x = RandomInt8(rng, m, k);
  const DenseProgram program = LowerDense(x, layer, limits, kRegion, options);
  ExpectWellFormed(program.instrs, limits, random_schedules);
  const golden::Tensor<int8_t> expected =
      golden::Dense(x, layer.weights, layer.bias, layer.input_zero_point, layer.requant);
  const golden::Tensor<int8_t> got = RunOnMachine(program);
  ASSERT_EQ(got.shape, expected.shape);
  for (std::size_t i = 0; i < got.data.size(); ++i) {
    ASSERT_EQ(got.data[i], expected.data[i])
        << "y[" << i / nout << "][" << i % nout << "], plan: " << program.plans[0].chunks
        << " chunks of " << program.plans[0].chunk_rows << " rows";
  }
}

void RandomShapes(const isa::DeviceLimits& limits, int count) {
  const uint64_t seed = TestSeed();
  std::mt19937_64 rng(seed);
  const int64_t max_nout = std::min<int64_t>(100, limits.param_sets * limits.n);
  for (int i = 0; i < count; ++i) {
    const int64_t m = Uniform(rng, 1, 100);
    const int64_t k = Uniform(rng, 1, 100);
    const int64_t nout = Uniform(rng, 1, max_nout);
    CheckDense(limits, m, k, nout, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(DenseLowering, RandomShapesSmallN8) { RandomShapes(SmallN8(), 40); }
TEST(DenseLowering, RandomShapesSmallN16) { RandomShapes(SmallN16(), 40); }
TEST(DenseLowering, RandomShapesDefaultN8) { RandomShapes(DefaultN8(), 25); }
TEST(DenseLowering, RandomShapesDefaultN16) { RandomShapes(DefaultN16(), 25); }

TEST(DenseLowering, LargeShapes) {
  std::mt19937_64 rng(TestSeed());
  CheckDense(DefaultN16(), 300, 200, 70, rng);
  CheckDense(DefaultN8(), 300, 200, 70, rng, {}, 1);
  CheckDense(SmallN16(), 300, 200, 70, rng, {}, 1);  // x streamed in chunks
  CheckDense(DefaultN16(), 1100, 40, 20, rng);       // M over two accumulator regions
  CheckDense(SmallN8(), 200, 130, 100, rng, {}, 0);  // many small chunks, 17 K tiles
}

// 64 KiB of weights or more upload per output tile, each READ_HOST just ahead of the READ_WEIGHTS
// that waits for it (t1): bit-exact, race-free in every schedule tried, one READ_HOST per output
// tile plus parameters and x; smaller layers upload all their weights at once.
TEST(DenseLowering, StreamsLargeWeightsPerOutputTile) {
  std::mt19937_64 rng(TestSeed());
  CheckDense(DefaultN16(), 40, 256, 256, rng);    // 16 x 16 tiles = 64 KiB, one chunk
  CheckDense(DefaultN16(), 600, 256, 300, rng);   // two chunks: the second reuses the DRAM tiles
  CheckDense(DefaultN16(), 40, 256, 250, rng, {}, 1);  // 16 x 16 tiles, last output tile partial
  auto read_hosts = [&](int64_t k, int64_t nout) {
    const DenseProgram p = LowerDense(RandomInt8(rng, 8, k), RandomDenseLayer(rng, k, nout),
                                      DefaultN16(), kRegion);
    EXPECT_EQ(p.plans[0].stream_weights, k * nout >= 64 * 1024 && nout > 16);
    return std::count_if(p.instrs.begin(), p.instrs.end(), [](const isa::Instr& i) {
      return std::holds_alternative<isa::ReadHost>(i);
    });
  };
  EXPECT_EQ(read_hosts(256, 256), 16 + 2);
  EXPECT_EQ(read_hosts(256, 240), 3);  // 60 KiB: one upload
}

TEST(DenseLowering, ChunkedWithinUbWindowAndOffsets) {
  std::mt19937_64 rng(TestSeed());
  LoweringOptions options;
  options.ub_begin = 100;
  options.ub_end = 180;
  options.dram_tile_base = 7;
  options.param_set_base = 3;
  options.max_chunk_rows = 5;
  options.host_align = 1;
  CheckDense(DefaultN16(), 23, 50, 33, rng, options);
  options.max_chunk_rows = 0;
  CheckDense(SmallN8(), 77, 30, 40, rng, options);
}

TEST(DenseLowering, PlansResidentAndStreamedInput) {
  std::mt19937_64 rng(1);
  // x of 20 x 40: 5 slices of 20 rows next to two output buffers fit in 256 UB rows.
  const DenseProgram resident =
      LowerDense(RandomInt8(rng, 20, 40), RandomDenseLayer(rng, 40, 10), SmallN8(), kRegion);
  EXPECT_EQ(resident.plans[0].source, InputSource::kHostResident);
  EXPECT_EQ(resident.plans[0].chunks, 1);
  // x of 90 x 100: 13 slices of 90 rows do not; chunks of 256 / (2 * 13 + 2) = 9 rows do.
  const DenseProgram streamed =
      LowerDense(RandomInt8(rng, 90, 100), RandomDenseLayer(rng, 100, 10), SmallN8(), kRegion);
  EXPECT_EQ(streamed.plans[0].source, InputSource::kHostStreamed);
  EXPECT_EQ(streamed.plans[0].chunks, 10);
  EXPECT_EQ(streamed.plans[0].chunk_rows, 9);
  // Chunks of at most one accumulator region, of equal size.
  const DenseProgram big =
      LowerDense(RandomInt8(rng, 70, 8), RandomDenseLayer(rng, 8, 8), SmallN8(), kRegion);
  EXPECT_EQ(big.plans[0].chunks, 3);
  EXPECT_EQ(big.plans[0].chunk_rows, 24);
}

// The docs/isa.md example shape lowers to the same instruction mix: 3 READ_HOSTs, 3
// READ_WEIGHTS of 2 tiles, 6 MATMULs, 3 ACTIVATEs, 3 WRITE_HOSTs, HALT.
TEST(DenseLowering, DocExampleShape) {
  std::mt19937_64 rng(2);
  const DenseProgram p =
      LowerDense(RandomInt8(rng, 64, 32), RandomDenseLayer(rng, 32, 48), DefaultN16(), kRegion);
  int counts[5] = {};
  for (const isa::Instr& instr : p.instrs) {
    if (std::holds_alternative<isa::ReadHost>(instr)) ++counts[0];
    if (const auto* rw = std::get_if<isa::ReadWeights>(&instr)) {
      ++counts[1];
      EXPECT_EQ(rw->tiles, 2u);
    }
    if (std::holds_alternative<isa::Matmul>(instr)) ++counts[2];
    if (std::holds_alternative<isa::Activate>(instr)) ++counts[3];
    if (std::holds_alternative<isa::WriteHost>(instr)) ++counts[4];
  }
  EXPECT_EQ(counts[0], 3);
  EXPECT_EQ(counts[1], 3);
  EXPECT_EQ(counts[2], 6);
  EXPECT_EQ(counts[3], 3);
  EXPECT_EQ(counts[4], 3);
  EXPECT_TRUE(std::holds_alternative<isa::Halt>(p.instrs.back()));
  EXPECT_EQ(p.instrs.size(), 19u);
}

TEST(DenseLowering, RejectsWhatCannotBeLowered) {
  std::mt19937_64 rng(3);
  const golden::Tensor<int8_t> x = RandomInt8(rng, 10, 20);
  const DenseLayer layer = RandomDenseLayer(rng, 20, 30);
  auto expect_error = [&](const golden::Tensor<int8_t>& input, const DenseLayer& l,
                          const isa::DeviceLimits& limits, const HostRegion& region,
                          const LoweringOptions& options, const std::string& needle) {
    try {
      LowerDense(input, l, limits, region, options);
      ADD_FAILURE() << "no exception, expected one containing '" << needle << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  // Too many output tiles for the parameter sets.
  expect_error(x, layer, {8, 256, 64, 65536, 3}, kRegion, {}, "parameter sets");
  // Weight tiles beyond the DRAM.
  expect_error(x, layer, {8, 256, 64, 64 * 7, 16}, kRegion, {}, "weight DRAM");
  // Not even one row per chunk fits in the UB window.
  LoweringOptions tiny;
  tiny.ub_end = 4;
  expect_error(x, layer, SmallN8(), kRegion, tiny, "UB rows");
  // Host region too small, or outside the host space.
  expect_error(x, layer, SmallN8(), {0x1000, 100}, {}, "too small");
  expect_error(x, layer, SmallN8(), {(uint64_t{1} << 48) - 10, 100}, {}, "48-bit");
  // Inconsistent inputs.
  expect_error(RandomInt8(rng, 10, 21), layer, SmallN8(), kRegion, {}, "input must be (M, K)");
  DenseLayer bad = layer;
  bad.bias.resize(3);
  expect_error(x, bad, SmallN8(), kRegion, {}, "bias");
  bad = layer;
  bad.requant.multipliers.assign(2, {1 << 30, -3});
  expect_error(x, bad, SmallN8(), kRegion, {}, "multipliers");
  bad = layer;
  bad.requant.multipliers = {{1 << 30, 31}};
  expect_error(x, bad, SmallN8(), kRegion, {}, "shift");
  bad = layer;
  bad.input_zero_point = 128;
  expect_error(x, bad, SmallN8(), kRegion, {}, "input zero point");
  bad = layer;
  bad.requant.act_min = 10;
  bad.requant.act_max = 5;
  expect_error(x, bad, SmallN8(), kRegion, {}, "clamp");
  LoweringOptions window;
  window.ub_begin = 300;
  expect_error(x, layer, SmallN8(), kRegion, window, "UB rows [300");
}

TEST(DenseLowering, ExtractReadsOutputSlices) {
  DenseOutput out{0x5000, 3, 5, 4};  // two slices of 3 rows of 4 bytes
  EXPECT_EQ(out.bytes(), 24u);
  const golden::Tensor<int8_t> y = ExtractDenseOutput(out, [](uint64_t address, uint64_t length) {
    EXPECT_EQ(address, 0x5000u);
    std::vector<uint8_t> bytes(length);
    for (uint64_t i = 0; i < length; ++i) bytes[i] = static_cast<uint8_t>(i);
    return bytes;
  });
  ASSERT_EQ(y.shape, (std::vector<int64_t>{3, 5}));
  // Row 1: columns 0..3 from slice 0 row 1 (bytes 4..7), column 4 from slice 1 row 1 (byte 16).
  EXPECT_EQ(y.At({1, 0}), 4);
  EXPECT_EQ(y.At({1, 3}), 7);
  EXPECT_EQ(y.At({1, 4}), 16);
  EXPECT_EQ(y.At({2, 4}), 20);
}

}  // namespace
}  // namespace tpu::compiler
