// The reference machine's compute instructions on assembled programs, against the golden
// reference: READ_WEIGHTS + MATMUL (overwrite, accumulate, tile switching, int32 wrapping) vs
// golden::Gemm; ACTIVATE vs golden::RequantizeMatrix, ApplyLut, MaxPool2d and AvgPool2d for
// random parameters, LUTs and pooling configurations (VALID and SAME, several images); MATMUL
// blocks kept pending against the same program an instruction at a time; the vectorized
// requantization (RowRequant) against golden::Requantize on extreme values.
#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <random>
#include <vector>

#include "golden/gemm.h"
#include "golden/int32_wrap.h"
#include "golden/pool.h"
#include "golden/requant.h"
#include "model/activate.h"
#include "tests/model/model_testing.h"

namespace tpu::model {
namespace {

golden::Tensor<int8_t> UbTensor(const Machine& machine, int64_t row, int64_t rows) {
  const int64_t n = machine.n();
  golden::Tensor<int8_t> t({rows, n});
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      t.data[static_cast<std::size_t>(r * n + c)] = static_cast<int8_t>(machine.ub_row(row + r)[c]);
    }
  }
  return t;
}

golden::Tensor<int8_t> TileTensor(const std::vector<uint8_t>& bytes, int64_t tile, int64_t n) {
  golden::Tensor<int8_t> t({n, n});
  for (int64_t i = 0; i < n * n; ++i) {
    t.data[static_cast<std::size_t>(i)] =
        static_cast<int8_t>(bytes[static_cast<std::size_t>(tile * n * n + i)]);
  }
  return t;
}

class MachineCompute : public ::testing::TestWithParam<int64_t> {
 protected:
  isa::DeviceLimits Limits() const { return {GetParam(), 4096, 1024, 1 << 20, 8}; }
};

TEST_P(MachineCompute, MatmulMatchesGemm) {
  std::mt19937_64 rng(TestSeed());
  Machine machine(Limits());
  const int64_t n = machine.n();
  const int64_t rows = Uniform(rng, 1, 70);
  const std::vector<uint8_t> tiles = RandomBytes(rng, static_cast<std::size_t>(3 * n * n));
  const std::vector<uint8_t> x = RandomBytes(rng, static_cast<std::size_t>(2 * rows * n));
  machine.host().Write(0x10000, tiles);
  machine.host().Write(0x20001, x);
  // Rows that the third MATMUL accumulates onto, close to the int32 limits so that sums wrap.
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      machine.acc_row(500 + r)[c] = (r + c) % 2 == 0 ? std::numeric_limits<int32_t>::max() - 5
                                                     : std::numeric_limits<int32_t>::min() + 5;
    }
  }
  const std::vector<int32_t> preload(machine.acc_row(500), machine.acc_row(500) + rows * n);
  const std::string r = std::to_string(rows);
  const RunResult result =
      RunAsm(machine, "READ_HOST target=dram host=0x10000 dest=" + std::to_string(n * n) +
                          " length=" + std::to_string(3 * n * n) +
                          " signal=t0\n"
                          "READ_HOST target=ub host=0x20001 dest=10 length=" +
                          std::to_string(2 * rows * n) +
                          " signal=t1\n"
                          "READ_WEIGHTS dram_tile=1 tiles=2 wait=t0\n"
                          "READ_WEIGHTS dram_tile=3 tiles=1\n"
                          "MATMUL ub=10 acc=0 rows=" +
                          r +
                          " acc_mode=overwrite new_tile=1 wait=t1\n"
                          "MATMUL ub=" +
                          std::to_string(10 + rows) + " acc=0 rows=" + r +
                          " acc_mode=accumulate new_tile=1\n"
                          "MATMUL ub=10 acc=500 rows=" +
                          r +
                          " acc_mode=accumulate new_tile=0\n"
                          "MATMUL ub=10 acc=300 rows=" +
                          r +
                          " acc_mode=overwrite new_tile=1\n"
                          "HALT\n");
  ASSERT_TRUE(result.halted()) << ToString(result);
  EXPECT_EQ(result.fifo_tiles, 0);
  const golden::Tensor<int8_t> x0 = UbTensor(machine, 10, rows);
  const golden::Tensor<int8_t> x1 = UbTensor(machine, 10 + rows, rows);
  const golden::Tensor<int32_t> p00 = golden::Gemm(x0, TileTensor(tiles, 0, n));
  const golden::Tensor<int32_t> p11 = golden::Gemm(x1, TileTensor(tiles, 1, n));
  const golden::Tensor<int32_t> p01 = golden::Gemm(x0, TileTensor(tiles, 1, n));
  const golden::Tensor<int32_t> p02 = golden::Gemm(x0, TileTensor(tiles, 2, n));
  for (int64_t i = 0; i < rows * n; ++i) {
    const auto s = static_cast<std::size_t>(i);
    ASSERT_EQ(machine.acc_row(0)[i], golden::WrapAdd(p00.data[s], p11.data[s])) << i;
    ASSERT_EQ(machine.acc_row(500)[i], golden::WrapAdd(preload[s], p01.data[s])) << i;
    ASSERT_EQ(machine.acc_row(300)[i], p02.data[s]) << i;
  }
}

