// Activation pipeline benchmark: streams accumulator rows through the whole tpu_act
// (requantization with per-channel multipliers, bias and ReLU clamp, then pooling) with an
// always-ready consumer and prints the steady-state input rows per cycle between the first and
// the last accepted row (target 1.0), in bypass and with 2x2 stride-2 max pooling of 28x28
// images back to back, plus the cycles from the first row to the last result and the simulation
// speed. Every result is checked against the golden reference.
#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <vector>

#include "act/top/act_harness.h"
#include "act/top/act_stream.h"
#include "golden/pool.h"
#include "golden/requant.h"
#include "golden/tensor.h"

namespace tpu::bench {
namespace {

constexpr int kImages = 16;  // 28x28 images per run
constexpr int kSide = 28;    // Fashion-MNIST
constexpr int kPixels = kSide * kSide;
constexpr int kRows = kImages * kPixels;

template <int N>
void BenchSize() {
  std::mt19937_64 rng(N);
  tb::ActConfig cfg;
  golden::RequantParams params;
  for (int c = 0; c < N; ++c) {
    const golden::QuantizedMultiplier q = golden::QuantizeMultiplier(0.0007 * (1.0 + c / 4.0));
    cfg.requant.multiplier.push_back(q.multiplier);
    cfg.requant.shift.push_back(q.shift);
    cfg.requant.bias.push_back(int32_t(rng() % 20001) - 10000);
    params.multipliers.push_back(q);
  }
  cfg.requant.out_zero_point = params.out_zero_point = -5;
  cfg.requant.act_min = params.act_min = -5;  // ReLU
  cfg.requant.act_max = params.act_max = 127;
  std::vector<int32_t> acc(size_t(kRows) * N);
  for (auto& a : acc) a = int32_t(rng() % 400001) - 200000;
  const golden::Tensor<int8_t> requantized =
      golden::RequantizeMatrix(golden::Tensor<int32_t>({kRows, N}, acc), cfg.requant.bias, params);

  golden::Pool2dParams pp;
  pp.window_h = pp.window_w = pp.stride_h = pp.stride_w = 2;
  pp.act_min = params.act_min;
  pp.act_max = params.act_max;
  std::vector<int8_t> pooled;
  for (int i = 0; i < kImages; ++i) {
    const auto first = requantized.data.begin() + size_t(i) * kPixels * N;
    const golden::Tensor<int8_t> image({1, kSide, kSide, N},
                                       std::vector<int8_t>(first, first + size_t(kPixels) * N));
    const auto out = golden::MaxPool2d(image, pp).data;
    pooled.insert(pooled.end(), out.begin(), out.end());
  }

  auto h = tb::MakeActHarness<N>();
  h->Reset();
  for (const bool pool : {false, true}) {
    cfg.pool = tb::ActPoolConfig{};
    if (pool) {
      cfg.pool.mode = tb::PoolMode::kMax;
      cfg.pool.in_h = cfg.pool.in_w = kSide;
      cfg.pool.window_h = cfg.pool.window_w = cfg.pool.stride_h = cfg.pool.stride_w = 2;
    }
    h->SetConfig(cfg);
    const std::vector<int8_t>& want = pool ? pooled : requantized.data;
    const auto start = std::chrono::steady_clock::now();
    const tb::ActTopStreamResult got = tb::RunActTop(*h, acc, want.size() / N);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (got.rows != want) {
      throw std::runtime_error("tpu_act result differs from the golden reference");
    }
    const tb::ActTopStreamStats& st = got.stats;
    std::printf("%4d  %-14s  %6llu  %6llu  %7llu  %16.4f  %12.0f\n", N,
                pool ? "max 2x2 s2" : "bypass", (unsigned long long)st.in_rows,
                (unsigned long long)st.out_rows, (unsigned long long)st.cycles,
                st.SteadyInRowsPerCycle(), double(st.cycles) / seconds);
  }
}

}  // namespace
}  // namespace tpu::bench

int main() {
  std::printf(
      "Activation pipeline benchmark (tpu_act = requant -> pool): %d rows (%d images of %dx%d) "
      "per run, results checked\n",
      tpu::bench::kRows, tpu::bench::kImages, tpu::bench::kSide, tpu::bench::kSide);
  std::printf(
      "in rows/cycle = steady state between the first and the last accepted row (target 1.0)\n");
  std::printf("cycles = first cycle to the last result; speed = simulated cycles per second\n\n");
  std::printf("%4s  %-14s  %6s  %6s  %7s  %16s  %12s\n", "N", "pooling", "in", "out", "cycles",
              "in rows/cycle", "cyc/s");
  try {
    tpu::bench::BenchSize<8>();
    tpu::bench::BenchSize<16>();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_act_top: %s\n", e.what());
    return 1;
  }
  return 0;
}
