// `tpu run NET.json --input X.npy --output Y.npy`: a network (docs/networks.md) layer by layer
// on a backend, with a per-layer report and totals, optionally checked against golden.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "commands.h"
#include "layer_options.h"
#include "output_paths.h"
#include "network/network.h"
#include "network/network_run.h"
#include "npy/header.h"
#include "npy/npy.h"
#include "run_report.h"
#include "tensor_files.h"

namespace tpu::cli {
namespace {

using network::Layer;
using network::Network;

struct RunOptions {
  std::string network, input, output;
  bool check_layers = false;  // every intermediate through the host, every layer checked
  LayerOptions layer;
};

// The network and its input, loaded and checked against each other.
struct LoadedRun {
  Network net;
  golden::Tensor<int8_t> input;
};

LoadedRun Load(const RunOptions& o) {
  LoadedRun loaded{network::LoadNetwork(o.network), {}};
  try {
    loaded.input = npy::Read<int8_t>(o.input);
  } catch (const npy::Error& e) {
    throw std::invalid_argument(std::string("--input: ") + e.what());
  }
  network::CheckNetworkInput(loaded.net, loaded.input, "--input: " + o.input);
  return loaded;
}

int Run(const RunOptions& o, const BackendFactory& make_backend) {
  // Everything that needs no simulation first: options, the network and all its files, the input.
  const BackendOptions backend_options = ResolveBackendOptions(o.layer);
  const LoadedRun loaded = Load(o);
  const Network& net = loaded.net;
  CheckOutputPaths({{"--output", o.output}, {"--trace", o.layer.trace}},
                   {{"NET.json", o.network}, {"--input", o.input}});
  const std::unique_ptr<LayerBackend> backend = make_backend(o.layer.backend, backend_options);
  // Every layer lowered for the device before anything runs: a layer that cannot run fails
  // now, not after the layers before it have been simulated.
  if (const auto limits = backend->device_limits()) network::CheckLowering(net, *limits);

  const bool check_on = o.layer.check || o.check_layers;
  network::RunOptions run_options;
  run_options.check = check_on;
  run_options.keep_in_ub = !o.check_layers;
  const bool progress = backend->name() != "golden";
  run_options.before_layer = [&](const Layer& layer) {
    if (!progress) return;
    std::fprintf(stderr, "tpu run: layer %d/%zu: %s \"%s\" %s -> %s\n", layer.index + 1,
                 net.layers.size(), network::LayerTypeName(layer.type), layer.name.c_str(),
                 npy::ShapeRepr(layer.input_shape).c_str(),
                 npy::ShapeRepr(layer.output_shape).c_str());
    std::fflush(stderr);
  };
  const auto start = std::chrono::steady_clock::now();
  const network::NetworkRun run = network::RunNetwork(net, loaded.input, *backend, run_options);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SaveTensor("--output", o.output, run.output);

  const RunVerdict verdict = JudgeNetworkRun(net, run, backend->name(), check_on);
  NetworkRunInfo info;
  info.format = o.layer.report;
  info.network_file = o.network;
  info.input = o.input;
  info.output = o.output;
  info.backend = backend->name();
  info.device = DeviceText(backend_options.device);
  info.pcie = LinkText(backend_options.link);
  info.wall_seconds = wall;
  PrintNetworkRun(std::cout, net, run, info, verdict);
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
                  "the network's input: int8 .npy of the shape "
                  "NET.json's \"input\" declares")
      ->type_name("X.npy")
      ->required();
  cmd->add_option("--output", opts->output, "where to write the last layer's output (int8 .npy)")
      ->type_name("Y.npy")
      ->required();
  AddLayerOptions(*cmd, opts->layer);
  cmd->add_flag("--check-layers", opts->check_layers,
                "--check, with every intermediate tensor sent through the host so that every "
                "layer is checked on its own input (without it, tensors stay in the UB where "
                "they can and only the layers whose output reaches the host are checked)");
  return [opts, make_backend] { return Run(*opts, make_backend); };
}

}  // namespace tpu::cli
