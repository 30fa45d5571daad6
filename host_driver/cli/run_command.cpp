// `tpu run NET.json --input X.npy --output Y.npy`: a network (docs/networks.md) layer by layer
// on a backend, with a per-layer report and totals, optionally checked against golden. X holds
// any number of images, run in device batches (--batch), as int8 or float (--input-float); the
// output can also be written dequantized (--output-float) and scored against labels (--labels).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "commands.h"
#include "dataset_report.h"
#include "golden/format.h"
#include "layer_options.h"
#include "link_faults_report.h"
#include "network/accuracy.h"
#include "network/dataset_run.h"
#include "network/fold.h"
#include "output_paths.h"
#include "network/network.h"
#include "network/network_run.h"
#include "network/quantization.h"
#include "npy/header.h"
#include "npy/npy.h"
#include "progress_line.h"
#include "run_report.h"
#include "tensor_files.h"

namespace tpu::cli {
namespace {

using network::Layer;
using network::Network;

struct RunOptions {
  std::string network, input, output, output_float, labels;
  bool check_layers = false;  // every intermediate through the host, every layer checked
  bool input_float = false;   // X is float32/float64, quantized with the input's scale
  bool no_fold = false;       // run standalone activations as their own layers
  int64_t batch = 0;          // the device batch; 0: the network file's
  CLI::Option* batch_option = nullptr;  // to tell --batch 0 from no --batch
  LayerOptions layer;
};

// Everything a run needs, loaded and checked against each other before anything runs.
struct LoadedRun {
  Network net;  // folded unless --no-fold
  std::vector<network::FoldedActivation> folded;
  golden::Tensor<int8_t> input;  // (n, ...) int8
  int64_t images = 0;
  std::optional<golden::Tensor<int64_t>> labels;
  DatasetInfo info;
};

[[noreturn]] void Fail(const std::string& message) { throw std::invalid_argument(message); }

std::string ScaleText(double scale, int32_t zero_point) {
  return "scale " + golden::FormatReal(scale) + ", zero point " + std::to_string(zero_point);
}

golden::Tensor<int8_t> LoadInput(const RunOptions& o, const Network& net, DatasetInfo& info) {
  const std::string what = "--input: " + o.input;
  try {
    if (!o.input_float) {
      const std::string descr = npy::ReadHeader(o.input).descr;
      if (descr == "<f4" || descr == "<f8") {
        Fail(what + ": dtype '" + descr + "' (" + npy::DescribeDescr(descr) +
             "): expected int8; add --input-float to quantize real values with the network "
             "input's scale and zero point");
      }
      return npy::Read<int8_t>(o.input);
    }
    if (!net.input_scale) {
      Fail("--input-float: the network has no input scale: give \"scale\" (the real value of one "
           "input step) in the \"input\" of " + o.network + " (docs/networks.md \"Scales\")");
    }
    const golden::Tensor<double> x = npy::ReadReal(o.input);
    network::CountImages(net, x.shape, what);
    info.input_float = o.input + " quantized with " +
                       ScaleText(*net.input_scale, net.input_zero_point) +
                       " (TFLite's Quantize: round half away from zero, clamp to int8)";
    return network::QuantizeReal(x, *net.input_scale, net.input_zero_point, what);
  } catch (const npy::Error& e) {
    Fail(std::string("--input: ") + e.what());
  }
}

LoadedRun Load(const RunOptions& o) {
  LoadedRun loaded;
  Network parsed = network::LoadNetwork(o.network);
  if (o.no_fold) {
    loaded.net = std::move(parsed);
  } else {
    network::FoldedNetwork f = network::FoldActivations(parsed);
    loaded.net = std::move(f.network);
    loaded.folded = std::move(f.folded);
  }
  const Network& net = loaded.net;
  DatasetInfo& info = loaded.info;
  info.folded = loaded.folded;
  if (o.batch < 1 && o.batch_option && o.batch_option->count() > 0) {
    Fail("--batch " + std::to_string(o.batch) + ": expected a batch of 1 or more images");
  }
  loaded.input = LoadInput(o, net, info);
  loaded.images = network::CountImages(net, loaded.input.shape, "--input: " + o.input);
  info.images = loaded.images;
  info.batch = o.batch > 0 ? o.batch : net.input_shape[0];
  info.batches = int64_t(network::BatchSizes(info.images, info.batch).size());
  const std::set<std::string> outputs = {o.output, o.output_float};
  if (!o.output_float.empty() && outputs.size() == 1) {
    Fail("--output-float " + o.output_float + ": the same file as --output: give another name");
  }
  if (!o.output_float.empty()) {
    if (!net.output_scale()) {
      Fail("--output-float: the scale of the network's output is unknown: give \"output_scale\" "
           "to the last conv2d or dense layer of " + o.network +
           " (and to a lut after it), docs/networks.md \"Scales\"");
    }
    info.output_float = o.output_float + " float32, (q - " +
                        std::to_string(net.output_zero_point()) + ") x " +
                        golden::FormatReal(*net.output_scale());
  }
  if (!o.labels.empty()) {
    const std::vector<int64_t>& out = net.output_shape();
    if (out.size() != 2) {
      Fail("--labels: the network's output has shape " + npy::ShapeRepr(out) +
           " per batch: expected (batch, classes) scores to take the top-1 of (flatten and "
           "dense last)");
    }
    try {
      loaded.labels = npy::ReadIntegers(o.labels);
    } catch (const npy::Error& e) {
      Fail(std::string("--labels: ") + e.what());
    }
    network::CheckLabels(*loaded.labels, loaded.images, out[1], "--labels: " + o.labels);
    info.labels = o.labels;
  }
  return loaded;
}

int Run(const RunOptions& o, const BackendFactory& make_backend) {
  // Everything that needs no simulation first: options, the network and all its files, the
  // input, the labels.
  BackendOptions backend_options = ResolveBackendOptions(o.layer);
  LoadedRun loaded = Load(o);
  const Network& net = loaded.net;
  DatasetInfo& info = loaded.info;
  // Several batches have one progress line over the images; each program's own line would
  // interleave with it.
  if (info.batches > 1) backend_options.progress = nullptr;
  CheckOutputPaths(
      {{"--output", o.output}, {"--output-float", o.output_float}, {"--trace", o.layer.trace}},
      {{"NET.json", o.network}, {"--input", o.input}, {"--labels", o.labels}});
  const std::unique_ptr<LayerBackend> backend = make_backend(o.layer.backend, backend_options);
  // Every layer lowered for the device, at every batch size the run uses, before anything
  // runs: a layer that cannot run fails now, not after the layers before it have been simulated.
  if (const auto limits = backend->device_limits()) {
    const std::vector<int64_t> sizes = network::BatchSizes(info.images, info.batch);
    for (int64_t size : std::set<int64_t>(sizes.begin(), sizes.end())) {
      network::CheckLowering(network::WithBatch(net, size), *limits);
    }
  }

  const bool check_on = o.layer.check || o.check_layers;
  network::DatasetOptions options;
  options.batch = info.batch;
  options.run.check = check_on;
  options.run.keep_in_ub = !o.check_layers;
  // One batch: a line per layer as it starts on a device (today's); several: a progress line.
  const bool layer_lines = backend->name() != "golden" && info.batches == 1;
  size_t position = 0;
  options.run.before_layer = [&](const Layer& layer) {
    if (!layer_lines) return;
    std::fprintf(stderr, "tpu run: layer %zu/%zu: %s \"%s\" %s -> %s\n", ++position,
                 net.layers.size(), network::LayerTypeName(layer.type), layer.name.c_str(),
                 npy::ShapeRepr(layer.input_shape).c_str(),
                 npy::ShapeRepr(layer.output_shape).c_str());
    std::fflush(stderr);
  };
  BatchProgress progress;
  options.before_batch = [&](int64_t batch, int64_t batches, int64_t done, int64_t images) {
    if (batches > 1) progress.Before(batch, batches, done, images);
  };
  const auto start = std::chrono::steady_clock::now();
  const network::DatasetRun d = network::RunDataset(net, loaded.input, *backend, options);
  progress.Finish();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SaveTensor("--output", o.output, d.run.output);
  if (!o.output_float.empty()) {
    SaveTensor("--output-float", o.output_float,
               network::DequantizeInt8(d.run.output, *net.output_scale(),
                                       net.output_zero_point()));
  }
  if (loaded.labels) info.accuracy = network::ScoreTop1(d.run.output, *loaded.labels);

  // The report shows the data set as one batch of every image: shapes, MACs and essential
  // bytes for all of them, the device figures summed over the batches.
  const Network whole = network::WithBatch(net, info.images);
  const RunVerdict verdict = JudgeNetworkRun(whole, d.run, backend->name(), check_on);
  NetworkRunInfo report;
  report.format = o.layer.report;
  report.network_file = o.network;
  report.input = o.input;
  report.output = o.output;
  report.backend = backend->name();
  report.device = DeviceText(backend_options.device);
  report.pcie = LinkText(backend_options.link);
  report.wall_seconds = wall;
  report.dataset = info;
  report.pcie_faults = backend_options.pcie_faults;
  PrintNetworkRun(std::cout, whole, d.run, report, verdict);
  if (const std::string lost = LostTlpsMessage(SumDeviceStats(d.run)); !lost.empty()) {
    std::cerr << "tpu run: " << lost << "\n";
    return 1;
  }
  if (!verdict.mismatch.empty()) {
    std::cerr << "tpu run: " << verdict.mismatch << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

CommandRunner AddRunCommand(CLI::App& app, BackendFactory make_backend) {
  auto opts = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand(
      "run", "Run a network (a JSON list of layers, docs/networks.md) layer by layer");
  cmd->add_option("network", opts->network, "the network description")
      ->type_name("NET.json")
      ->required();
  cmd->add_option("--input", opts->input,
                  "the images: int8 .npy (n, ...) where ... is the shape NET.json's \"input\" "
                  "declares after its batch; n images, any number")
      ->type_name("X.npy")
      ->required();
  cmd->add_flag("--input-float", opts->input_float,
                "X.npy is float32 or float64: quantize it with the network input's \"scale\" "
                "and \"zero_point\" (TFLite's Quantize)");
  cmd->add_option("--output", opts->output,
                  "where to write the last layer's output for every image (int8 .npy)")
      ->type_name("Y.npy")
      ->required();
  cmd->add_option("--output-float", opts->output_float,
                  "also write the output dequantized, (q - zero point) x scale of the last "
                  "layer (float32 .npy)")
      ->type_name("F.npy");
  opts->batch_option = cmd->add_option("--batch", opts->batch,
                  "the device batch: images per run of the network (default: the batch of "
                  "NET.json's \"input\" \"shape\"); the last batch may be partial")
      ->type_name("B");
  cmd->add_option("--labels", opts->labels,
                  "integer .npy (n,) of true classes: report top-1 accuracy, per-class accuracy "
                  "and the confusion matrix of an (n, classes) output")
      ->type_name("L.npy");
  cmd->add_flag("--no-fold", opts->no_fold,
                "run standalone relu/relu6/clamp activations as layers of their own instead of "
                "folding them into the conv2d or dense layer before (bit-exact either way)");
  AddLayerOptions(*cmd, opts->layer);
  cmd->add_flag("--check-layers", opts->check_layers,
                "--check, with every intermediate tensor sent through the host so that every "
                "layer is checked on its own input (without it, tensors stay in the UB where "
                "they can and only the layers whose output reaches the host are checked)");
  return [opts, make_backend] { return Run(*opts, make_backend); };
}

}  // namespace tpu::cli
