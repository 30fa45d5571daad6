// `tpu gemm`: a seeded random int8 GEMM on a chosen backend; prints a checksum of the int32
// result and the report. The operands are drawn exactly as bench/mxu_demo draws them (A, then
// W, from one std::mt19937_64 seeded with --seed), so the two agree for the same shape and seed.
#include <chrono>
#include <iostream>
#include <memory>
#include <random>
#include <string>

#include "checksum.h"
#include "commands.h"
#include "compare.h"
#include "golden/gemm.h"
#include "layer_options.h"
#include "link_faults_report.h"
#include "output_paths.h"
#include "report.h"
#include "tensor_files.h"

namespace tpu::cli {
namespace {

struct GemmOptions {
  int m = 64, k = 48, n = 40;
  uint64_t seed = 1;
  std::string output;
  LayerOptions layer;
};

golden::Tensor<int8_t> RandomInt8(int64_t rows, int64_t cols, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> dist(-128, 127);
  golden::Tensor<int8_t> t({rows, cols});
  for (auto& v : t.data) v = static_cast<int8_t>(dist(rng));
  return t;
}

int RunGemm(const GemmOptions& o, const BackendFactory& make_backend) {
  const BackendOptions backend_options = ResolveBackendOptions(o.layer);
  CheckOutputPaths({{"--output", o.output}, {"--trace", o.layer.trace}}, {});
  const std::unique_ptr<LayerBackend> backend = make_backend(o.layer.backend, backend_options);

  std::mt19937_64 rng(o.seed);
  const golden::Tensor<int8_t> a = RandomInt8(o.m, o.k, rng);
  const golden::Tensor<int8_t> w = RandomInt8(o.k, o.n, rng);
  const auto start = std::chrono::steady_clock::now();
  LayerResult<int32_t> result = backend->RunGemm(a, w);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!o.output.empty()) SaveTensor("--output", o.output, result.output);

  Report r("tpu gemm: random int8 GEMM on the " + backend->name() + " backend");
  r.Add("backend", "backend", backend->name());
  std::string mismatch;
  if (o.layer.check) {
    mismatch = ReportCheck(r, backend->name(), "C", result.output, golden::Gemm(a, w));
  } else {
    r.Add("check", "check vs golden", "not requested (--check)");
  }
  r.Add("shape", "shape (M x K x N)",
        std::to_string(o.m) + " x " + std::to_string(o.k) + " x " + std::to_string(o.n));
  r.Add("seed", "seed", static_cast<int64_t>(o.seed));
  r.Add("checksum", "checksum of C (FNV-1a 64)", HexChecksum(Fnv1a64(result.output)));
  int64_t sum = 0;
  for (int32_t v : result.output.data) sum += v;
  r.Add("sum", "sum of C", sum);
  if (!o.output.empty()) r.Add("output", "output (M, N) int32", o.output);
  AddRunFigures(r, backend_options, result.stats, int64_t{o.m} * o.k * o.n, wall);
  PrintReport(r, o.layer, std::cout);
  if (const std::string lost = LostTlpsMessage(result.stats); !lost.empty()) {
    std::cerr << "tpu gemm: " << lost << "\n";
    return 1;
  }
  if (!mismatch.empty()) {
    std::cerr << "tpu gemm: " << mismatch << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

CommandRunner AddGemmCommand(CLI::App& app, BackendFactory make_backend) {
  auto opts = std::make_shared<GemmOptions>();
  auto* cmd = app.add_subcommand(
      "gemm", "Multiply seeded random int8 matrices, C = A x W (int32), and print a checksum");
  cmd->add_option("--m", opts->m, "rows of A")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--k", opts->k, "columns of A = rows of W")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  cmd->add_option("--n", opts->n, "columns of W")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "seed of the random A and W (as bench/mxu_demo)")
      ->capture_default_str();
  cmd->add_option("--output", opts->output, "also write C: int32 .npy of shape (M, N)")
      ->type_name("C.npy");
  AddLayerOptions(*cmd, opts->layer);
  return [opts, make_backend] { return RunGemm(*opts, make_backend); };
}

}  // namespace tpu::cli
