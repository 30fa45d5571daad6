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

#include "compiler/dense_lowering.h"
#include "core/core_harness.h"
#include "golden/dense.h"
#include "isa/disassembler.h"

namespace {

using tpu::tb::CorePerf;
using tpu::tb::CoreRunResult;

struct Problem {
  tpu::golden::Tensor<int8_t> x;
  tpu::compiler::DenseLayer layer;
  tpu::compiler::DenseProgram program;
};

Problem MakeProblem(int64_t m, int64_t k, int64_t n_out, const tpu::isa::DeviceLimits& limits) {
  Problem p;
  std::mt19937_64 rng(512);
  std::uniform_int_distribution<int> byte(-128, 127);
  p.x = tpu::golden::Tensor<int8_t>({m, k});
  for (auto& v : p.x.data) v = static_cast<int8_t>(byte(rng));
  p.layer.weights = tpu::golden::Tensor<int8_t>({k, n_out});
  for (auto& v : p.layer.weights.data) v = static_cast<int8_t>(byte(rng));
  p.layer.bias.assign(n_out, 100);
  p.layer.input_zero_point = 3;
  p.layer.requant.multipliers.assign(n_out, tpu::golden::QuantizeMultiplier(1.0 / (64.0 * k)));
  p.layer.requant.act_min = 0;  // ReLU
  p.program = tpu::compiler::LowerDense(p.x, p.layer, limits, {0x100000000ull, 1ull << 30});
  return p;
}

std::vector<tpu::isa::Words> Encode(const std::vector<tpu::isa::Instr>& instrs) {
  std::vector<tpu::isa::Words> words;
  for (const auto& instr : instrs) words.push_back(tpu::isa::Encode(instr));
  return words;
}

// Splits off the weight upload (READ_HOST into the weight DRAM) into a program of its own; in
// the layer's program a SYNC gives the tokens the upload would have given.
void SplitWeightUpload(const std::vector<tpu::isa::Instr>& all,
                       std::vector<tpu::isa::Instr>* upload,
                       std::vector<tpu::isa::Instr>* layer) {
  for (const auto& instr : all) {
    const auto* rh = std::get_if<tpu::isa::ReadHost>(&instr);
    if (rh && rh->target == tpu::isa::Target::kDram) {
      tpu::isa::ReadHost copy = *rh;
      copy.wait = copy.signal = 0;
      upload->push_back(copy);
      layer->push_back(tpu::isa::Sync{0, rh->wait, rh->signal});
    } else {
      layer->push_back(instr);
    }
  }
  upload->push_back(tpu::isa::Halt{});
}

void Report(const char* title, const CoreRunResult& r, double macs, int64_t n, bool ok,
            double wall) {
  const uint64_t cycles = r.perf[CorePerf::kCycles];
  std::printf("  %s\n", title);
  std::printf("    result vs golden: %s\n", ok ? "bit-exact" : "MISMATCH");
  std::printf("    cycles %llu, MXU busy %llu\n", static_cast<unsigned long long>(cycles),
              static_cast<unsigned long long>(r.perf[CorePerf::kMxuBusy]));
  std::printf("    utilization (useful MACs / (N^2 x cycles)) %.4f  [target >= 0.95]\n",
              macs / (static_cast<double>(n) * n * cycles));
  std::printf("    stalls (cycles): weights %llu, activation input %llu, DMA %llu, dependency %llu\n",
              static_cast<unsigned long long>(r.perf[CorePerf::kStallWeights]),
              static_cast<unsigned long long>(r.perf[CorePerf::kStallActIn]),
              static_cast<unsigned long long>(r.perf[CorePerf::kStallDma]),
              static_cast<unsigned long long>(r.perf[CorePerf::kStallDep]));
  std::printf("    rows: DMA %llu, weights %llu, matrix %llu, activation %llu\n",
              static_cast<unsigned long long>(r.perf[CorePerf::kRowsDma]),
              static_cast<unsigned long long>(r.perf[CorePerf::kRowsWeights]),
              static_cast<unsigned long long>(r.perf[CorePerf::kRowsMatrix]),
              static_cast<unsigned long long>(r.perf[CorePerf::kRowsAct]));
  std::printf("    simulation: %.2f s wall, %.0f cycles/s\n", wall, cycles / wall);
}

// Runs `words` on a fresh core loaded with the problem's images; checks the result.
bool RunOnce(const Problem& p, const std::vector<tpu::isa::Words>* upload,
             const std::vector<tpu::isa::Words>& words, const char* title) {
  auto h = tpu::tb::MakeCoreHarness<1>();
  for (const auto& img : p.program.images) h->host().Write(img.address, img.bytes);
  if (upload && !h->Run(*upload, 10'000'000).done) {
    std::printf("weight upload did not finish\n");
    return false;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const CoreRunResult r = h->Run(words, 50'000'000);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.done) {
    std::printf("core did not finish: %s\n", r.Describe().c_str());
    return false;
  }
  const auto y = tpu::compiler::ExtractDenseOutput(
      p.program.output, [&](uint64_t a, uint64_t len) { return h->host().Read(a, len); });
  const auto expected = tpu::golden::Dense(p.x, p.layer.weights, p.layer.bias,
                                           p.layer.input_zero_point, p.layer.requant);
  const bool ok = y.data == expected.data;
  const double macs = static_cast<double>(p.x.shape[0]) * p.x.shape[1] *
                      p.layer.weights.shape[1];
  Report(title, r, macs, h->config().limits.n, ok, wall);
  return ok;
}

int Run(int64_t m, int64_t k, int64_t n_out) {
  const tpu::tb::CoreConfig config = tpu::tb::CoreConfigOf<1>();
  const Problem p = MakeProblem(m, k, n_out, config.limits);
  std::printf("core dense %lld x %lld x %lld at N = %lld, weight DRAM %d bits/beat, %zu instructions\n",
              static_cast<long long>(m), static_cast<long long>(k), static_cast<long long>(n_out),
              static_cast<long long>(config.limits.n), config.dram_width, p.program.instrs.size());
  const std::vector<tpu::isa::Words>& all = p.program.instrs.words();
  if (std::getenv("TPU_BENCH_LIST")) {
    std::fputs(tpu::isa::DisassembleProgram(all).c_str(), stdout);
  }
  std::vector<tpu::isa::Instr> upload, layer;
  SplitWeightUpload(p.program.instrs.Instrs(), &upload, &layer);
  const auto upload_words = Encode(upload);
  bool ok = RunOnce(p, &upload_words, Encode(layer),
                    "weights resident in the weight DRAM (uploaded by an earlier program):");
  ok = RunOnce(p, nullptr, all,
               "whole program, the 256 KiB weight upload over the host port included:") && ok;
  return ok ? 0 : 1;
}

}  // namespace

int main() { return Run(512, 512, 512); }
