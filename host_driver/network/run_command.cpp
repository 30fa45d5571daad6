// `tpu run NET.json --input X.npy --output Y.npy`: a network (docs/networks.md) layer by layer
// on a backend, with a per-layer report and totals, optionally checked against golden.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "checksum.h"
#include "commands.h"
#include "compare.h"
#include "golden/format.h"
#include "layer_options.h"
#include "network/network.h"
#include "network/network_run.h"
#include "npy/header.h"
#include "npy/npy.h"
#include "tensor_files.h"

namespace tpu::cli {
namespace {

using nlohmann::json;
using network::Layer;
using network::Network;

struct RunOptions {
  std::string network, input, output;
  bool check_layers = false;  // every intermediate through the host, every layer checked
  LayerOptions layer;
};

// "(1, 26, 26, 64)".
std::string ShapeText(const std::vector<int64_t>& shape) { return npy::ShapeRepr(shape); }

// Row-major index -> "[0][3][1][7]".
std::string IndexText(const std::vector<int64_t>& shape, size_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    index[i] = shape[i] ? int64_t(flat) % shape[i] : 0;
    flat = shape[i] ? flat / size_t(shape[i]) : 0;
  }
  std::string text;
  for (int64_t v : index) text += "[" + std::to_string(v) + "]";
  return text;
}

std::string CheckText(const Comparison& c) {
  if (!c.same_shape) return "FAIL (shape differs)";
  if (c.ok()) return "PASS";
  return "FAIL (" + std::to_string(c.mismatches) + " of " + std::to_string(c.total) + " differ)";
}

template <typename T>
json Opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

std::string Fixed(double v, int precision) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << v;
  return s.str();
}

// A figure summed over the layers: known only if every device layer measured it.
template <typename T>
class Sum {
 public:
  void Add(const std::optional<T>& v) {
    if (v) {
      value_ += *v;
    } else {
      known_ = false;
    }
  }
  std::optional<T> get() const { return known_ ? std::optional<T>(value_) : std::nullopt; }

 private:
  T value_{};
  bool known_ = true;
};

// PCIe payload bytes (to + from the device) per essential byte (network::EssentialBytes): 1 would
// be the minimum. conv2d's host-side im2col raises it: its image is about KH x KW / (sh x sw)
// times the input; padding to N and the instructions add to every layer.
std::optional<double> PcieOverEssential(const std::optional<int64_t>& to_device,
                                        const std::optional<int64_t>& from_device,
                                        int64_t essential) {
  if (!to_device || !from_device || essential <= 0) return std::nullopt;
  return double(*to_device + *from_device) / double(essential);
}

json EssentialJson(const network::EssentialBytes& b) {
  return {{"input", b.input}, {"weights", b.weights}, {"params", b.params},
          {"output", b.output}};
}

struct Totals {
  int64_t macs = 0;
  int64_t essential = 0;  // sum over the device layers
  Sum<int64_t> cycles, to_device, from_device, simulated_cycles;
  Sum<double> simulated_us, busy_n2;  // busy_n2: sum of MXU utilization x cycles
  double wall = 0;
};

// The simulated time of a layer: doorbell to interrupt, else the queue's time.
std::optional<double> SimulatedUs(const RunStats& s) {
  if (s.device_seconds) return *s.device_seconds * 1e6;
  if (s.cycles && s.clock_mhz) return double(*s.cycles) / *s.clock_mhz;
  return std::nullopt;
}

