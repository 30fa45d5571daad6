// Accumulator benchmark: the MXU's stream accumulates pass after pass into one region while the
// activation pipeline drains the other region, both offered one row every cycle, and prints the
// steady-state rows per cycle of each stream (target 1.0: the regions never get in each other's
// way) and the simulation speed. A second line per size drains with a reader that takes only
// half of the responses: the reads slow down, the write stream must not. Every response is
// checked against the reference model.
#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <vector>

#include "acc/acc_harness.h"
#include "acc/acc_model.h"
#include "acc/acc_traffic.h"

namespace tpu::bench {
namespace {

constexpr int kPasses = 40;  // accumulation passes over the whole fill region

template <int N>
void BenchSize(double rsp_ready) {
  auto acc = tb::MakeAccHarness<N>();
  acc->Reset();
  const uint32_t half = acc->depth() / 2;
  tb::AccModel model(N, acc->depth());
  std::mt19937_64 rng(N);

  // Fill region 0: one overwrite pass, then accumulate; drain region 1 over and over, as many
  // rows as the fill writes.
  tb::AccTraffic t;
  for (int p = 0; p < kPasses; ++p) {
    for (uint32_t r = 0; r < half; ++r) {
      std::vector<int32_t> row(N);
      for (auto& v : row) v = int32_t(uint32_t(rng()));
      t.writes.push_back({r, p != 0, std::move(row)});
      t.reads.push_back(half + r);
    }
  }
  tb::AccTrafficOptions opts;
  opts.rsp_ready = rsp_ready;
  opts.seed = N;
  const auto start = std::chrono::steady_clock::now();
  const auto st = tb::RunAccTraffic(*acc, model, t, opts);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%4d  %5u  %9.2f  %8llu  %8llu  %9.4f  %8.4f  %8.4f  %11llu  %10.0f\n", N,
              acc->depth(), rsp_ready, (unsigned long long)st.writes, (unsigned long long)st.cycles,
              st.WriteRowsPerCycle(), st.ReadRowsPerCycle(), st.ResponseRowsPerCycle(),
              (unsigned long long)st.read_stall, double(st.cycles) / seconds);
}

}  // namespace
}  // namespace tpu::bench

int main() {
  std::printf(
      "Accumulator benchmark: %d accumulation passes over region 0 (one row per cycle) "
      "while region 1 is read as many rows, responses checked\n",
      tpu::bench::kPasses);
  std::printf(
      "rows/cycle = rows / cycles from the first to the last accepted row of the stream "
      "(target 1.0 for writes; for reads 1.0 with an always-ready reader)\n\n");
  std::printf("%4s  %5s  %9s  %8s  %8s  %9s  %8s  %8s  %11s  %10s\n", "N", "depth", "rsp_ready",
              "rows", "cycles", "write r/c", "read r/c", "rsp r/c", "read stalls", "sim cyc/s");
  try {
    tpu::bench::BenchSize<16>(1.0);
    tpu::bench::BenchSize<16>(0.5);
    tpu::bench::BenchSize<32>(1.0);
    tpu::bench::BenchSize<32>(0.5);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_acc: %s\n", e.what());
    return 1;
  }
  return 0;
}
