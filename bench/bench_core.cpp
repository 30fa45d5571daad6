// The TPU core on a 512 x 512 x 512 dense layer (GEMM + requantization) at N = 16, with the
// weight-DRAM read port 256 bits wide (two weight rows per beat, 22.4 GB/s at 700 MHz; TPU v1
// had 30 GB/s of DDR3 for a 256 x 256 array). The runtime's lowering (host_driver/runtime)
// tiles it: x streams through the UB in M chunks, weight tiles prefetch four deep, ACTIVATE
// of one accumulator region overlaps MATMUL of the other. Prints the utilization (useful MACs
// / (N^2 x cycles)), the performance counters with the stall breakdown, and checks the result
// bit for bit against the golden reference.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "core/core_harness.h"
#include "golden/dense.h"
#include "isa/disassembler.h"
#include "runtime/dense_lowering.h"

namespace {

using tpu::tb::CorePerf;

int Run(int64_t m, int64_t k, int64_t n_out) {
  auto h = tpu::tb::MakeCoreHarness<1>();
  const tpu::isa::DeviceLimits limits = h->config().limits;
  const int64_t n = limits.n;
  std::mt19937_64 rng(512);
  std::uniform_int_distribution<int> byte(-128, 127);
  tpu::golden::Tensor<int8_t> x({m, k});
  for (auto& v : x.data) v = static_cast<int8_t>(byte(rng));
  tpu::runtime::DenseLayer layer;
  layer.weights = tpu::golden::Tensor<int8_t>({k, n_out});
  for (auto& v : layer.weights.data) v = static_cast<int8_t>(byte(rng));
  layer.bias.assign(n_out, 100);
  layer.input_zero_point = 3;
  layer.requant.multipliers.assign(n_out, tpu::golden::QuantizeMultiplier(1.0 / (64.0 * k)));
  layer.requant.act_min = 0;  // ReLU

  const auto program =
      tpu::runtime::LowerDense(x, layer, limits, {0x100000000ull, 1ull << 30});
  for (const auto& img : program.images) h->host().Write(img.address, img.bytes);
  std::vector<tpu::isa::Words> words;
  for (const auto& instr : program.instrs) words.push_back(tpu::isa::Encode(instr));
  if (std::getenv("TPU_BENCH_LIST")) std::fputs(tpu::isa::DisassembleProgram(words).c_str(), stdout);

  const auto t0 = std::chrono::steady_clock::now();
  const tpu::tb::CoreRunResult r = h->Run(words, 50'000'000);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.done) {
    std::printf("core did not finish: %s\n", r.Describe().c_str());
    return 1;
  }
  const auto y = tpu::runtime::ExtractDenseOutput(
      program.output, [&](uint64_t a, uint64_t len) { return h->host().Read(a, len); });
  const auto expected = tpu::golden::Dense(x, layer.weights, layer.bias,
                                           layer.input_zero_point, layer.requant);
  const bool ok = y.data == expected.data;

  const double macs = static_cast<double>(m) * k * n_out;
  const uint64_t cycles = r.perf[CorePerf::kCycles];
  std::printf("core dense %lld x %lld x %lld at N = %lld, weight DRAM %d bits/beat, %zu instructions\n",
              static_cast<long long>(m), static_cast<long long>(k), static_cast<long long>(n_out),
              static_cast<long long>(n), h->config().dram_width, program.instrs.size());
  std::printf("  result vs golden: %s\n", ok ? "bit-exact" : "MISMATCH");
  std::printf("  cycles %llu, MXU busy %llu (%.4f of cycles)\n",
              static_cast<unsigned long long>(cycles),
              static_cast<unsigned long long>(r.perf[CorePerf::kMxuBusy]),
              static_cast<double>(r.perf[CorePerf::kMxuBusy]) / cycles);
  std::printf("  utilization (useful MACs / (N^2 x cycles)) %.4f  [target >= 0.95]\n",
              macs / (static_cast<double>(n) * n * cycles));
  std::printf("  stalls (cycles): weights %llu, activation input %llu, DMA %llu, dependency %llu\n",
              static_cast<unsigned long long>(r.perf[CorePerf::kStallWeights]),
              static_cast<unsigned long long>(r.perf[CorePerf::kStallActIn]),
              static_cast<unsigned long long>(r.perf[CorePerf::kStallDma]),
              static_cast<unsigned long long>(r.perf[CorePerf::kStallDep]));
  std::printf("  rows: DMA %llu, weights %llu, matrix %llu, activation %llu\n",
              static_cast<unsigned long long>(r.perf[CorePerf::kRowsDma]),
              static_cast<unsigned long long>(r.perf[CorePerf::kRowsWeights]),
              static_cast<unsigned long long>(r.perf[CorePerf::kRowsMatrix]),
              static_cast<unsigned long long>(r.perf[CorePerf::kRowsAct]));
  std::printf("  simulation: %.2f s wall, %.0f cycles/s\n", wall, cycles / wall);
  return ok ? 0 : 1;
}

}  // namespace

int main() { return Run(512, 512, 512); }
