// Options every layer command takes (--backend, --check, --trace, --trace-window, --report,
// --pcie), what they resolve to, and the report figures every layer run shares.
#ifndef TPU_HOST_DRIVER_CLI_LAYER_OPTIONS_H_
#define TPU_HOST_DRIVER_CLI_LAYER_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "layer_backend.h"
#include "report.h"

namespace tpu::cli {

struct LayerOptions {
  std::string backend = "golden";
  bool check = false;        // also compute the golden result and compare
  std::string trace;         // FST waveform to write
  std::string trace_window;  // "FIRST:LAST" cycles
  std::string report = "text";
  std::string pcie = "gen3x16";
};

void AddLayerOptions(CLI::App& cmd, LayerOptions& options);

// "A:B" -> [A, B) cycles, either side may be empty. Throws std::invalid_argument naming
// --trace-window.
void ParseTraceWindow(const std::string& text, uint64_t& begin, uint64_t& end);

// The backend options the layer options ask for. Throws std::invalid_argument for a malformed
// --pcie or --trace-window, or --trace-window without --trace.
BackendOptions ResolveBackendOptions(const LayerOptions& options);

// Adds the figures every layer run reports after the layer's own: the link, the wall-clock
// time, and the device figures (cycles, simulated time, TOPS, MXU utilization, PCIe bytes),
// each n/a when the backend did not measure it.
void AddRunFigures(Report& report, const BackendOptions& resolved, const RunStats& stats,
                   int64_t macs, double wall_seconds);

// Prints `report` in the format --report asked for.
void PrintReport(const Report& report, const LayerOptions& options, std::ostream& out);

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_LAYER_OPTIONS_H_
