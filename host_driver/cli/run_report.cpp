#include "run_report.h"

#include <algorithm>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <vector>

#include "checksum.h"
#include "layer_options.h"
#include "link_faults_report.h"
#include "npy/header.h"
#include "report.h"

namespace tpu::cli {
namespace {

// Stall cycles by cause ({"weights": ..., ...}), or null where the backend counts none.
nlohmann::json StallsJson(const runtime::RunStats& st) {
  if (st.stalls.empty()) return nullptr;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [cause, cycles] : st.stalls) out[cause] = cycles;
  return out;
}

using network::Layer;
using network::Network;
using nlohmann::json;
using runtime::Comparison;

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
  return {{"input", b.input}, {"weights", b.weights}, {"params", b.params}, {"output", b.output}};
}

struct Totals {
  int64_t macs = 0;
  int64_t essential = 0;  // sum over the device layers
  Sum<int64_t> cycles, to_device, from_device, simulated_cycles;
  Sum<double> simulated_us, busy_n2;  // busy_n2: sum of MXU utilization x cycles
  double wall = 0;
};

// The simulated time of a layer: doorbell to interrupt, else the queue's time.
std::optional<double> SimulatedUs(const runtime::RunStats& s) {
  if (s.device_seconds) return *s.device_seconds * 1e6;
  if (s.cycles && s.clock_mhz) return double(*s.cycles) / *s.clock_mhz;
  return std::nullopt;
}

// The figures of a run the report shows, layer by layer and in total.
struct RunSummary {
  Totals t;
  json layers = json::array();  // the JSON report's rows
  std::optional<int64_t> cycles, to_device, from_device, simulated_cycles;
  std::optional<double> simulated_us, utilization, pcie_over_essential, pcie_over_network_essential;
  network::EssentialBytes net_essential;
  int device_runs = 0;
  std::string title, checksum;
};

RunSummary Summarize(const Network& net, const network::NetworkRun& run,
                     const NetworkRunInfo& info) {
  RunSummary s;
  Totals& t = s.t;
  t.wall = info.wall_seconds;
  json& layers = s.layers;
  for (size_t i = 0; i < run.layers.size(); ++i) {
    const Layer& layer = net.layers[i];
    const network::LayerRun& lr = run.layers[i];
    const runtime::RunStats& st = lr.stats;
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
                {"cycles", Opt(st.cycles)},
                {"mxu_utilization", Opt(st.mxu_utilization)},
                {"stalls", StallsJson(st)},
                {"pcie_bytes_to_device", Opt(st.pcie_bytes_to_device)},
                {"pcie_bytes_from_device", Opt(st.pcie_bytes_from_device)},
                {"essential_bytes", essential.total()},
                {"essential_bytes_detail", EssentialJson(essential)},
                {"pcie_over_essential",
                 Opt(PcieOverEssential(st.pcie_bytes_to_device, st.pcie_bytes_from_device,
                                       essential.total()))},
                {"simulated_us", Opt(SimulatedUs(st))},
                {"wall_s", lr.wall_seconds},
                {"check", lr.check ? json(CheckText(*lr.check)) : json(nullptr)}};
    layers.push_back(row);
    if (lr.on_host) continue;
    t.essential += essential.total();
    t.cycles.Add(st.cycles);
    t.to_device.Add(st.pcie_bytes_to_device);
    t.from_device.Add(st.pcie_bytes_from_device);
    t.simulated_cycles.Add(st.simulated_cycles);
    t.simulated_us.Add(SimulatedUs(st));
    std::optional<double> busy;
    if (st.mxu_utilization && st.cycles) busy = *st.mxu_utilization * double(*st.cycles);
    t.busy_n2.Add(busy);
  }
  s.cycles = t.cycles.get();
  s.to_device = t.to_device.get();
  s.from_device = t.from_device.get();
  s.simulated_cycles = t.simulated_cycles.get();
  s.simulated_us = t.simulated_us.get();
  const std::optional<double> busy = t.busy_n2.get();
  if (busy && s.cycles && *s.cycles > 0) s.utilization = *busy / double(*s.cycles);
  s.pcie_over_essential = PcieOverEssential(s.to_device, s.from_device, t.essential);
  s.net_essential = network::NetworkEssentialBytes(net);
  s.pcie_over_network_essential =
      PcieOverEssential(s.to_device, s.from_device, s.net_essential.total());
  s.device_runs = int(std::count_if(run.layers.begin(), run.layers.end(),
                                    [](const auto& l) { return !l.on_host; }));

  const int kept = run.residency.ub_tensors;
  const DatasetInfo& d = info.dataset;
  s.title = "tpu run: network \"" + net.name + "\" on the " + info.backend + " backend (" +
            std::to_string(net.layers.size()) + " layers, " + std::to_string(s.device_runs) +
            " device runs" +
            (d.batches > 1 ? " per batch, " + std::to_string(d.batches) + " batches of " +
                                 std::to_string(d.batch)
                           : std::string()) +
            "; " +
            (kept == 0 ? std::string("every intermediate tensor returns to the host")
                       : std::to_string(kept) + " intermediate tensors stay in the UB") +
            ")";
  s.checksum = HexChecksum(Fnv1a64(run.output));
  return s;
}