// The machine packs each weight-DRAM tile once and shares it between READ_WEIGHTS pushes; a
// tile already in the FIFO keeps the bytes it was read with when the DRAM is written after it
// (by READ_HOST, or by the host between runs), and a tile read after a write that overlaps it,
// even by one byte, has the new ones.
TEST_P(MachineCompute, WeightTilesFollowTheDramAcrossRewrites) {
  std::mt19937_64 rng(TestSeed() + 1);
  Machine machine(Limits());
  const int64_t n = machine.n();
  const int64_t rows = Uniform(rng, 1, 40);
  const auto tile_size = static_cast<std::size_t>(n * n);
  const std::vector<uint8_t> old_tile = RandomBytes(rng, tile_size);
  const std::vector<uint8_t> new_tile = RandomBytes(rng, tile_size);
  const std::vector<uint8_t> x = RandomBytes(rng, static_cast<std::size_t>(rows * n));
  machine.host().Write(0x10000, old_tile);
  machine.host().Write(0x18000, new_tile);
  machine.host().Write(0x20000, x);
  const std::string r = std::to_string(rows), t = std::to_string(tile_size);
  auto matmul = [&](int64_t acc) {
    return "MATMUL ub=0 acc=" + std::to_string(acc) + " rows=" + r +
           " acc_mode=overwrite new_tile=1\n";
  };
  const RunResult result = RunAsm(
      machine, "READ_HOST target=dram host=0x10000 dest=" + t + " length=" + t +
                   " signal=t0\n"
                   "READ_HOST target=ub host=0x20000 dest=0 length=" +
                   std::to_string(rows * n) +
                   " signal=t1\n"
                   "READ_WEIGHTS dram_tile=1 tiles=1 wait=t0\n"
                   "READ_WEIGHTS dram_tile=1 tiles=1 signal=t2\n"
                   "READ_HOST target=dram host=0x18000 dest=" + t + " length=" + t +
                   " wait=t2 signal=t0\n"
                   "READ_WEIGHTS dram_tile=1 tiles=1 wait=t0\n" +
                   "SYNC wait=t1\n" + matmul(0) + matmul(100) + matmul(200) + "HALT\n");
  ASSERT_TRUE(result.halted()) << ToString(result);
  const golden::Tensor<int8_t> x0 = UbTensor(machine, 0, rows);
  const golden::Tensor<int32_t> with_old = golden::Gemm(x0, TileTensor(old_tile, 0, n));
  const golden::Tensor<int32_t> with_new = golden::Gemm(x0, TileTensor(new_tile, 0, n));
  for (int64_t i = 0; i < rows * n; ++i) {
    const auto s = static_cast<std::size_t>(i);
    ASSERT_EQ(machine.acc_row(0)[i], with_old.data[s]) << "first push, element " << i;
    ASSERT_EQ(machine.acc_row(100)[i], with_old.data[s]) << "second push, element " << i;
    ASSERT_EQ(machine.acc_row(200)[i], with_new.data[s]) << "after the write, element " << i;
  }
  // The host writes the DRAM directly between runs: the next run reads what it wrote.
  machine.dram().Write(static_cast<uint64_t>(n * n), old_tile);
  const RunResult again =
      RunAsm(machine, "READ_WEIGHTS dram_tile=1 tiles=1\n" + matmul(300) + "HALT\n");
  ASSERT_TRUE(again.halted()) << ToString(again);
  for (int64_t i = 0; i < rows * n; ++i) {
    ASSERT_EQ(machine.acc_row(300)[i], with_old.data[static_cast<std::size_t>(i)])
        << "next run, element " << i;
  }
  // A READ_HOST of two bytes across the boundary of tiles 1 and 2: tile 1 (packed above) is
  // read again with its new last byte.
  std::vector<uint8_t> edited = old_tile;
  edited.back() = static_cast<uint8_t>(edited.back() ^ 0x5a);
  const std::vector<uint8_t> two = {edited.back(), 0x33};
  machine.host().Write(0x1c000, two);
  const RunResult edit = RunAsm(
      machine, "READ_WEIGHTS dram_tile=1 tiles=1 signal=t2\n"
               "READ_HOST target=dram host=0x1c000 dest=" + std::to_string(2 * n * n - 1) +
                   " length=2 wait=t2 signal=t0\n"
                   "READ_WEIGHTS dram_tile=1 tiles=1 wait=t0\n" +
                   matmul(400) + matmul(500) + "HALT\n");
  ASSERT_TRUE(edit.halted()) << ToString(edit);
  const golden::Tensor<int32_t> with_edited = golden::Gemm(x0, TileTensor(edited, 0, n));
  for (int64_t i = 0; i < rows * n; ++i) {
    const auto s = static_cast<std::size_t>(i);
    ASSERT_EQ(machine.acc_row(400)[i], with_old.data[s]) << "before the edit, element " << i;
    ASSERT_EQ(machine.acc_row(500)[i], with_edited.data[s]) << "after the edit, element " << i;
  }
}

