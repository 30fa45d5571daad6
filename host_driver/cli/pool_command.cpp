// `tpu pool`: max or average pooling of an NHWC int8 tensor from a .npy file, on a chosen backend,
// optionally checked against the golden reference.
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>

#include "commands.h"
#include "compare.h"
#include "compiler/layers.h"
#include "golden/padding.h"
#include "golden/pool.h"
#include "layer_options.h"
#include "output_paths.h"
#include "npy/header.h"
#include "report.h"
#include "tensor_files.h"

namespace tpu::cli {
namespace {

// The device's pooling limits (docs/isa.md, ACTIVATE: win_h/win_w 4 bits, stride_h/stride_w
// 2 bits), applied on every backend so that a pool runs the same everywhere.
constexpr int64_t kMaxWindow = 15;
constexpr int64_t kMaxStride = 3;

struct PoolOptions {
  std::string input, output;
  std::string mode;
  std::string window;  // "H" or "H,W"
  std::string stride;  // "S" or "SH,SW"; "" = the window
  std::string padding = "valid";
  int clamp_min = -128;
  int clamp_max = 127;
  LayerOptions layer;
};

std::string Pair(int64_t a, int64_t b, const char* sep) {
  return std::to_string(a) + sep + std::to_string(b);
}

int RunPool(const PoolOptions& o, const BackendFactory& make_backend) {
  const BackendOptions backend_options = ResolveBackendOptions(o.layer);
  compiler::PoolLayer layer;
  layer.kind = o.mode == "max" ? compiler::PoolKind::kMax : compiler::PoolKind::kAvg;
  golden::Pool2dParams& p = layer.params;
  std::tie(p.window_h, p.window_w) = ParseSizePair("--window", o.window, 1, kMaxWindow,
                                                   "the pooling window's height and width");
  if (o.stride.empty()) {
    // Keras' default: the stride is the window.
    if (p.window_h > kMaxStride || p.window_w > kMaxStride) {
      throw std::invalid_argument("--window " + o.window + ": the stride defaults to the window, " +
                                  "and strides above " + std::to_string(kMaxStride) +
                                  " do not run on the device: give --stride S[,S] with 1 <= S "
                                  "<= " + std::to_string(kMaxStride));
    }
    p.stride_h = p.window_h;
    p.stride_w = p.window_w;
  } else {
    std::tie(p.stride_h, p.stride_w) =
        ParseSizePair("--stride", o.stride, 1, kMaxStride, "the strides along height and width");
  }
  p.padding = o.padding == "same" ? golden::Padding::kSame : golden::Padding::kValid;
  if (o.clamp_min > o.clamp_max) {
    throw std::invalid_argument("--clamp-min " + std::to_string(o.clamp_min) + " --clamp-max " +
                                std::to_string(o.clamp_max) +
                                ": expected --clamp-min <= --clamp-max");
  }
  p.act_min = o.clamp_min;
  p.act_max = o.clamp_max;

  const golden::Tensor<int8_t> x = LoadInt8Tensor("--input", o.input, 4, "(N, H, W, C)");
  const int64_t batch = x.shape[0], h = x.shape[1], w = x.shape[2], c = x.shape[3];
  const auto axis = [&](int64_t in, int64_t window, int64_t stride, const char* name) {
    if (o.padding == "valid" && window > in) {
      throw std::invalid_argument(
          "--window " + o.window + ": the window " + name + " " + std::to_string(window) +
          " is larger than the input's " + std::to_string(in) + " (" + o.input + ", shape " +
          npy::ShapeRepr(x.shape) + ") with --padding valid: expected at most " +
          std::to_string(in) + ", or --padding same");
    }
    return golden::ComputePaddedAxis(p.padding, in, window, stride, "tpu pool", name).out_size;
  };
  const int64_t oh = axis(h, p.window_h, p.stride_h, "height");
  const int64_t ow = axis(w, p.window_w, p.stride_w, "width");
  compiler::CheckPoolLayer(layer, "tpu pool");
  CheckOutputPaths({{"--output", o.output}, {"--trace", o.layer.trace}}, {{"--input", o.input}});
  const std::unique_ptr<LayerBackend> backend = make_backend(o.layer.backend, backend_options);

  const auto start = std::chrono::steady_clock::now();
  LayerResult<int8_t> result = backend->RunPool(x, layer);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SaveTensor("--output", o.output, result.output);

  Report r("tpu pool: int8 " + o.mode + " pooling on the " + backend->name() + " backend");
  r.Add("backend", "backend", backend->name());
  std::string mismatch;
  if (o.layer.check) {
    const golden::Tensor<int8_t> want = layer.kind == compiler::PoolKind::kMax
                                            ? golden::MaxPool2d(x, p)
                                            : golden::AvgPool2d(x, p);
    mismatch = ReportCheck(r, backend->name(), "output", result.output, want);
  } else {
    r.Add("check", "check vs golden", "not requested (--check)");
  }
  r.Add("mode", "pooling", o.mode);
  r.Add("input_shape", "input (N, H, W, C) int8",
        "(" + Pair(batch, h, ", ") + ", " + Pair(w, c, ", ") + ")");
  r.Add("window", "window (height x width)", Pair(p.window_h, p.window_w, " x "));
  r.Add("strides", "strides (height, width)", Pair(p.stride_h, p.stride_w, ", "));
  r.Add("padding", "padding", o.padding);
  r.Add("clamp_min", "clamp minimum", int64_t{p.act_min});
  r.Add("clamp_max", "clamp maximum", int64_t{p.act_max});
  r.Add("output_shape", "output (N, OH, OW, C) int8",
        "(" + Pair(batch, oh, ", ") + ", " + Pair(ow, c, ", ") + ")");
  r.Add("input", "input file", o.input);
  r.Add("output", "output file", o.output);
  return FinishLayerReport(r, "tpu pool", o.layer, backend_options, result, 0, wall,
                           "multiply-accumulates (none)", mismatch);
}

}  // namespace

CommandRunner AddPoolCommand(CLI::App& app, BackendFactory make_backend) {
  auto opts = std::make_shared<PoolOptions>();
  auto* cmd = app.add_subcommand(
      "pool", "Run int8 max or average pooling over an NHWC tensor (TFLite semantics)");
  cmd->add_option("--input", opts->input, "input x: int8 .npy of shape (N, H, W, C)")
      ->type_name("X.npy")
      ->required();
  cmd->add_option("--mode", opts->mode, "max or avg (the mean, rounded half away from zero)")
      ->check(CLI::IsMember({"max", "avg"}))
      ->required();
  cmd->add_option("--window", opts->window,
                  "window height and width (one number: square), each 1 .. 15")
      ->type_name("H[,W]")
      ->required();
  cmd->add_option("--stride", opts->stride,
                  "strides along height and width (one number: both), each 1 .. 3; default: "
                  "the window")
      ->type_name("S[,S]");
  cmd->add_option("--padding", opts->padding,
                  "valid: windows inside the input; same: OH = ceil(H / SH), padded positions "
                  "left out of the window")
      ->check(CLI::IsMember({"valid", "same"}))
      ->capture_default_str();
  cmd->add_option("--clamp-min", opts->clamp_min, "lower bound of the pooled value")
      ->type_name("LO")
      ->check(CLI::Range(-128, 127))
      ->capture_default_str();
  cmd->add_option("--clamp-max", opts->clamp_max, "upper bound of the pooled value")
      ->type_name("HI")
      ->check(CLI::Range(-128, 127))
      ->capture_default_str();
  cmd->add_option("--output", opts->output, "where to write y: int8 .npy of shape (N, OH, OW, C)")
      ->type_name("Y.npy")
      ->required();
  AddLayerOptions(*cmd, opts->layer);
  return [opts, make_backend] { return RunPool(*opts, make_backend); };
}

}  // namespace tpu::cli
