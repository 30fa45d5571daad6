// `tpu info`: the device configuration the layer commands target and which backends this build
// can run. For now the device is the ISA's default DeviceLimits; once the RTL backend lands the
// figures come from the device's capability registers.
#include <cctype>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "commands.h"
#include "isa/isa.h"
#include "layer_backend.h"
#include "pcie_link.h"
#include "report.h"

namespace tpu::cli {
namespace {

std::string Fixed2(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", value);
  return text;
}

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

int RunInfo(const std::string& format) {
  const isa::DeviceLimits limits;
  Report r("tpu info: device configuration (ISA defaults)");
  r.Add("isa_version", "ISA version", int64_t{isa::kIsaVersion});
  for (int i = 0; i < int(std::size(isa::kLimits)); ++i) {
    r.Add(isa::kLimits[i].member, isa::kLimits[i].name, isa::LimitValue(i, limits));
  }
  for (int i = 0; i < int(std::size(isa::kDerivedNames)); ++i) {
    r.Add(Lower(isa::kDerivedNames[i]), isa::kDerivedNames[i], isa::DerivedValue(i, limits),
          "bytes");
  }
  r.Add("ub_bytes", "unified buffer (UB_ROWS x N)", limits.ub_rows * limits.n, "bytes");
  r.Add("acc_bytes", "accumulators (ACC_ROWS x N x 4)", limits.acc_rows * limits.n * 4, "bytes");
  const PcieLink link;
  r.Add("pcie_default", "PCIe link (default --pcie)",
        link.ToString() + " (" + Fixed2(link.BytesPerSecond() / 1e9) + " GB/s per direction)");
  r.Add("backend_golden", "backend golden", "available (the C++ reference, no device)");
  r.Add("backend_rtl", "backend rtl", kRtlUnavailable);
  if (format == "json") {
    r.PrintJson(std::cout);
  } else {
    r.PrintText(std::cout);
  }
  return 0;
}

}  // namespace

CommandRunner AddInfoCommand(CLI::App& app) {
  auto format = std::make_shared<std::string>("text");
  auto* cmd = app.add_subcommand("info", "Print the device configuration and available backends");
  cmd->add_option("--report", *format, "report format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return [format] { return RunInfo(*format); };
}

}  // namespace tpu::cli