// Random parameters: per-channel bias, multiplier and shift over the whole supported range.
ParamSet RandomParams(std::mt19937_64& rng, int64_t n) {
  ParamSet set;
  for (int64_t c = 0; c < n; ++c) {
    set.bias.push_back(static_cast<int32_t>(Uniform(rng, INT32_MIN, INT32_MAX)));
    set.multiplier.push_back(Uniform(rng, 0, 3) == 0
                                 ? static_cast<int32_t>(Uniform(rng, INT32_MIN, INT32_MAX))
                                 : static_cast<int32_t>(Uniform(rng, 1 << 30, INT32_MAX)));
    set.shift.push_back(static_cast<int8_t>(Uniform(rng, 0, 1) == 0 ? Uniform(rng, -31, 30)
                                                                    : Uniform(rng, -24, -10)));
  }
  return set;
}

struct ActivateCase {
  int64_t rows = 0;
  int32_t zp = 0, lo = -128, hi = 127;
  bool lut = false;
  std::string pool = "none";
  int64_t win_h = 0, win_w = 0, stride_h = 0, stride_w = 0, image_h = 0, image_w = 0;
  bool same = false;
};

std::string ActivateText(const ActivateCase& c, int64_t acc, int64_t ub, int64_t set) {
  std::string text = "ACTIVATE acc=" + std::to_string(acc) + " ub=" + std::to_string(ub) +
                     " rows=" + std::to_string(c.rows) + " param_set=" + std::to_string(set) +
                     " zero_point=" + std::to_string(c.zp) + " clamp_min=" + std::to_string(c.lo) +
                     " clamp_max=" + std::to_string(c.hi) + " lut=" + (c.lut ? "1" : "0") +
                     " wait=t0,t1";
  if (c.pool != "none") {
    text += " pool=" + c.pool + " win_h=" + std::to_string(c.win_h) +
            " win_w=" + std::to_string(c.win_w) + " stride_h=" + std::to_string(c.stride_h) +
            " stride_w=" + std::to_string(c.stride_w) + " image_h=" + std::to_string(c.image_h) +
            " image_w=" + std::to_string(c.image_w) + " padding=" + (c.same ? "same" : "valid");
  }
  return text + "\n";
}

