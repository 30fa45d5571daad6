// `tpu conv2d`: one quantized 2-D convolution (NHWC input, HWIO weights as in Keras), tensors in
// and out as .npy files, on a chosen backend, optionally checked against the golden reference.
#include <chrono>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>

#include "commands.h"
#include "compare.h"
#include "compiler/layers.h"
#include "golden/conv.h"
#include "golden/padding.h"
#include "layer_options.h"
#include "output_paths.h"
#include "npy/header.h"
#include "report.h"
#include "requant_options.h"
#include "tensor_files.h"

namespace tpu::cli {
namespace {

struct Conv2dOptions {
  std::string input, weights, bias, output;
  int64_t stride = 1;
  std::string strides;  // "SH,SW"
  std::string padding = "valid";
  std::string conv_lowering = "auto";  // auto | window | im2col
  RequantOptions requant;
  LayerOptions layer;
};

std::string Dims(std::initializer_list<int64_t> dims, const char* sep = " x ") {
  std::string s;
  for (int64_t d : dims) s += (s.empty() ? "" : sep) + std::to_string(d);
  return s;
}

int RunConv2d(const Conv2dOptions& o, const BackendFactory& make_backend) {
  // Option mistakes before any file, files before the backend (no simulation, no waveform for
  // bad input): as `tpu dense`.
  BackendOptions backend_options = ResolveBackendOptions(o.layer);
  backend_options.conv = o.conv_lowering == "window"   ? compiler::ConvLowering::kWindow
                         : o.conv_lowering == "im2col" ? compiler::ConvLowering::kIm2col
                                                       : compiler::ConvLowering::kAuto;
  CheckRequantChoice(o.requant);
  compiler::Conv2dLayer layer;
  golden::Conv2dParams& params = layer.params;
  if (!o.strides.empty()) {
    const auto [sh, sw] =
        ParseSizePair("--strides", o.strides, 1, 1 << 16, "the strides along height and width");
    params.stride_h = sh;
    params.stride_w = sw;
  } else {
    params.stride_h = params.stride_w = o.stride;
  }
  params.padding = o.padding == "same" ? golden::Padding::kSame : golden::Padding::kValid;
  params.input_zero_point = o.requant.input_zero_point;

  const golden::Tensor<int8_t> x = LoadInt8Tensor("--input", o.input, 4, "(N, H, W, Cin)");
  layer.weights = LoadInt8Tensor("--weights", o.weights, 4, "(KH, KW, Cin, Cout)");
  const int64_t batch = x.shape[0], h = x.shape[1], w = x.shape[2], cin = x.shape[3];
  const int64_t kh = layer.weights.shape[0], kw = layer.weights.shape[1];
  const int64_t nout = layer.weights.shape[3];
  if (layer.weights.shape[2] != cin) {
    throw std::invalid_argument("--weights: " + o.weights + ": shape " +
                                npy::ShapeRepr(layer.weights.shape) +
                                ": expected (KH, KW, Cin, Cout) with Cin = " +
                                std::to_string(cin) + ", the channels of the input " + o.input);
  }
  // The output size along each axis (TensorFlow's SAME / VALID arithmetic); a VALID kernel
  // larger than the input has none.
  const auto axis = [&](int64_t in, int64_t k, int64_t stride, const char* name) {
    if (o.padding == "valid" && k > in) {
      throw std::invalid_argument("--weights: " + o.weights + ": shape " +
                                  npy::ShapeRepr(layer.weights.shape) + ": the kernel " + name +
                                  " " + std::to_string(k) + " is larger than the input's " +
                                  std::to_string(in) + " (" + o.input +
                                  ") with --padding valid: expected at most " +
                                  std::to_string(in) + ", or --padding same");
    }
    return golden::ComputePaddedAxis(params.padding, in, k, stride, "tpu conv2d", name)
        .out_size;
  };
  const int64_t oh = axis(h, kh, params.stride_h, "height");
  const int64_t ow = axis(w, kw, params.stride_w, "width");
  const std::string per_channel = "one per output channel (Cout = " + std::to_string(nout) +
                                  ", the last dimension of " + o.weights + ")";
  if (!o.bias.empty()) layer.bias = LoadInt32Vector("--bias", o.bias, nout, per_channel);
  const ResolvedRequant requant = ResolveRequant(o.requant, nout, o.weights);
  if (!requant.warning.empty()) {
    std::fprintf(stderr, "tpu conv2d: warning: %s\n", requant.warning.c_str());
  }
  layer.requant = requant.params;
  compiler::CheckConv2dLayer(layer, "tpu conv2d");
  CheckOutputPaths({{"--output", o.output}, {"--trace", o.layer.trace}},
                   {{"--input", o.input}, {"--weights", o.weights}, {"--bias", o.bias},
                    {"--multipliers", o.requant.multipliers_path}, {"--shifts", o.requant.shifts_path}});
  const std::unique_ptr<LayerBackend> backend = make_backend(o.layer.backend, backend_options);

  const auto start = std::chrono::steady_clock::now();
  LayerResult<int8_t> result = backend->RunConv2d(x, layer);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SaveTensor("--output", o.output, result.output);

  Report r("tpu conv2d: int8 2-D convolution on the " + backend->name() + " backend");
  r.Add("backend", "backend", backend->name());
  std::string mismatch;
  if (o.layer.check) {
    const golden::Tensor<int8_t> want =
        golden::Conv2d(x, layer.weights, layer.bias, layer.params, layer.requant);
    mismatch = ReportCheck(r, backend->name(), "output", result.output, want);
  } else {
    r.Add("check", "check vs golden", "not requested (--check)");
  }
  r.Add("input_shape", "input (N, H, W, Cin) int8", "(" + Dims({batch, h, w, cin}, ", ") + ")");
  r.Add("kernel", "kernel (KH x KW, Cin -> Cout)",
        Dims({kh, kw}) + ", " + std::to_string(cin) + " -> " + std::to_string(nout));
  r.Add("strides", "strides (height, width)", Dims({params.stride_h, params.stride_w}, ", "));
  r.Add("padding", "padding", o.padding);
  r.Add("output_shape", "output (N, OH, OW, Cout) int8",
        "(" + Dims({batch, oh, ow, nout}, ", ") + ")");
  r.Add("input", "input file", o.input);
  r.Add("weights", "weights (KH, KW, Cin, Cout) int8", o.weights);
  r.Add("bias", "bias (Cout,) int32", o.bias.empty() ? std::string("none") : o.bias);
  r.Add("requant", "requantization", requant.description);
  r.Add("input_zero_point", "input zero point (the padding value)",
        int64_t{o.requant.input_zero_point});
  r.Add("output_zero_point", "output zero point", int64_t{o.requant.output_zero_point});
  r.Add("activation", "activation", o.requant.activation);
  r.Add("clamp_min", "clamp minimum", int64_t{requant.params.act_min});
  r.Add("clamp_max", "clamp maximum", int64_t{requant.params.act_max});
  r.Add("output", "output file", o.output);
  r.Add("conv_lowering", "conv lowering asked for (--conv-lowering)", o.conv_lowering);
  if (result.stats.lowering.empty()) {
    r.AddNotAvailable("lowering", "lowering",
                      "the " + backend->name() + " backend computes on the host");
  }
  const int64_t macs = batch * oh * ow * kh * kw * cin * nout;
  return FinishLayerReport(r, "tpu conv2d", o.layer, backend_options, result, macs, wall,
                           "multiply-accumulates (N x OH x OW x KH x KW x Cin x Cout)", mismatch);
}

}  // namespace

CommandRunner AddConv2dCommand(CLI::App& app, BackendFactory make_backend) {
  auto opts = std::make_shared<Conv2dOptions>();
  auto* cmd = app.add_subcommand(
      "conv2d",
      "Run a quantized int8 2-D convolution (NHWC input, Keras HWIO kernel, SAME/VALID padding "
      "with the input zero point)");
  cmd->add_option("--input", opts->input, "input x: int8 .npy of shape (N, H, W, Cin)")
      ->type_name("X.npy")
      ->required();
  cmd->add_option("--weights", opts->weights,
                  "kernel W: int8 .npy of shape (KH, KW, Cin, Cout), the Keras Conv2D layout")
      ->type_name("W.npy")
      ->required();
  cmd->add_option("--bias", opts->bias, "bias b: int32 .npy of shape (Cout,)")->type_name("B.npy");
  auto* stride = cmd->add_option("--stride", opts->stride, "the same stride along both axes")
                     ->type_name("S")
                     ->check(CLI::Range(int64_t{1}, int64_t{1} << 16))
                     ->capture_default_str();
  cmd->add_option("--strides", opts->strides, "strides along the height and the width")
      ->type_name("SH,SW")
      ->excludes(stride);
  cmd->add_option("--padding", opts->padding,
                  "valid: windows inside the input; same: OH = ceil(H / SH), padded with the "
                  "input zero point")
      ->check(CLI::IsMember({"valid", "same"}))
      ->capture_default_str();
  cmd->add_option("--conv-lowering", opts->conv_lowering,
                  "how a device backend runs the convolution: window (MATMUL slides over the "
                  "input in the UB: input, weights and output cross PCIe once), im2col (host-side "
                  "im2col onto the dense lowering), auto (the window when the layer fits it and "
                  "it moves fewer PCIe bytes); the report's `lowering` says which ran")
      ->check(CLI::IsMember({"auto", "window", "im2col"}))
      ->capture_default_str();
  AddRequantOptions(*cmd, opts->requant);
  cmd->add_option("--output", opts->output, "where to write y: int8 .npy of shape (N, OH, OW, Cout)")
      ->type_name("Y.npy")
      ->required();
  AddLayerOptions(*cmd, opts->layer);
  return [opts, make_backend] { return RunConv2d(*opts, make_backend); };
}

}  // namespace tpu::cli