// Where the cycles and times come from: a simulation, or the model device's estimate.
std::string TimingText(const network::NetworkRun& run) {
  bool simulated = false;
  for (const network::LayerRun& l : run.layers) {
    if (l.stats.timing_estimated) return kEstimatedTiming;
    simulated = simulated || l.stats.cycles.has_value();
  }
  return simulated ? "simulated cycle by cycle (the RTL)" : "none (no device ran)";
}

// The report as one JSON object (--report json).
void PrintJson(std::ostream& out, const Network& net, const network::NetworkRun& run,
               const NetworkRunInfo& info, const RunVerdict& verdict, const RunSummary& s) {
  const Totals& t = s.t;
  const int kept = run.residency.ub_tensors;
  json r = {{"report", s.title},
            {"network", net.name},
            {"network_file", info.network_file},
            {"backend", info.backend},
            {"device", info.device},
            {"check", verdict.check},
            {"input", info.input},
            {"input_shape", net.input_shape},
            {"input_zero_point", net.input_zero_point},
            {"output", info.output},
            {"output_shape", net.output_shape()},
            {"output_zero_point", net.output_zero_point()},
            {"output_checksum", s.checksum},
            {"pcie", info.pcie},
            {"timing", TimingText(run)},
            {"device_runs", s.device_runs},
            {"ub_tensors", kept},
            {"layers", s.layers},
            {"totals",
             {{"macs", t.macs},
              {"cycles", Opt(s.cycles)},
              {"mxu_utilization", Opt(s.utilization)},
              {"pcie_bytes_to_device", Opt(s.to_device)},
              {"pcie_bytes_from_device", Opt(s.from_device)},
              {"essential_bytes", t.essential},
              {"pcie_over_essential", Opt(s.pcie_over_essential)},
              {"network_essential_bytes", s.net_essential.total()},
              {"network_essential_bytes_detail", EssentialJson(s.net_essential)},
              {"pcie_over_network_essential", Opt(s.pcie_over_network_essential)},
              {"simulated_us", Opt(s.simulated_us)},
              {"wall_s", t.wall},
              {"sim_kcycles_per_s", s.simulated_cycles && t.wall > 0
                                        ? json(double(*s.simulated_cycles) / t.wall / 1e3)
                                        : json(nullptr)}}}};
  if (info.pcie_faults) r["pcie_link"] = LinkFaultsJson(*info.pcie_faults, SumDeviceStats(run));
  const runtime::RunStats device_stats = SumDeviceStats(run);
  r["retries"] = device_stats.recovered_errors.size();
  r["recovered_errors"] = device_stats.recovered_errors;
  r["output_scale"] = Opt(net.output_scale());
  r["input_scale"] = Opt(net.input_scale);
  AddDatasetJson(r, info.dataset, RatesOf(info.dataset.images, s.simulated_us, t.wall));
  out << r.dump() << "\n";
}