// Loads the parameters and the LUT through READ_HOST, fills the accumulators directly, runs one
// ACTIVATE and compares the UB rows with the golden reference.
void CheckActivate(Machine& machine, const ActivateCase& c, std::mt19937_64& rng) {
  const int64_t n = machine.n();
  const ParamSet params = RandomParams(rng, n);
  const int64_t set = Uniform(rng, 0, machine.limits().param_sets - 1);
  const std::vector<uint8_t> param_bytes = EncodeParamSet(params);
  machine.host().Write(0x40003, param_bytes);
  const std::vector<uint8_t> lut_bytes = RandomBytes(rng, 256);
  machine.host().Write(0x50005, lut_bytes);
  golden::Tensor<int32_t> acc({c.rows, n});
  for (int32_t& v : acc.data) {
    v = Uniform(rng, 0, 9) == 0 ? (Uniform(rng, 0, 1) == 0 ? INT32_MIN : INT32_MAX)
                                : static_cast<int32_t>(Uniform(rng, INT32_MIN, INT32_MAX));
  }
  const int64_t acc_row = Uniform(rng, 0, machine.limits().acc_rows - c.rows);
  std::copy(acc.data.begin(), acc.data.end(), machine.acc_row(acc_row));
  const int64_t ub = Uniform(rng, 0, 100);
  const std::string program =
      "READ_HOST target=param host=0x40003 dest=" + std::to_string(set * 9 * n) +
      " length=" + std::to_string(9 * n) +
      " signal=t0\n"
      "READ_HOST target=lut host=0x50005 dest=0 length=256 signal=t1\n" +
      ActivateText(c, acc_row, ub, set) + "HALT\n";
  const RunResult result = RunAsm(machine, program);
  ASSERT_TRUE(result.halted()) << ToString(result) << "\n" << program;

  golden::RequantParams rq;
  for (int64_t ch = 0; ch < n; ++ch) {
    rq.multipliers.push_back({params.multiplier[static_cast<std::size_t>(ch)],
                              params.shift[static_cast<std::size_t>(ch)]});
  }
  rq.out_zero_point = c.zp;
  rq.act_min = c.lo;
  rq.act_max = c.hi;
  golden::Tensor<int8_t> y = golden::RequantizeMatrix(acc, params.bias, rq);
  if (c.lut) {
    golden::Lut lut;
    for (int i = 0; i < 256; ++i)
      lut[static_cast<std::size_t>(i)] =
          static_cast<int8_t>(lut_bytes[static_cast<std::size_t>(i)]);
    y = golden::ApplyLut(y, lut);
  }
  if (c.pool != "none") {
    golden::Pool2dParams pool;
    pool.window_h = c.win_h;
    pool.window_w = c.win_w;
    pool.stride_h = c.stride_h;
    pool.stride_w = c.stride_w;
    pool.padding = c.same ? golden::Padding::kSame : golden::Padding::kValid;
    pool.act_min = c.lo;  // the pooled value is clamped again (matters after a LUT)
    pool.act_max = c.hi;
    const golden::Tensor<int8_t> images({c.rows / (c.image_h * c.image_w), c.image_h, c.image_w, n},
                                        y.data);
    y = c.pool == "max" ? golden::MaxPool2d(images, pool) : golden::AvgPool2d(images, pool);
  }
  const int64_t out_rows = static_cast<int64_t>(y.data.size()) / n;
  const golden::Tensor<int8_t> got = UbTensor(machine, ub, out_rows);
  for (std::size_t i = 0; i < got.data.size(); ++i) {
    ASSERT_EQ(got.data[i], y.data[i]) << "output row " << i / n << " channel " << i % n << "\n"
                                      << program;
  }
}

