// Activation requantization benchmark: streams accumulator rows through tpu_act_requant
// (per-channel multipliers, bias, clamp and lookup table all on) and prints the steady-state
// rows per cycle between the first and the last result, with an always-ready consumer
// (target 1.0) and with one that stalls 10% of the cycles (for reference: about 0.9 expected),
// plus the simulation speed. Every result is checked against the golden reference.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <vector>

#include "act/requant/act_requant_harness.h"
#include "act/requant/act_requant_stream.h"
#include "golden/activation.h"
#include "golden/requant.h"
#include "golden/tensor.h"

namespace tpu::bench {
namespace {

constexpr int kRows = 20000;  // rows per run

template <int N>
void BenchSize() {
  std::mt19937_64 rng(N);
  tb::ActRequantConfig cfg;
  golden::RequantParams params;
  for (int c = 0; c < N; ++c) {
    const golden::QuantizedMultiplier q = golden::QuantizeMultiplier(0.0007 * (c + 1));
    cfg.multiplier.push_back(q.multiplier);
    cfg.shift.push_back(q.shift);
    cfg.bias.push_back(int32_t(rng() % 20001) - 10000);
    params.multipliers.push_back(q);
  }
  cfg.out_zero_point = params.out_zero_point = -5;
  cfg.act_min = params.act_min = -5;  // ReLU
  cfg.act_max = params.act_max = 127;
  cfg.lut_enable = true;
  const golden::Lut lut =
      golden::BuildLut([](float x) { return std::tanh(x); }, 1.0f / 32, 0, 1.0f / 128, 0);
  std::vector<int32_t> acc(size_t(kRows) * N);
  for (auto& a : acc) a = int32_t(rng() % 400001) - 200000;
  const std::vector<int8_t> want =
      golden::ApplyLut(
          golden::RequantizeMatrix(golden::Tensor<int32_t>({kRows, N}, acc), cfg.bias, params), lut)
          .data;

  auto h = tb::MakeActRequantHarness<N>();
  h->Reset();
  h->SetConfig(cfg);
  tb::LoadLut(*h, lut);
  for (double stall : {0.0, 0.1}) {
    tb::ActStreamOptions opts;
    opts.out_stall = stall;
    opts.seed = N;
    tb::ActStreamStats stats;
    const auto start = std::chrono::steady_clock::now();
    if (tb::RunActRequant(*h, acc, opts, &stats) != want) {
      throw std::runtime_error("tpu_act_requant result differs from the golden reference");
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%4d  %9.0f%%  %6d  %7llu  %7llu  %14.4f  %12.0f\n", N, 100.0 * stall, kRows,
                (unsigned long long)stats.cycles, (unsigned long long)stats.in_wait,
                stats.SteadyRowsPerCycle(), double(stats.cycles) / seconds);
  }
}

}  // namespace
}  // namespace tpu::bench

int main() {
  std::printf(
      "Activation requantization benchmark (tpu_act_requant): %d rows per run, results "
      "checked\n",
      tpu::bench::kRows);
  std::printf(
      "rows/cycle = steady state between the first and the last result (target 1.0 "
      "unstalled)\n");
  std::printf("speed = simulated cycles per wall-clock second\n\n");
  std::printf("%4s  %10s  %6s  %7s  %7s  %14s  %12s\n", "N", "out stall", "rows", "cycles", "waits",
              "rows/cycle", "cyc/s");
  try {
    tpu::bench::BenchSize<8>();
    tpu::bench::BenchSize<16>();
    tpu::bench::BenchSize<32>();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_act: %s\n", e.what());
    return 1;
  }
  return 0;
}
