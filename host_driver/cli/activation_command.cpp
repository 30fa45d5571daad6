// `tpu activation`: an element-wise int8 activation (ReLU, ReLU6 as clamps; any function as a
// 256-entry lookup table) of a tensor from a .npy file, on a chosen backend, optionally checked
// against the golden reference.
#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.h"
#include "compare.h"
#include "compiler/layers.h"
#include "golden/activation.h"
#include "layer_options.h"
#include "output_paths.h"
#include "npy/header.h"
#include "report.h"
#include "tensor_files.h"

namespace tpu::cli {
namespace {

struct ActivationOptions {
  std::string input, output;
  std::string function;
  std::string lut;
  int zero_point = 0;
  double scale = 0.0;
  CLI::Option* scale_opt = nullptr;
  CLI::Option* zero_point_opt = nullptr;
  LayerOptions layer;
};

golden::Tensor<int8_t> Golden(const golden::Tensor<int8_t>& x,
                              const compiler::ActivationLayer& layer) {
  golden::Tensor<int8_t> y = x;
  for (int8_t& v : y.data) {
    v = static_cast<int8_t>(std::clamp<int32_t>(v, layer.act_min, layer.act_max));
  }
  return layer.lut ? golden::ApplyLut(y, *layer.lut) : y;
}

int RunActivation(const ActivationOptions& o, const BackendFactory& make_backend) {
  const BackendOptions backend_options = ResolveBackendOptions(o.layer);
  const bool lut = o.function == "lut";
  if (lut && o.lut.empty()) {
    throw std::invalid_argument("--function lut needs --lut L.npy (256 int8 values, entry i "
                                "holding f(i - 128))");
  }
  if (!lut && !o.lut.empty()) {
    throw std::invalid_argument("--lut " + o.lut + ": only with --function lut (--function " +
                                o.function + " is a clamp)");
  }
  if (lut && (o.scale_opt->count() > 0 || o.zero_point_opt->count() > 0)) {
    throw std::invalid_argument(
        "--function lut: the table is the whole function; --output-zero-point and "
        "--output-scale place the ReLU bounds and do not apply");
  }
  if (o.function == "relu6" && o.scale_opt->count() == 0) {
    throw std::invalid_argument(
        "--function relu6 needs --output-scale F (the real value of one int8 step) to place "
        "6.0 on the int8 scale");
  }
  compiler::ActivationLayer layer;
  if (!lut) {
    const golden::Activation act =
        o.function == "relu6" ? golden::Activation::kRelu6 : golden::Activation::kRelu;
    // ReLU's bound does not depend on the scale; any valid one will do.
    const float scale = o.scale_opt->count() > 0 ? float(o.scale) : 1.0f;
    try {
      const golden::ActivationRange range =
          golden::QuantizedActivationRange(act, scale, o.zero_point);
      layer.act_min = range.min;
      layer.act_max = range.max;
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--function " + o.function + ": " + e.what());
    }
  }

  const golden::Tensor<int8_t> x = LoadInt8Tensor("--input", o.input, 0, "(..., C)");
  if (lut) {
    const std::vector<int8_t> table =
        LoadInt8Vector("--lut", o.lut, 256, "one int8 output per int8 input, entry i = f(i - 128)");
    golden::Lut t;
    std::copy(table.begin(), table.end(), t.begin());
    layer.lut = t;
  }
  compiler::CheckActivationLayer(layer, "tpu activation");
  CheckOutputPaths({{"--output", o.output}, {"--trace", o.layer.trace}},
                   {{"--input", o.input}, {"--lut", o.lut}});
  const std::unique_ptr<LayerBackend> backend = make_backend(o.layer.backend, backend_options);

  const auto start = std::chrono::steady_clock::now();
  LayerResult<int8_t> result = backend->RunActivation(x, layer);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SaveTensor("--output", o.output, result.output);

  Report r("tpu activation: int8 " + o.function + " on the " + backend->name() + " backend");
  r.Add("backend", "backend", backend->name());
  std::string mismatch;
  if (o.layer.check) {
    mismatch = ReportCheck(r, backend->name(), "output", result.output, Golden(x, layer));
  } else {
    r.Add("check", "check vs golden", "not requested (--check)");
  }
  r.Add("function", "function", o.function);
  r.Add("shape", "shape (input = output) int8", npy::ShapeRepr(x.shape));
  r.Add("elements", "elements", x.NumElements());
  if (lut) {
    r.Add("lut", "lookup table (256,) int8", o.lut);
  } else {
    r.Add("zero_point", "zero point (input = output)", int64_t{o.zero_point});
    if (o.scale_opt->count() > 0) r.Add("scale", "output scale", o.scale, "", 6);
  }
  r.Add("clamp_min", "clamp minimum", int64_t{layer.act_min});
  r.Add("clamp_max", "clamp maximum", int64_t{layer.act_max});
  r.Add("input", "input file", o.input);
  r.Add("output", "output file", o.output);
  return FinishLayerReport(r, "tpu activation", o.layer, backend_options, result, 0, wall,
                           "multiply-accumulates (none)", mismatch);
}

}  // namespace

CommandRunner AddActivationCommand(CLI::App& app, BackendFactory make_backend) {
  auto opts = std::make_shared<ActivationOptions>();
  auto* cmd = app.add_subcommand(
      "activation",
      "Apply an int8 activation element-wise: relu, relu6 (clamps) or a lookup table");
  cmd->add_option("--input", opts->input,
                  "input x: int8 .npy of any shape (rank >= 1, last dimension = channels)")
      ->type_name("X.npy")
      ->required();
  cmd->add_option("--function", opts->function,
                  "relu: clamp at the zero point; relu6: also at the zero point + 6 / scale; "
                  "lut: y = L[x + 128]")
      ->check(CLI::IsMember({"relu", "relu6", "lut"}))
      ->required();
  cmd->add_option("--lut", opts->lut, "with --function lut: int8 .npy of shape (256,)")
      ->type_name("L.npy");
  opts->zero_point_opt =
      cmd->add_option("--output-zero-point", opts->zero_point,
                      "zero point of x and y (relu, relu6: where the real 0.0 is)")
          ->type_name("Z")
          ->check(CLI::Range(-128, 127))
          ->capture_default_str();
  opts->scale_opt = cmd->add_option("--output-scale", opts->scale,
                                    "real value of one int8 step; places 6.0 for relu6")
                        ->type_name("F")
                        ->check(CLI::PositiveNumber);
  cmd->add_option("--output", opts->output, "where to write y: int8 .npy of x's shape")
      ->type_name("Y.npy")
      ->required();
  AddLayerOptions(*cmd, opts->layer);
  return [opts, make_backend] { return RunActivation(*opts, make_backend); };
}

}  // namespace tpu::cli
