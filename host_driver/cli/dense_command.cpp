// `tpu dense`: one quantized dense layer, tensors in and out as .npy files, on a chosen backend,
// optionally checked against the golden reference.
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "commands.h"
#include "compare.h"
#include "compiler/dense_layer.h"
#include "golden/dense.h"
#include "layer_options.h"
#include "output_paths.h"
#include "npy/header.h"
#include "report.h"
#include "requant_options.h"
#include "tensor_files.h"

namespace tpu::cli {
namespace {

struct DenseOptions {
  std::string input, weights, bias, output;
  RequantOptions requant;
  LayerOptions layer;
};

int RunDense(const DenseOptions& o, const BackendFactory& make_backend) {
  // Everything that needs no file first, so that option mistakes are reported before any I/O;
  // the backend last, so that a bad input never starts a simulation (or leaves a waveform).
  const BackendOptions backend_options = ResolveBackendOptions(o.layer);
  CheckRequantChoice(o.requant);

  const golden::Tensor<int8_t> x = LoadInt8Matrix("--input", o.input, "(M, K)");
  compiler::DenseLayer layer;
  layer.weights = LoadInt8Matrix("--weights", o.weights, "(K, N)");
  const int64_t m = x.shape[0], k = x.shape[1], n = layer.weights.shape[1];
  if (layer.weights.shape[0] != k) {
    throw std::invalid_argument("--weights: " + o.weights + ": shape " +
                                npy::ShapeRepr(layer.weights.shape) +
                                ": expected (K, N) with K = " + std::to_string(k) +
                                ", the columns of the input " + o.input);
  }
  const std::string per_column =
      "one per output column (N = " + std::to_string(n) + ", the columns of " + o.weights + ")";
  if (!o.bias.empty()) layer.bias = LoadInt32Vector("--bias", o.bias, n, per_column);
  const ResolvedRequant requant = ResolveRequant(o.requant, n, o.weights);
  if (!requant.warning.empty()) {
    std::fprintf(stderr, "tpu dense: warning: %s\n", requant.warning.c_str());
  }
  layer.input_zero_point = o.requant.input_zero_point;
  layer.requant = requant.params;
  compiler::CheckDenseLayer(layer, "tpu dense");
  CheckOutputPaths({{"--output", o.output}, {"--trace", o.layer.trace}},
                   {{"--input", o.input}, {"--weights", o.weights}, {"--bias", o.bias},
                    {"--multipliers", o.requant.multipliers_path}, {"--shifts", o.requant.shifts_path}});
  const std::unique_ptr<LayerBackend> backend = make_backend(o.layer.backend, backend_options);

  const auto start = std::chrono::steady_clock::now();
  LayerResult<int8_t> result = backend->RunDense(x, layer);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SaveTensor("--output", o.output, result.output);

  Report r("tpu dense: int8 dense layer on the " + backend->name() + " backend");
  r.Add("backend", "backend", backend->name());
  std::string mismatch;
  if (o.layer.check) {
    const golden::Tensor<int8_t> want =
        golden::Dense(x, layer.weights, layer.bias, layer.input_zero_point, layer.requant);
    mismatch = ReportCheck(r, backend->name(), "output", result.output, want);
  } else {
    r.Add("check", "check vs golden", "not requested (--check)");
  }
  r.Add("shape", "shape (M x K x N)",
        std::to_string(m) + " x " + std::to_string(k) + " x " + std::to_string(n));
  r.Add("input", "input (M, K) int8", o.input);
  r.Add("weights", "weights (K, N) int8", o.weights);
  r.Add("bias", "bias (N,) int32", o.bias.empty() ? std::string("none") : o.bias);
  r.Add("requant", "requantization", requant.description);
  r.Add("input_zero_point", "input zero point", int64_t{o.requant.input_zero_point});
  r.Add("output_zero_point", "output zero point", int64_t{o.requant.output_zero_point});
  r.Add("activation", "activation", o.requant.activation);
  r.Add("clamp_min", "clamp minimum", int64_t{requant.params.act_min});
  r.Add("clamp_max", "clamp maximum", int64_t{requant.params.act_max});
  r.Add("output", "output (M, N) int8", o.output);
  return FinishLayerReport(r, "tpu dense", o.layer, backend_options, result, m * k * n, wall,
                           "multiply-accumulates (M x K x N)", mismatch);
}

}  // namespace

CommandRunner AddDenseCommand(CLI::App& app, BackendFactory make_backend) {
  auto opts = std::make_shared<DenseOptions>();
  auto* cmd = app.add_subcommand(
      "dense", "Run a quantized int8 dense layer: y = clamp(zy + requant((x - zx) W + b))");
  cmd->add_option("--input", opts->input, "input x: int8 .npy of shape (M, K)")
      ->type_name("X.npy")
      ->required();
  cmd->add_option("--weights", opts->weights, "weights W: int8 .npy of shape (K, N), as Keras")
      ->type_name("W.npy")
      ->required();
  cmd->add_option("--bias", opts->bias, "bias b: int32 .npy of shape (N,)")->type_name("B.npy");
  AddRequantOptions(*cmd, opts->requant);
  cmd->add_option("--output", opts->output, "where to write y: int8 .npy of shape (M, N)")
      ->type_name("Y.npy")
      ->required();
  AddLayerOptions(*cmd, opts->layer);
  return [opts, make_backend] { return RunDense(*opts, make_backend); };
}

}  // namespace tpu::cli
