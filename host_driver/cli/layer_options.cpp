#include "layer_options.h"

#include <stdexcept>

#include "golden/format.h"

namespace tpu::cli {
namespace {

constexpr const char* kRtlOnly = "RTL backend only";

// CLI11 validator from a parser that throws std::invalid_argument (no description: the option's
// type_name already shows the form).
template <typename Parse>
CLI::Validator Checked(Parse parse) {
  return CLI::Validator(
      [parse](std::string& text) {
        try {
          parse(text);
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
        return std::string();
      },
      "");
}

}  // namespace

void AddLayerOptions(CLI::App& cmd, LayerOptions& o) {
  cmd.add_option("--backend", o.backend, "what runs the layer: golden (C++ reference) or rtl")
      ->check(CLI::IsMember({"golden", "rtl"}))
      ->capture_default_str();
  cmd.add_flag("--check", o.check,
               "also compute the golden result; exit 1 at the first differing element");
  cmd.add_option("--trace", o.trace, "write an FST waveform of the run (rtl backend)")
      ->type_name("FILE.fst");
  cmd.add_option("--trace-window", o.trace_window, "dump only cycles FIRST:LAST")
      ->type_name("A:B")
      ->check(Checked([](const std::string& t) {
        uint64_t a, b;
        ParseTraceWindow(t, a, b);
      }));
  cmd.add_option("--report", o.report, "report format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd.add_option("--pcie", o.pcie, "PCIe link: genGxL, G in 1..5, L in 1, 2, 4, 8, 16")
      ->type_name("genGxL")
      ->check(Checked([](const std::string& t) { ParsePcieLink(t); }))
      ->capture_default_str();
}

void ParseTraceWindow(const std::string& text, uint64_t& begin, uint64_t& end) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    throw std::invalid_argument("'" + text + "': expected FIRST:LAST cycles, e.g. 100:400");
  }
  begin = 0;
  end = UINT64_MAX;
  const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
  for (const std::string& part : {a, b}) {
    if (part.find_first_not_of("0123456789") != std::string::npos || part.size() > 19) {
      throw std::invalid_argument("'" + text + "': cycles must be whole numbers");
    }
  }
  if (!a.empty()) begin = std::stoull(a);
  if (!b.empty()) end = std::stoull(b);
  if (end <= begin) throw std::invalid_argument("'" + text + "': LAST must be after FIRST");
}

BackendOptions ResolveBackendOptions(const LayerOptions& o) {
  BackendOptions resolved;
  try {
    resolved.link = ParsePcieLink(o.pcie);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--pcie: ") + e.what());
  }
  resolved.trace_path = o.trace;
  if (!o.trace_window.empty()) {
    if (o.trace.empty()) {
      throw std::invalid_argument("--trace-window " + o.trace_window +
                                  ": needs --trace FILE.fst to say where the waveform goes");
    }
    try {
      ParseTraceWindow(o.trace_window, resolved.trace_begin, resolved.trace_end);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--trace-window: ") + e.what());
    }
  }
  return resolved;
}

void AddRunFigures(Report& r, const BackendOptions& resolved, const RunStats& stats, int64_t macs,
                   double wall_seconds) {
  const PcieLink& link = resolved.link;
  r.Add("pcie", "PCIe link",
        link.ToString() + " (" + golden::FormatReal(link.GigaTransfersPerLane()) +
            " GT/s per lane, " + link.Encoding() + ")");
  r.Add("pcie_link_gbytes_per_s", "PCIe link bandwidth per direction", link.BytesPerSecond() / 1e9,
        "GB/s", 2);
  r.Add("macs", "multiply-accumulates", macs);
  if (stats.cycles) {
    r.Add("cycles", "cycles", *stats.cycles);
  } else {
    r.AddNotAvailable("cycles", "cycles", kRtlOnly);
  }
  if (stats.cycles && stats.clock_mhz) {
    const double seconds = double(*stats.cycles) / (*stats.clock_mhz * 1e6);
    r.Add("clock_mhz", "clock", *stats.clock_mhz, "MHz", 1);
    r.Add("simulated_us", "simulated time", seconds * 1e6, "us", 3);
    r.Add("tops", "throughput at that clock", 2.0 * double(macs) / seconds / 1e12, "TOPS", 4);
  } else {
    r.AddNotAvailable("clock_mhz", "clock", kRtlOnly);
    r.AddNotAvailable("simulated_us", "simulated time", kRtlOnly);
    r.AddNotAvailable("tops", "throughput at that clock", kRtlOnly);
  }
  if (stats.mxu_utilization) {
    r.Add("mxu_utilization", "MXU utilization (useful MACs)", *stats.mxu_utilization);
  } else {
    r.AddNotAvailable("mxu_utilization", "MXU utilization (useful MACs)", kRtlOnly);
  }
  if (stats.pcie_bytes_to_device) {
    r.Add("pcie_bytes_to_device", "PCIe bytes host -> device", *stats.pcie_bytes_to_device);
  } else {
    r.AddNotAvailable("pcie_bytes_to_device", "PCIe bytes host -> device", kRtlOnly);
  }
  if (stats.pcie_bytes_from_device) {
    r.Add("pcie_bytes_from_device", "PCIe bytes device -> host", *stats.pcie_bytes_from_device);
  } else {
    r.AddNotAvailable("pcie_bytes_from_device", "PCIe bytes device -> host", kRtlOnly);
  }
  r.Add("wall_s", "wall-clock time", wall_seconds, "s", 6);
  if (!stats.trace_path.empty()) r.Add("trace", "waveform", stats.trace_path);
}

void PrintReport(const Report& report, const LayerOptions& options, std::ostream& out) {
  if (options.report == "json") {
    report.PrintJson(out);
  } else {
    report.PrintText(out);
  }
}

}  // namespace tpu::cli