// The report for people: the head, the per-layer table with totals, the essential bytes.
void PrintText(std::ostream& out, const Network& net, const network::NetworkRun& run,
               const NetworkRunInfo& info, const RunVerdict& verdict, const RunSummary& sum) {
  const Totals& t = sum.t;
  Report head(sum.title);
  head.Add("network_file", "network", info.network_file);
  head.Add("input", "input",
           info.input + " " + ShapeText(net.input_shape) +
               (info.dataset.input_float.empty() ? " int8" : " float, quantized to int8") +
               ", zero point " + std::to_string(net.input_zero_point));
  head.Add("output", "output",
           info.output + " " + ShapeText(net.output_shape()) + " int8, zero point " +
               std::to_string(net.output_zero_point()));
  head.Add("output_checksum", "output checksum (FNV-1a 64)", sum.checksum);
  head.Add("check", "check vs golden", verdict.check);
  head.Add("device", "device", info.device);
  head.Add("pcie", "PCIe link", info.pcie);
  head.Add("timing", "timing", TimingText(run));
  if (info.pcie_faults) AddLinkFaultFigures(head, *info.pcie_faults, SumDeviceStats(run));
  AddRecoveryFigures(head, SumDeviceStats(run));
  head.PrintText(out);
  // The table: n/a = not measured by this backend, "host" = ran on the host, "none" = nothing
  // ran (a flatten of a tensor in the UB: the same rows, read differently by the next layer).
  std::vector<std::vector<std::string>> rows = {
      {"#", "layer", "type", "output shape", "in->out", "MACs", "cycles", "MXU util", "PCIe to dev",
       "PCIe from dev", "essential", "PCIe/ess", "sim us", "wall s", "check"}};
  const auto opt_int = [](const std::optional<int64_t>& v) {
    return v ? std::to_string(*v) : std::string("n/a");
  };
  const auto opt_real = [](const std::optional<double>& v, int p) {
    return v ? Fixed(*v, p) : std::string("n/a");
  };
  for (size_t i = 0; i < run.layers.size(); ++i) {
    const Layer& layer = net.layers[i];
    const network::LayerRun& lr = run.layers[i];
    const runtime::RunStats& s = lr.stats;
    const bool in_ub = lr.output_to == network::Residence::kUb;
    const std::string check_cell = lr.check ? CheckText(*lr.check) : in_ub ? "(in UB)" : "-";
    const std::string in_out = std::string(network::ResidenceName(lr.input_from)) + "->" +
                               network::ResidenceName(lr.output_to);
    if (lr.on_host) {
      rows.push_back({std::to_string(i), layer.name, network::LayerTypeName(layer.type),
                      ShapeText(layer.output_shape), in_out, "0", in_ub ? "none" : "host", "-", "0",
                      "0", "0", "-", "-", Fixed(lr.wall_seconds, 3), check_cell});
      continue;
    }
    rows.push_back({std::to_string(i), layer.name, network::LayerTypeName(layer.type),
                    ShapeText(layer.output_shape), in_out, std::to_string(layer.macs()),
                    opt_int(s.cycles), opt_real(s.mxu_utilization, 4),
                    opt_int(s.pcie_bytes_to_device), opt_int(s.pcie_bytes_from_device),
                    std::to_string(layer.essential_bytes().total()),
                    opt_real(PcieOverEssential(s.pcie_bytes_to_device, s.pcie_bytes_from_device,
                                               layer.essential_bytes().total()),
                             2),
                    opt_real(SimulatedUs(s), 3), Fixed(lr.wall_seconds, 3), check_cell});
  }
  rows.push_back({"", "total", "", ShapeText(net.output_shape()), "", std::to_string(t.macs),
                  opt_int(sum.cycles), opt_real(sum.utilization, 4), opt_int(sum.to_device),
                  opt_int(sum.from_device), std::to_string(t.essential),
                  opt_real(sum.pcie_over_essential, 2), opt_real(sum.simulated_us, 3),
                  Fixed(t.wall, 3), run.check ? CheckText(*run.check) : "-"});
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  out << "\n";
  for (const auto& row : rows) {
    out << " ";
    for (size_t c = 0; c < row.size(); ++c) {
      // Text columns left-aligned, numbers right-aligned.
      const bool left = c == 1 || c == 2 || c == 3 || c == 4 || c == 14;
      const bool last = c + 1 == row.size();
      out << " " << (left ? std::left : std::right) << std::setw(last && left ? 0 : int(width[c]))
          << row[c];
    }
    out << "\n";
  }
  out << "\n  layers: ";
  for (const Layer& layer : net.layers) {
    out << (layer.index ? "; " : "") << layer.name << " = " << layer.summary;
  }
  out << "\n";
  // Essential = input + weights + bias/requant/LUT + output of each layer run on its own; the
  // network's own: its input, all weights and parameters, its output (intermediate tensors
  // kept on the device).
  out << "  essential bytes: " << t.essential << " summed over the device layers (PCIe "
      << opt_real(sum.pcie_over_essential, 2) << "x that); " << sum.net_essential.total()
      << " for the network (input " << sum.net_essential.input << " + weights "
      << sum.net_essential.weights << " + params " << sum.net_essential.params << " + output "
      << sum.net_essential.output << "; PCIe " << opt_real(sum.pcie_over_network_essential, 2)
      << "x that)\n";
  if (sum.simulated_cycles && t.wall > 0) {
    out << "  simulation speed: " << Fixed(double(*sum.simulated_cycles) / t.wall / 1e3, 1)
        << " kcycles/s\n";
  }
  PrintDatasetText(out, info.dataset, RatesOf(info.dataset.images, sum.simulated_us, t.wall));
}

}  // namespace

