// The PCIe data link layer's figures in the reports of a run with --pcie-faults
// (docs/pcie_link.md section 8): per direction, the TLPs sent, corrupted, dropped, NAKed and
// replayed, the replay timeouts and retrainings, the DLLPs corrupted and dropped, and the TLPs
// lost (0 unless the data link layer is wrong; a run that lost one fails).
#ifndef TPU_HOST_DRIVER_CLI_LINK_FAULTS_REPORT_H_
#define TPU_HOST_DRIVER_CLI_LINK_FAULTS_REPORT_H_

#include <nlohmann/json.hpp>
#include <string>

#include "report.h"
#include "runtime_names.h"

namespace tpu::cli {

// Adds the faults injected and each direction's counters (n/a where the backend has none).
void AddLinkFaultFigures(Report& report, const device::PcieFaults& faults, const RunStats& stats);

// {"faults": "...", "host_to_device": {...}, "device_to_host": {...}} for a JSON report.
nlohmann::json LinkFaultsJson(const device::PcieFaults& faults, const RunStats& stats);

// "" if no TLP was lost, else what to say on stderr (the run then exits 1).
std::string LostTlpsMessage(const RunStats& stats);

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_LINK_FAULTS_REPORT_H_
