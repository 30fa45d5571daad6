// MXU benchmark: streams M = 4N activation rows through each of a GEMM's back-to-back weight
// tiles and prints utilization (useful MACs / (N*N x cycles)) and simulation speed, next to
// the speed of the bare PE array (no skew, no control) simulated for as many cycles.
// Targets: utilization >= 0.95 (weight loads hidden), MXU speed >= 0.5 x bare array.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <stdexcept>
#include <vector>

#include "bare_array.h"
#include "golden/gemm.h"
#include "mxu/mxu_gemm.h"
#include "mxu/mxu_harness.h"

namespace tpu::bench {
namespace {

constexpr double kSecondsPerSize = 1.5;  // wall time spent streaming at each size

std::vector<int8_t> RandomInt8(size_t count, std::mt19937_64& rng) {
  std::vector<int8_t> v(count);
  for (auto& x : v) x = int8_t(rng());
  return v;
}

// The process's CPU time, seconds (--n mode: figures comparable with the system's on a loaded
// machine, docs/performance.md "System simulation speed").
double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// The benchmark's GEMM at size N: M = 4N rows, K = N_out = side * N (side^2 weight tiles of
// 4N rows each), seeded inputs and the golden result.
struct GemmCase {
  int m, k, ncols;
  std::vector<int8_t> a, w;
  std::vector<int32_t> want;
};

template <int N>
GemmCase MakeGemmCase(int side) {
  GemmCase c{4 * N, side * N, side * N, {}, {}, {}};
  std::mt19937_64 rng(N);
  c.a = RandomInt8(size_t(c.m) * c.k, rng);
  c.w = RandomInt8(size_t(c.k) * c.ncols, rng);
  c.want = golden::Gemm(golden::Tensor<int8_t>({c.m, c.k}, c.a),
                        golden::Tensor<int8_t>({c.k, c.ncols}, c.w))
               .data;
  return c;
}

// --n mode: the MXU alone at one size for `seconds` of process CPU time, no bare array.
template <int N>
void BenchSizeCpu(int side, double seconds_wanted) {
  const GemmCase g = MakeGemmCase<N>(side);
  auto mxu = tb::MakeMxuHarness<N>();
  mxu->Reset();
  uint64_t cycles = 0;
  double seconds = 0;
  const double start = CpuSeconds();
  do {
    tb::MxuStreamStats stats;
    if (tb::RunMxuGemm(*mxu, g.a, g.w, g.m, g.k, g.ncols, {}, &stats) != g.want) {
      throw std::runtime_error("MXU result differs from the golden GEMM");
    }
    cycles += stats.cycles;
    seconds = CpuSeconds() - start;
  } while (seconds < seconds_wanted);
  std::printf("N = %d, %dx%dx%d: %llu cycles in %.3f s of process CPU time: %.1f kcycles/s\n", N,
              g.m, g.k, g.ncols, (unsigned long long)cycles, seconds, double(cycles) / seconds / 1e3);
}

// side: K = N_out = side * N, so side^2 weight tiles of 4N rows each.
template <int N>
void BenchSize(int side) {
  const GemmCase g = MakeGemmCase<N>(side);
  auto mxu = tb::MakeMxuHarness<N>();
  mxu->Reset();
  tb::MxuStreamStats first;
  uint64_t cycles = 0;
  int runs = 0;
  const auto start = std::chrono::steady_clock::now();
  double seconds = 0;
  do {
    tb::MxuStreamStats stats;
    if (tb::RunMxuGemm(*mxu, g.a, g.w, g.m, g.k, g.ncols, {}, &stats) != g.want) {
      throw std::runtime_error("MXU result differs from the golden GEMM");
    }
    if (runs++ == 0) first = stats;
    cycles += stats.cycles;
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (seconds < kSecondsPerSize);

  const double bare_seconds = RunBareArray<N>(cycles);
  const double mxu_speed = double(cycles) / seconds, bare_speed = double(cycles) / bare_seconds;
  std::printf("%4d  %4dx%-4dx%-4d %5llu %8llu %6llu  %11.4f  %12.0f  %12.0f  %6.2f\n", N, g.m,
              g.k, g.ncols, (unsigned long long)first.tiles, (unsigned long long)first.cycles,
              (unsigned long long)first.act_wait, first.Utilization(N), mxu_speed, bare_speed,
              mxu_speed / bare_speed);
}

}  // namespace
}  // namespace tpu::bench

// bench_mxu: every size, wall clock, against the bare array.
// bench_mxu --n N [--seconds S]: the MXU alone at N (8, 16 or 32), S (default 3) seconds of
// process CPU time.
int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "--n") == 0) {
    const int n = std::atoi(argv[2]);
    const double seconds =
        argc >= 5 && std::strcmp(argv[3], "--seconds") == 0 ? std::atof(argv[4]) : 3.0;
    try {
      if (n == 8) {
        tpu::bench::BenchSizeCpu<8>(8, seconds);
      } else if (n == 16) {
        tpu::bench::BenchSizeCpu<16>(8, seconds);
      } else if (n == 32) {
        tpu::bench::BenchSizeCpu<32>(8, seconds);
      } else {
        std::fprintf(stderr, "bench_mxu: --n 8, 16 or 32\n");
        return 2;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_mxu: %s\n", e.what());
      return 1;
    }
    return 0;
  }
  std::printf("MXU benchmark: M = 4N rows per tile, back-to-back tiles (64 up to N = 32, then "
              "4), results checked\n");
  std::printf("utilization = useful MACs / (N*N x cycles), cycles from first input to last "
              "result (target >= 0.95)\n");
  std::printf("speed = simulated cycles per wall-clock second; ratio = MXU / bare array "
              "(target >= 0.50)\n\n");
  std::printf("%4s  %-15s %5s %8s %6s  %11s  %12s  %12s  %6s\n", "N", "MxKxN", "tiles",
              "cycles", "waits", "utilization", "MXU cyc/s", "bare cyc/s", "ratio");
  try {
    tpu::bench::BenchSize<8>(8);  // 64 tiles
    tpu::bench::BenchSize<16>(8);
    tpu::bench::BenchSize<32>(8);
    // Above N = 32 the Verilated array is the loop form (docs/mxu.md): 4 tiles keep the golden
    // GEMM and the run short.
    tpu::bench::BenchSize<64>(2);
    tpu::bench::BenchSize<128>(2);
    tpu::bench::BenchSize<256>(2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_mxu: %s\n", e.what());
    return 1;
  }
  return 0;
}
