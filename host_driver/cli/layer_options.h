// Options every layer command takes (--backend, --device, --check, --trace, --trace-window,
// --report, --pcie, --pcie-faults, --retries), what they resolve to, and the report figures
// every layer run shares.
#ifndef TPU_HOST_DRIVER_CLI_LAYER_OPTIONS_H_
#define TPU_HOST_DRIVER_CLI_LAYER_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <utility>

#include "report.h"
#include "runtime_names.h"

namespace tpu::cli {

// The report's `timing` line when the figures are the model device's (docs/model.md).
inline constexpr const char* kEstimatedTiming =
    "estimated by the model device's timing model (docs/model.md)";

struct LayerOptions {
  std::string backend = "golden";
  std::string device;        // the configuration of isa/devices.json; "" = the default
  bool check = false;        // also compute the golden result and compare
  std::string trace;         // FST waveform to write
  std::string trace_window;  // "FIRST:LAST" cycles
  std::string report = "text";
  std::string pcie = "gen3x16";
  std::string pcie_faults;  // "" = none (docs/pcie_link.md section 8)
  int retries = BackendOptions::kDefaultRetries;  // reruns after a retryable device error
};

void AddLayerOptions(CLI::App& cmd, LayerOptions& options);

// "A:B" -> [A, B) cycles, either side may be empty. Throws std::invalid_argument naming
// --trace-window.
void ParseTraceWindow(const std::string& text, uint64_t& begin, uint64_t& end);

// "A" or "A,B" (whole numbers) -> {A, A} or {A, B}, each in [lo, hi]. Throws
// std::invalid_argument starting with `option` and the text, saying what was expected (`what`,
// e.g. "the pooling window height and width").
std::pair<int64_t, int64_t> ParseSizePair(const std::string& option, const std::string& text,
                                          int64_t lo, int64_t hi, const std::string& what);

// "gen3x16 (8 GT/s per lane, 128b/130b)": the link as reports name it.
std::string LinkText(const PcieLink& link);

// The backend options the layer options ask for, with a progress line on stderr for long runs;
// the device is resolved to its name (the default's when --device is not given). Throws
// std::invalid_argument for a device the list does not have (naming the devices), a malformed
// --pcie, --pcie-faults or --trace-window, --trace-window without --trace, or --pcie-faults
// with a backend other than rtl.
BackendOptions ResolveBackendOptions(const LayerOptions& options);

// "n16 (N = 16, UB 64 KiB, accumulators 64 KiB, weight DRAM 4 MiB)": the device configuration
// `name` (a name of the list) as reports name it.
std::string DeviceText(const std::string& name);

// Adds the figures every layer run reports after the layer's own: the device, the link, the wall-clock
// time, and the device figures (cycles, simulated time, TOPS, MXU utilization, PCIe bytes),
// each n/a when the backend did not measure it. `macs_label` says how `macs` was counted; a
// layer with no multiply-accumulates (pooling, activation: macs = 0) reports throughput and MXU
// utilization as n/a.
void AddRunFigures(Report& report, const BackendOptions& resolved, const RunStats& stats,
                   int64_t macs, double wall_seconds,
                   const std::string& macs_label = "multiply-accumulates (M x K x N)");

// The device errors the retry policy recovered from (RunStats::recovered_errors): `retries`,
// the reruns, and `recovered_errors`, what each failed run reported ("; " between them in
// text, a list in JSON). Nothing when every program ran at the first attempt.
void AddRecoveryFigures(Report& report, const RunStats& stats);

// The end every layer command shares: the output's checksum, the run figures (AddRunFigures),
// the report in the format --report asked for, then `command: mismatch` on stderr if --check
// found one. Returns the exit status: 1 on a mismatch, else 0.
int FinishLayerReport(Report& report, const std::string& command, const LayerOptions& options,
                      const BackendOptions& resolved, const LayerResult<int8_t>& result,
                      int64_t macs, double wall_seconds, const std::string& macs_label,
                      const std::string& mismatch);

// Prints `report` in the format --report asked for.
void PrintReport(const Report& report, const LayerOptions& options, std::ostream& out);

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_LAYER_OPTIONS_H_