int Run(const RunOptions& o, const BackendFactory& make_backend) {
  // Everything that needs no simulation first: options, the network and all its files, the input.
  const BackendOptions backend_options = ResolveBackendOptions(o.layer);
  const Network net = network::LoadNetwork(o.network);
  golden::Tensor<int8_t> x;
  try {
    x = npy::Read<int8_t>(o.input);
  } catch (const npy::Error& e) {
    throw std::invalid_argument(std::string("--input: ") + e.what());
  }
  network::CheckNetworkInput(net, x, "--input: " + o.input);
  // Every layer lowered for the device before the model is built: a layer that cannot run
  // fails now, not after the layers before it have been simulated.
  if (o.layer.backend == "rtl") network::CheckLowering(net, network::RtlDeviceLimits());
  const std::unique_ptr<LayerBackend> backend = make_backend(o.layer.backend, backend_options);

  const bool check_on = o.layer.check || o.check_layers;
  network::RunOptions run_options;
  run_options.check = check_on;
  run_options.keep_in_ub = !o.check_layers;
  const bool progress = backend->name() != "golden";
  run_options.before_layer = [&](const Layer& layer) {
    if (!progress) return;
    std::fprintf(stderr, "tpu run: layer %d/%zu: %s \"%s\" %s -> %s\n", layer.index + 1,
                 net.layers.size(), network::LayerTypeName(layer.type), layer.name.c_str(),
                 ShapeText(layer.input_shape).c_str(), ShapeText(layer.output_shape).c_str());
    std::fflush(stderr);
  };
  const auto start = std::chrono::steady_clock::now();
  const network::NetworkRun run = network::RunNetwork(net, x, *backend, run_options);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SaveTensor("--output", o.output, run.output);

  // The check's verdict and the message for stderr.
  std::string check = "not requested (--check)", mismatch;
  if (check_on) {
    int first_bad = -1, checked = 0;
    for (size_t i = 0; i < run.layers.size(); ++i) {
      const auto& lc = run.layers[i].check;
      if (lc) ++checked;
      if (lc && !lc->ok() && first_bad < 0) first_bad = int(i);
    }
    const Comparison& c = *run.check;
    if (c.ok() && first_bad < 0) {
      const int kept = run.residency.ub_tensors;
      check = "PASS (" + std::to_string(c.total) + " int8 results bit-exact; " +
              (kept == 0 ? std::string("every layer bit-exact on its input")
                         : "the " + std::to_string(checked) +
                               " layer output(s) that reached the host bit-exact; " +
                               std::to_string(kept) +
                               " intermediate tensor(s) stayed in the UB, --check-layers checks "
                               "every layer") +
              ")";
    } else {
      check = c.ok() ? "FAIL (the final output matches, a layer does not)"
                     : "FAIL (" + std::to_string(c.mismatches) + " of " + std::to_string(c.total) +
                           " results differ)";
      if (first_bad >= 0) {
        const Layer& layer = net.layers[size_t(first_bad)];
        const Comparison& lc = *run.layers[size_t(first_bad)].check;
        mismatch = "--check: first wrong layer " + layer.Where() + ": " +
                   (lc.same_shape ? "first mismatch at output" +
                                        IndexText(layer.output_shape, lc.first) + ": " +
                                        backend->name() + " " + std::to_string(lc.got) +
                                        ", golden " + std::to_string(lc.want) + " (" +
                                        std::to_string(lc.mismatches) + " of " +
                                        std::to_string(lc.total) + " differ)"
                                  : std::string("shape differs"));
      } else {
        mismatch = "--check: the final output differs from golden";
      }
    }
  }

  // Per-layer rows and totals.
  Totals t;
  t.wall = wall;
  json layers = json::array();
  for (size_t i = 0; i < run.layers.size(); ++i) {
    const Layer& layer = net.layers[i];
    const network::LayerRun& lr = run.layers[i];
    const RunStats& s = lr.stats;
    t.macs += layer.macs();
    const network::EssentialBytes essential = layer.essential_bytes();
    json row = {{"index", layer.index},
                {"name", layer.name},
                {"type", network::LayerTypeName(layer.type)},
                {"summary", layer.summary},
                {"output_shape", layer.output_shape},
                {"macs", layer.macs()},
                {"on_host", lr.on_host},
                {"input_from", network::ResidenceName(lr.input_from)},
                {"output_to", network::ResidenceName(lr.output_to)},
                {"host_fallback", run.residency.layers[i].fallback.empty()
                                      ? json(nullptr)
                                      : json(run.residency.layers[i].fallback)},
                {"cycles", Opt(s.cycles)},
                {"mxu_utilization", Opt(s.mxu_utilization)},
                {"pcie_bytes_to_device", Opt(s.pcie_bytes_to_device)},
                {"pcie_bytes_from_device", Opt(s.pcie_bytes_from_device)},
                {"essential_bytes", essential.total()},
                {"essential_bytes_detail", EssentialJson(essential)},
                {"pcie_over_essential",
                 Opt(PcieOverEssential(s.pcie_bytes_to_device, s.pcie_bytes_from_device,
                                       essential.total()))},
                {"simulated_us", Opt(SimulatedUs(s))},
                {"wall_s", lr.wall_seconds},
                {"check", lr.check ? json(CheckText(*lr.check)) : json(nullptr)}};
    layers.push_back(row);
    if (lr.on_host) continue;
    t.essential += essential.total();
    t.cycles.Add(s.cycles);
    t.to_device.Add(s.pcie_bytes_to_device);
    t.from_device.Add(s.pcie_bytes_from_device);
    t.simulated_cycles.Add(s.simulated_cycles);
    t.simulated_us.Add(SimulatedUs(s));
    std::optional<double> busy;
    if (s.mxu_utilization && s.cycles) busy = *s.mxu_utilization * double(*s.cycles);
    t.busy_n2.Add(busy);
  }
  const std::optional<int64_t> cycles = t.cycles.get(), to_device = t.to_device.get(),
                               from_device = t.from_device.get(),
                               simulated_cycles = t.simulated_cycles.get();
  const std::optional<double> simulated_us = t.simulated_us.get(), busy = t.busy_n2.get();
  std::optional<double> utilization;
  if (busy && cycles && *cycles > 0) utilization = *busy / double(*cycles);
  const std::optional<double> pcie_over_essential =
      PcieOverEssential(to_device, from_device, t.essential);
  const network::EssentialBytes net_essential = network::NetworkEssentialBytes(net);
  const std::optional<double> pcie_over_network_essential =
      PcieOverEssential(to_device, from_device, net_essential.total());
  const int device_runs = int(std::count_if(run.layers.begin(), run.layers.end(),
                                            [](const auto& l) { return !l.on_host; }));

  const int kept = run.residency.ub_tensors;
  const std::string title =
      "tpu run: network \"" + net.name + "\" on the " + backend->name() + " backend (" +
      std::to_string(net.layers.size()) + " layers, " + std::to_string(device_runs) +
      " device runs; " +
      (kept == 0 ? std::string("every intermediate tensor returns to the host")
                 : std::to_string(kept) + " intermediate tensors stay in the UB") +
      ")";
  const std::string checksum = HexChecksum(Fnv1a64(run.output));
  const PcieLink& link = backend_options.link;
  const std::string link_text = link.ToString() + " (" +
                                golden::FormatReal(link.GigaTransfersPerLane()) +
                                " GT/s per lane, " + link.Encoding() + ")";

  if (o.layer.report == "json") {
    json r = {{"report", title},
              {"network", net.name},
              {"network_file", o.network},
              {"backend", backend->name()},
              {"check", check},
              {"input", o.input},
              {"input_shape", net.input_shape},
              {"input_zero_point", net.input_zero_point},
              {"output", o.output},
              {"output_shape", net.output_shape()},
              {"output_zero_point", net.output_zero_point()},
              {"output_checksum", checksum},
              {"pcie", link_text},
              {"device_runs", device_runs},
              {"ub_tensors", kept},
              {"layers", layers},
              {"totals",
               {{"macs", t.macs},
                {"cycles", Opt(cycles)},
                {"mxu_utilization", Opt(utilization)},
                {"pcie_bytes_to_device", Opt(to_device)},
                {"pcie_bytes_from_device", Opt(from_device)},
                {"essential_bytes", t.essential},
                {"pcie_over_essential", Opt(pcie_over_essential)},
                {"network_essential_bytes", net_essential.total()},
                {"network_essential_bytes_detail", EssentialJson(net_essential)},
                {"pcie_over_network_essential", Opt(pcie_over_network_essential)},
                {"simulated_us", Opt(simulated_us)},
                {"wall_s", t.wall},
                {"sim_kcycles_per_s",
                 simulated_cycles && t.wall > 0
                     ? json(double(*simulated_cycles) / t.wall / 1e3)
                     : json(nullptr)}}}};
    std::cout << r.dump() << "\n";
  } else {
    Report head(title);
    head.Add("network_file", "network", o.network);
    head.Add("input", "input",
             o.input + " " + ShapeText(net.input_shape) + " int8, zero point " +
                 std::to_string(net.input_zero_point));
    head.Add("output", "output",
             o.output + " " + ShapeText(net.output_shape()) + " int8, zero point " +
                 std::to_string(net.output_zero_point()));
    head.Add("output_checksum", "output checksum (FNV-1a 64)", checksum);
    head.Add("check", "check vs golden", check);
    head.Add("pcie", "PCIe link", link_text);
    head.PrintText(std::cout);
    // The table: n/a = not measured by this backend, "host" = ran on the host, "none" = nothing
    // ran (a flatten of a tensor in the UB: the same rows, read differently by the next layer).
    std::vector<std::vector<std::string>> rows = {
        {"#", "layer", "type", "output shape", "in->out", "MACs", "cycles", "MXU util",
         "PCIe to dev", "PCIe from dev", "essential", "PCIe/ess", "sim us", "wall s", "check"}};
    const auto opt_int = [](const std::optional<int64_t>& v) {
      return v ? std::to_string(*v) : std::string("n/a");
    };
    const auto opt_real = [](const std::optional<double>& v, int p) {
      return v ? Fixed(*v, p) : std::string("n/a");
    };
    for (size_t i = 0; i < run.layers.size(); ++i) {
      const Layer& layer = net.layers[i];
      const network::LayerRun& lr = run.layers[i];
      const RunStats& s = lr.stats;
      const bool in_ub = lr.output_to == network::Residence::kUb;
      const std::string check_cell = lr.check ? CheckText(*lr.check) : in_ub ? "(in UB)" : "-";
      const std::string in_out = std::string(network::ResidenceName(lr.input_from)) + "->" +
                                 network::ResidenceName(lr.output_to);
      if (lr.on_host) {
        rows.push_back({std::to_string(i), layer.name, network::LayerTypeName(layer.type),
                        ShapeText(layer.output_shape), in_out, "0", in_ub ? "none" : "host", "-",
                        "0", "0", "0", "-",
                        "-", Fixed(lr.wall_seconds, 3), check_cell});
        continue;
      }
      rows.push_back({std::to_string(i), layer.name, network::LayerTypeName(layer.type),
                      ShapeText(layer.output_shape), in_out, std::to_string(layer.macs()),
                      opt_int(s.cycles), opt_real(s.mxu_utilization, 4),
                      opt_int(s.pcie_bytes_to_device), opt_int(s.pcie_bytes_from_device),
                      std::to_string(layer.essential_bytes().total()),
                      opt_real(PcieOverEssential(s.pcie_bytes_to_device,
                                                 s.pcie_bytes_from_device,
                                                 layer.essential_bytes().total()),
                               2),
                      opt_real(SimulatedUs(s), 3), Fixed(lr.wall_seconds, 3), check_cell});
    }
    rows.push_back({"", "total", "", ShapeText(net.output_shape()), "", std::to_string(t.macs),
                    opt_int(cycles), opt_real(utilization, 4), opt_int(to_device),
                    opt_int(from_device), std::to_string(t.essential),
                    opt_real(pcie_over_essential, 2), opt_real(simulated_us, 3), Fixed(t.wall, 3),
                    run.check ? CheckText(*run.check) : "-"});
    std::vector<size_t> width(rows[0].size(), 0);
    for (const auto& row : rows) {
      for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    }
    std::cout << "\n";
    for (const auto& row : rows) {
      std::cout << " ";
      for (size_t c = 0; c < row.size(); ++c) {
        // Text columns left-aligned, numbers right-aligned.
        const bool left = c == 1 || c == 2 || c == 3 || c == 4 || c == 14;
        const bool last = c + 1 == row.size();
        std::cout << " " << (left ? std::left : std::right)
                  << std::setw(last && left ? 0 : int(width[c])) << row[c];
      }
      std::cout << "\n";
    }
    std::cout << "\n  layers: ";
    for (const Layer& layer : net.layers) {
      std::cout << (layer.index ? "; " : "") << layer.name << " = " << layer.summary;
    }
    std::cout << "\n";
    // Essential = input + weights + bias/requant/LUT + output of each layer run on its own; the
    // network's own: its input, all weights and parameters, its output (intermediate tensors
    // kept on the device).
    std::cout << "  essential bytes: " << t.essential << " summed over the device layers (PCIe "
              << opt_real(pcie_over_essential, 2) << "x that); " << net_essential.total()
              << " for the network (input " << net_essential.input << " + weights "
              << net_essential.weights << " + params " << net_essential.params << " + output "
              << net_essential.output << "; PCIe " << opt_real(pcie_over_network_essential, 2)
              << "x that)\n";
    if (simulated_cycles && t.wall > 0) {
      std::cout << "  simulation speed: " << Fixed(double(*simulated_cycles) / t.wall / 1e3, 1)
                << " kcycles/s\n";
    }
  }
  if (!mismatch.empty()) {
    std::cerr << "tpu run: " << mismatch << "\n";
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
  cmd->add_option("--input", opts->input, "the network's input: int8 .npy of the shape "
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
