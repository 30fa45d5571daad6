// The report of `tpu run` (docs/networks.md): the verdict of --check, then the network's head,
// the per-layer table with totals and the essential bytes, as text or one JSON object.
#ifndef TPU_HOST_DRIVER_CLI_RUN_REPORT_H_
#define TPU_HOST_DRIVER_CLI_RUN_REPORT_H_

#include <optional>
#include <ostream>
#include <string>

#include "dataset_report.h"
#include "network/network.h"
#include "network/network_run.h"
#include "runtime_names.h"

namespace tpu::cli {

// --check's line in the report and, when a layer or the output differs, the message for stderr
// naming the first wrong layer ("" otherwise).
struct RunVerdict {
  std::string check;
  std::string mismatch;
};

// The verdict of a run made with check_on (RunOptions::check); "not requested" without.
RunVerdict JudgeNetworkRun(const network::Network& net, const network::NetworkRun& run,
                           const std::string& backend, bool check_on);

// What the report says besides the run itself.
struct NetworkRunInfo {
  std::string format = "text";  // "text" or "json" (--report)
  std::string network_file, input, output;
  std::string backend;      // its name
  std::string device;       // the device configuration (layer_options.h DeviceText)
  std::string pcie;         // the link, as the layer reports give it
  double wall_seconds = 0;  // wall-clock time of the whole run
  DatasetInfo dataset;      // images, batches, folded layers, float ends, accuracy
  std::optional<device::PcieFaults> pcie_faults;  // --pcie-faults: the link's counters shown
};

// The figures of the layers that ran on the device, added up (runtime::AddRunStats).
runtime::RunStats SumDeviceStats(const network::NetworkRun& run);

void PrintNetworkRun(std::ostream& out, const network::Network& net, const network::NetworkRun& run,
                     const NetworkRunInfo& info, const RunVerdict& verdict);

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_RUN_REPORT_H_