TEST_P(MachineCompute, ActivateMatchesRequantizeAndLut) {
  std::mt19937_64 rng(TestSeed());
  Machine machine(Limits());
  for (int trial = 0; trial < 30; ++trial) {
    ActivateCase c;
    c.rows = Uniform(rng, 1, 40);
    c.zp = static_cast<int32_t>(Uniform(rng, -128, 127));
    c.lo = static_cast<int32_t>(Uniform(rng, -128, 127));
    c.hi = static_cast<int32_t>(Uniform(rng, c.lo, 127));
    c.lut = Uniform(rng, 0, 1) == 1;
    CheckActivate(machine, c, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST_P(MachineCompute, ActivatePoolingMatchesGoldenPooling) {
  std::mt19937_64 rng(TestSeed());
  Machine machine(Limits());
  for (int trial = 0; trial < 60; ++trial) {
    ActivateCase c;
    c.zp = static_cast<int32_t>(Uniform(rng, -20, 20));
    c.lo = static_cast<int32_t>(Uniform(rng, -128, 0));
    c.hi = static_cast<int32_t>(Uniform(rng, 0, 127));
    c.lut = Uniform(rng, 0, 3) == 0;
    c.pool = Uniform(rng, 0, 1) == 0 ? "max" : "avg";
    c.same = Uniform(rng, 0, 1) == 1;
    c.image_h = Uniform(rng, 1, 12);
    c.image_w = Uniform(rng, 1, 12);
    const int64_t max_h = c.same ? 15 : std::min<int64_t>(15, c.image_h);
    const int64_t max_w = c.same ? 15 : std::min<int64_t>(15, c.image_w);
    c.win_h = Uniform(rng, 1, Uniform(rng, 0, 3) == 0 ? max_h : std::min<int64_t>(max_h, 4));
    c.win_w = Uniform(rng, 1, Uniform(rng, 0, 3) == 0 ? max_w : std::min<int64_t>(max_w, 4));
    c.stride_h = Uniform(rng, 1, 3);
    c.stride_w = Uniform(rng, 1, 3);
    c.rows = c.image_h * c.image_w * Uniform(rng, 1, 3);
    CheckActivate(machine, c, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST_P(MachineCompute, ActivatePoolingExtremes) {
  // A window larger than the image with SAME padding, a 1x1 window with the largest strides, a
  // 255-pixel-wide row, and the largest window.
  std::mt19937_64 rng(TestSeed());
  Machine machine(Limits());
  ActivateCase c;
  c.pool = "avg";
  c.same = true;
  c.image_h = 3;
  c.image_w = 2;
  c.win_h = 15;
  c.win_w = 15;
  c.stride_h = 3;  // the largest pooling stride (2 bits since ISA version 2)
  c.stride_w = 1;
  c.rows = 12;
  CheckActivate(machine, c, rng);
  c.pool = "max";
  c.same = false;
  c.image_h = 9;
  c.image_w = 10;
  c.win_h = 1;
  c.win_w = 1;
  c.stride_h = 3;
  c.stride_w = 3;
  c.rows = 90;
  CheckActivate(machine, c, rng);
  c.image_h = 1;
  c.image_w = 255;
  c.win_h = 1;
  c.win_w = 15;
  c.stride_w = 3;
  c.rows = 255;
  CheckActivate(machine, c, rng);
  c.pool = "avg";
  c.image_h = 16;
  c.image_w = 15;
  c.win_h = 15;
  c.win_w = 15;
  c.stride_h = 1;
  c.stride_w = 1;
  c.rows = 240;
  CheckActivate(machine, c, rng);
}

INSTANTIATE_TEST_SUITE_P(N, MachineCompute, ::testing::Values(8, 16),
                         [](const auto& info) { return "N" + std::to_string(info.param); });

// MATMUL blocks stay pending until an instruction depends on them (Machine::Flush). Each
// dependency in turn, in a program whose memories differ if the machine missed it: a
// READ_HOST overwriting UB rows a pending block reads, an ACTIVATE reading a pending block's
// accumulator rows, an ACTIVATE overwriting UB rows a pending block reads, a READ_HOST
// overwriting a tap of a pending window; and blocks onto overlapping accumulator
// rows, which run in program order. The whole program in one Run against the same program an
// instruction per Resume (each Resume ends with every pending block executed).
TEST_P(MachineCompute, PendingMatmulsKeepProgramOrder) {
  std::mt19937_64 rng(TestSeed() + 2);
  const int64_t n = GetParam();
  const int64_t rows = Uniform(rng, 2, 40);
  const auto s = [](int64_t v) { return std::to_string(v); };
  const std::string r = s(rows);
  const int64_t image = 4 * rows;  // the UB row of a 3 x 3 image (9 rows) that a window reads
  const std::string program =
      "READ_HOST target=dram host=0x10000 dest=0 length=" + s(4 * n * n) + " signal=t0\n" +
      "READ_HOST target=param host=0x40000 dest=0 length=" + s(9 * n) + " signal=t1\n" +
      "READ_HOST target=ub host=0x20000 dest=0 length=" + s((image + 9) * n) + " signal=t2\n" +
      "READ_WEIGHTS dram_tile=0 tiles=4 wait=t0\n" +
      // A READ_HOST onto the rows of a pending block, which a later block reads again.
      "MATMUL ub=0 acc=0 rows=" + r + " acc_mode=overwrite new_tile=1 wait=t2\n" +
      "MATMUL ub=" + r + " acc=0 rows=" + r + " acc_mode=accumulate new_tile=1\n" +
      "READ_HOST target=ub host=0x30000 dest=" + r + " length=" + s(rows * n) + "\n" +
      "MATMUL ub=" + r + " acc=64 rows=" + r + " acc_mode=overwrite new_tile=0\n" +
      // An ACTIVATE reading a pending block's rows.
      "ACTIVATE acc=64 ub=" + s(3 * rows) + " rows=" + r + " param_set=0 wait=t1\n" +
      // An ACTIVATE writing the UB rows a pending block reads (and reading rows it does not
      // write).
      "MATMUL ub=" + r + " acc=128 rows=" + r + " acc_mode=overwrite new_tile=1\n" +
      "ACTIVATE acc=0 ub=" + r + " rows=" + r + " param_set=0\n" +
      // Blocks onto overlapping rows: the second overwrites part of the first.
      "MATMUL ub=0 acc=192 rows=" + r + " acc_mode=overwrite new_tile=0\n" +
      "MATMUL ub=" + r + " acc=192 rows=" + r + " acc_mode=accumulate new_tile=0\n" +
      "MATMUL ub=" + s(2 * rows) + " acc=" + s(192 + rows / 2) + " rows=" + r +
      " acc_mode=overwrite new_tile=1\n" +
      "MATMUL ub=0 acc=192 rows=" + r + " acc_mode=accumulate new_tile=0\n" +
      // A READ_HOST onto a tap of a pending window: the image's corners, rows 0, 2, 6 and 8
      // of it (row 6 lies beyond the window's first 4 rows).
      "MATMUL ub=" + s(image) + " acc=320 rows=4 acc_mode=overwrite new_tile=0 window=1 " +
      "stride_h=2 stride_w=2 image_w=3 image_h=3 out_w=2 pad_value=0 y0=0 x0=0\n" +
      "READ_HOST target=ub host=0x30000 dest=" + s(image + 6) + " length=" + s(n) + "\n" +
      "MATMUL ub=" + s(image) + " acc=336 rows=4 acc_mode=overwrite new_tile=0 window=1 " +
      "stride_h=2 stride_w=2 image_w=3 image_h=3 out_w=2 pad_value=0 y0=0 x0=0\n" +
      "HALT\n";
  isa::AssembleOptions options;
  options.limits = Limits();
  const std::vector<isa::Words> words = isa::Assemble(program, options);

  const std::vector<uint8_t> tiles = RandomBytes(rng, static_cast<std::size_t>(4 * n * n));
  const std::vector<uint8_t> x = RandomBytes(rng, static_cast<std::size_t>((image + 9) * n));
  const std::vector<uint8_t> y = RandomBytes(rng, static_cast<std::size_t>(rows * n));
  // Outputs that follow the sums: no bias, sums / 2048 (a random set's bias saturates most).
  ParamSet set;
  set.bias.assign(static_cast<std::size_t>(n), 0);
  set.multiplier.assign(static_cast<std::size_t>(n), 1 << 30);
  set.shift.assign(static_cast<std::size_t>(n), -10);
  const std::vector<uint8_t> params = EncodeParamSet(set);
  Machine whole(Limits()), stepped(Limits());
  for (Machine* machine : {&whole, &stepped}) {
    machine->host().Write(0x10000, tiles);
    machine->host().Write(0x20000, x);
    machine->host().Write(0x30000, y);
    machine->host().Write(0x40000, params);
  }
  const RunResult result = whole.Run(words);
  ASSERT_TRUE(result.halted()) << ToString(result) << "\n" << program;
  stepped.Start();
  for (std::size_t i = 0; i < words.size(); ++i) {
    const RunResult step = stepped.Resume(&words[i], 1, i);
    ASSERT_EQ(step.status, i + 1 < words.size() ? RunStatus::kEndOfProgram : RunStatus::kHalted)
        << ToString(step);
  }
  for (int64_t row = 0; row < 352; ++row) {
    for (int64_t c = 0; c < n; ++c) {
      ASSERT_EQ(whole.acc_row(row)[c], stepped.acc_row(row)[c]) << "accumulator row " << row;
    }
  }
  for (int64_t row = 0; row < image + 9; ++row) {
    for (int64_t c = 0; c < n; ++c) {
      ASSERT_EQ(whole.ub_row(row)[c], stepped.ub_row(row)[c]) << "UB row " << row;
    }
  }
}

// ACTIVATE's per-row requantization (RowRequant: the constants worked out once, 16 channels an
// instruction where the CPU has AVX-512) against golden's WrapAdd and Requantize, element by
// element: every supported shift, the extreme multipliers (INT32_MIN x INT32_MIN saturates),
// accumulators and biases that wrap, remainders at exactly half, zero points and clamps at the
// int8 ends, at N = 16 and 32 (vectorized) and N = 8 (plain).
TEST(RowRequant, BitExactWithGolden) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  const std::vector<int32_t> multipliers = {kMin, kMin + 1, -1, 0, 1, 1 << 30, 1073741825,
                                            1759218604, kMax};
  const std::vector<int32_t> special = {kMin, kMin + 1, -65537, -3, -2, -1, 0, 1, 2, 3,
                                        1 << 15, 65536, kMax - 1, kMax};
  const std::vector<std::array<int32_t, 3>> outputs = {  // zero point, clamp min, clamp max
      {0, -128, 127}, {-128, -128, 127}, {127, 0, 127}, {5, -3, 3}, {0, 0, 6}};
  std::mt19937_64 rng(11);
  for (const int64_t n : {8, 16, 32}) {
    for (int shift = -31; shift <= 30; ++shift) {
      for (const int32_t multiplier : multipliers) {
        for (const auto& [zero_point, clamp_min, clamp_max] : outputs) {
          ParamSet params;
          std::vector<int32_t> acc;
          for (int64_t c = 0; c < n; ++c) {
            params.bias.push_back(c % 4 == 0 ? special[rng() % special.size()]
                                             : static_cast<int32_t>(rng()));
            params.multiplier.push_back(c % 3 == 0 ? multiplier : static_cast<int32_t>(rng()));
            params.shift.push_back(static_cast<int8_t>(c % 2 == 0 ? shift : -31 + rng() % 62));
            acc.push_back(c % 5 < 2 ? special[rng() % special.size()]
                                    : static_cast<int32_t>(rng() >> (rng() % 33)));
          }
          std::vector<int8_t> got(static_cast<size_t>(n));
          RowRequant(params, zero_point, clamp_min, clamp_max).Apply(acc.data(), got.data());
          for (int64_t c = 0; c < n; ++c) {
            const auto i = static_cast<size_t>(c);
            const int8_t want =
                golden::Requantize(golden::WrapAdd(acc[i], params.bias[i]), params.multiplier[i],
                                   params.shift[i], zero_point, clamp_min, clamp_max);
            ASSERT_EQ(got[i], want) << "n " << n << " channel " << c << ": acc " << acc[i]
                                    << " bias " << params.bias[i] << " multiplier "
                                    << params.multiplier[i] << " shift "
                                    << int{params.shift[i]} << " zero point " << zero_point;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tpu::model