runtime::RunStats SumDeviceStats(const network::NetworkRun& run) {
  std::optional<runtime::RunStats> total;
  for (const network::LayerRun& l : run.layers) {
    if (l.on_host) continue;
    if (total) {
      runtime::AddRunStats(*total, l.stats);
    } else {
      total = l.stats;
    }
  }
  return total.value_or(runtime::RunStats{});
}

RunVerdict JudgeNetworkRun(const Network& net, const network::NetworkRun& run,
                           const std::string& backend, bool check_on) {
  RunVerdict verdict;
  std::string& check = verdict.check;
  std::string& mismatch = verdict.mismatch;
  check = "not requested (--check)";
  if (!check_on) return verdict;
  {
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
        mismatch =
            "--check: first wrong layer " + layer.Where() + ": " +
            (lc.same_shape ? "first mismatch at output" + IndexText(layer.output_shape, lc.first) +
                                 ": " + backend + " " + std::to_string(lc.got) + ", golden " +
                                 std::to_string(lc.want) + " (" + std::to_string(lc.mismatches) +
                                 " of " + std::to_string(lc.total) + " differ)"
                           : std::string("shape differs"));
      } else {
        mismatch = "--check: the final output differs from golden";
      }
    }
  }

  return verdict;
}

void PrintNetworkRun(std::ostream& out, const Network& net, const network::NetworkRun& run,
                     const NetworkRunInfo& info, const RunVerdict& verdict) {
  const RunSummary summary = Summarize(net, run, info);
  if (info.format == "json") {
    PrintJson(out, net, run, info, verdict, summary);
  } else {
    PrintText(out, net, run, info, verdict, summary);
  }
}

}  // namespace tpu::cli
