#include "layer_options.h"

#include <iostream>
#include <stdexcept>
#include <vector>

#include "checksum.h"
#include "devices/device_lookup.h"
#include "devices/devices_gen.h"
#include "golden/format.h"
#include "link_faults_report.h"
#include "progress_line.h"

namespace tpu::cli {
namespace {

constexpr const char* kRtlOnly = "rtl and model backends only";

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
  cmd.add_option("--backend", o.backend,
                 "what runs the layer: golden (C++ reference), rtl (the Verilated device) or "
                 "model (the model device: fast, estimated timing)")
      ->check(CLI::IsMember({"golden", "rtl", "model"}))
      ->capture_default_str();
  cmd.add_option("--device", o.device,
                 std::string("device configuration (isa/devices.json, `tpu info --devices`); "
                             "default ") + devices::kDefaultDevice)
      ->type_name("NAME");
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
  cmd.add_option("--pcie-faults", o.pcie_faults,
                 "inject faults on the PCIe link (rtl backend), recovered by its data link layer "
                 "(docs/pcie_link.md): probabilities per TLP/DLLP and a seed; cpl_*: the root "
                 "complex answers a device read with UR, CA, poisoned data or not at all, "
                 "recovered by the driver's retries")
      ->type_name("tlp_corrupt=P,tlp_drop=P,dllp_corrupt=P,dllp_drop=P,cpl_ur=P,cpl_ca=P,"
                  "cpl_poison=P,cpl_drop=P,seed=N")
      ->check(Checked([](const std::string& t) { device::ParsePcieFaults(t); }));
  cmd.add_option("--retries", o.retries,
                 "reruns of a program after a retryable device error (a failed or missing "
                 "completion, the watchdog), each after a soft reset (docs/driver.md)")
      ->check(CLI::Range(0, 100))
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

std::pair<int64_t, int64_t> ParseSizePair(const std::string& option, const std::string& text,
                                          int64_t lo, int64_t hi, const std::string& what) {
  const std::string expected = option + " " + text + ": expected " + what + " as N or N,M with " +
                               std::to_string(lo) + " <= N, M <= " + std::to_string(hi);
  const auto comma = text.find(',');
  std::vector<std::string> parts = {text.substr(0, comma)};
  if (comma != std::string::npos) parts.push_back(text.substr(comma + 1));
  std::vector<int64_t> values;
  for (const std::string& part : parts) {
    if (part.empty() || part.size() > 9 ||
        part.find_first_not_of("0123456789") != std::string::npos) {
      throw std::invalid_argument(expected);
    }
    const int64_t v = std::stoll(part);
    if (v < lo || v > hi) throw std::invalid_argument(expected);
    values.push_back(v);
  }
  return {values[0], values.back()};
}

std::string LinkText(const PcieLink& link) {
  return link.ToString() + " (" + golden::FormatReal(link.GigaTransfersPerLane()) +
         " GT/s per lane, " + link.Encoding() + ")";
}

BackendOptions ResolveBackendOptions(const LayerOptions& o) {
  BackendOptions resolved;
  const std::string device = o.device.empty() ? devices::kDefaultDevice : o.device;
  try {
    resolved.device = devices::DeviceNamed(device).name;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--device ") + device + ": " + e.what());
  }
  resolved.progress = std::make_shared<ProgressLine>();
  try {
    resolved.link = ParsePcieLink(o.pcie);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("--pcie: ") + e.what());
  }
  if (!o.pcie_faults.empty()) {
    if (o.backend != "rtl") throw std::invalid_argument(runtime::kPcieFaultsNeedRtl);
    try {
      resolved.pcie_faults = device::ParsePcieFaults(o.pcie_faults);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--pcie-faults: ") + e.what());
    }
  }
  if (o.backend == "model" && !o.trace.empty()) {
    throw std::invalid_argument(
        "--trace " + o.trace + ": the model backend writes no waveform (it executes the "
        "instruction set, not the RTL); use --backend rtl for a waveform");
  }
  resolved.retries = o.retries;
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

namespace {

// "64 KiB", "4 MiB", "24 MiB", "1000 bytes".
std::string BytesText(int64_t bytes) {
  if (bytes >= (int64_t{1} << 30) && bytes % (int64_t{1} << 30) == 0) {
    return std::to_string(bytes >> 30) + " GiB";
  }
  if (bytes >= (int64_t{1} << 20) && bytes % (int64_t{1} << 20) == 0) {
    return std::to_string(bytes >> 20) + " MiB";
  }
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

std::string DeviceText(const std::string& name) {
  const devices::DeviceConfig& d = devices::DeviceNamed(name);
  const isa::DeviceLimits& l = d.limits;
  return name + " (N = " + std::to_string(l.n) + ", UB " + BytesText(l.ub_rows * l.n) +
         ", accumulators " + BytesText(l.acc_rows * l.n * 4) + ", weight DRAM " +
         BytesText(l.dram_bytes) + ")";
}

void AddRunFigures(Report& r, const BackendOptions& resolved, const RunStats& stats, int64_t macs,
                   double wall_seconds, const std::string& macs_label) {
  constexpr const char* kNoMacs = "the layer does no multiply-accumulates";
  const PcieLink& link = resolved.link;
  r.Add("device", "device", DeviceText(resolved.device.empty() ? devices::kDefaultDevice
                                                                 : resolved.device));
  r.Add("pcie", "PCIe link", LinkText(link));
  r.Add("pcie_link_gbytes_per_s", "PCIe raw bandwidth per direction", link.BytesPerSecond() / 1e9,
        "GB/s", 2);
  if (stats.pcie_payload_limit_bytes_per_s) {
    r.Add("pcie_payload_limit_gbytes_per_s", "PCIe payload limit per direction",
          *stats.pcie_payload_limit_bytes_per_s / 1e9, "GB/s", 3);
  }
  if (!stats.lowering.empty()) r.Add("lowering", "lowering", stats.lowering);
  if (stats.timing_estimated) r.Add("timing", "timing", kEstimatedTiming);
  r.Add("macs", macs_label, macs);
  if (stats.cycles) {
    r.Add("cycles", "device cycles (queue running)", *stats.cycles);
  } else {
    r.AddNotAvailable("cycles", "device cycles (queue running)", kRtlOnly);
  }
  if (stats.cycles && stats.clock_mhz) {
    const double compute = double(*stats.cycles) / (*stats.clock_mhz * 1e6);
    // End to end (doorbell to interrupt) when the backend measured it, else the queue's time.
    const double seconds = stats.device_seconds.value_or(compute);
    r.Add("clock_mhz", "device clock", *stats.clock_mhz, "MHz", 1);
    r.Add("compute_us", "device time (cycles / clock)", compute * 1e6, "us", 3);
    r.Add("simulated_us", "simulated time (doorbell to interrupt)", seconds * 1e6, "us", 3);
    if (macs > 0) {
      r.Add("tops", "throughput (2 x MACs / simulated time)", 2.0 * double(macs) / seconds / 1e12,
            "TOPS", 4);
    } else {
      r.AddNotAvailable("tops", "throughput (2 x MACs / simulated time)", kNoMacs);
    }
  } else {
    r.AddNotAvailable("clock_mhz", "device clock", kRtlOnly);
    r.AddNotAvailable("compute_us", "device time (cycles / clock)", kRtlOnly);
    r.AddNotAvailable("simulated_us", "simulated time (doorbell to interrupt)", kRtlOnly);
    r.AddNotAvailable("tops", "throughput (2 x MACs / simulated time)", kRtlOnly);
  }
  const std::string utilization = "MXU utilization (MACs / (cycles x N x N))";
  if (macs == 0 && stats.cycles) {
    r.AddNotAvailable("mxu_utilization", utilization, kNoMacs);
  } else if (stats.mxu_utilization) {
    r.Add("mxu_utilization", utilization, *stats.mxu_utilization);
  } else {
    r.AddNotAvailable("mxu_utilization", utilization, kRtlOnly);
  }
  if (stats.stalls.empty()) {
    r.AddNotAvailable("stall_cycles", "stall cycles", kRtlOnly);
  }
  // The device's stall counters (docs/registers.md, PERF); causes overlap, so they need not add
  // up to the cycles.
  const auto stall_label = [](const std::string& cause) -> std::string {
    if (cause == "weights") return "stall cycles: MXU waits for a weight tile";
    if (cause == "act_in") return "stall cycles: MXU waits for a UB row";
    if (cause == "dma") return "stall cycles: DMA waits for host memory";
    if (cause == "dep") return "stall cycles: a unit waits for a token";
    return "stall cycles: " + cause;
  };
  for (const auto& [cause, cycles] : stats.stalls) {
    r.Add("stall_" + cause, stall_label(cause), cycles);
  }
  // Bytes each way, and the bandwidth they came to over the run against the link's limit.
  const auto add_direction = [&](const std::string& key, const std::string& label,
                                 const std::optional<int64_t>& bytes) {
    if (!bytes) {
      r.AddNotAvailable(key, label, kRtlOnly);
      return;
    }
    r.Add(key, label, *bytes);
    if (stats.device_seconds && *stats.device_seconds > 0) {
      const double rate = double(*bytes) / *stats.device_seconds;
      r.Add(key + "_gbytes_per_s", "  over the simulated time", rate / 1e9, "GB/s", 3);
      if (stats.pcie_payload_limit_bytes_per_s) {
        r.Add(key + "_of_limit", "  share of the payload limit",
              rate / *stats.pcie_payload_limit_bytes_per_s);
      }
    }
  };
  add_direction("pcie_bytes_to_device", "PCIe payload bytes host -> device",
                stats.pcie_bytes_to_device);
  add_direction("pcie_bytes_from_device", "PCIe payload bytes device -> host",
                stats.pcie_bytes_from_device);
  r.Add("wall_s", "wall-clock time of the run", wall_seconds, "s", 6);
  const std::string speed = "simulation speed (device cycles)";
  if (stats.simulated_cycles && wall_seconds > 0) {
    r.Add("sim_kcycles_per_s", speed, double(*stats.simulated_cycles) / wall_seconds / 1e3,
          "kcycles/s", 1);
  } else {
    r.AddNotAvailable("sim_kcycles_per_s", speed, kRtlOnly);
  }
  if (resolved.pcie_faults) AddLinkFaultFigures(r, *resolved.pcie_faults, stats);
  AddRecoveryFigures(r, stats);
  if (!stats.trace_path.empty()) r.Add("trace", "waveform (FST)", stats.trace_path);
}

void AddRecoveryFigures(Report& r, const RunStats& stats) {
  if (stats.recovered_errors.empty()) return;
  r.Add("retries", "device errors recovered (soft reset, rerun)",
        static_cast<int64_t>(stats.recovered_errors.size()));
  std::string errors;
  for (const std::string& e : stats.recovered_errors) {
    errors += (errors.empty() ? "" : "; ") + e;
  }
  r.Add("recovered_errors", "  what the failed runs reported", errors);
}

int FinishLayerReport(Report& r, const std::string& command, const LayerOptions& options,
                      const BackendOptions& resolved, const LayerResult<int8_t>& result,
                      int64_t macs, double wall_seconds, const std::string& macs_label,
                      const std::string& mismatch) {
  r.Add("output_checksum", "output checksum (FNV-1a 64)", HexChecksum(Fnv1a64(result.output)));
  AddRunFigures(r, resolved, result.stats, macs, wall_seconds, macs_label);
  PrintReport(r, options, std::cout);
  if (const std::string lost = LostTlpsMessage(result.stats); !lost.empty()) {
    std::cerr << command << ": " << lost << "\n";
    return 1;
  }
  if (mismatch.empty()) return 0;
  std::cerr << command << ": " << mismatch << "\n";
  return 1;
}

void PrintReport(const Report& report, const LayerOptions& options, std::ostream& out) {
  if (options.report == "json") {
    report.PrintJson(out);
  } else {
    report.PrintText(out);
  }
}

}  // namespace tpu::cli
