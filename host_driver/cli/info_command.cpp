// `tpu info`: the device the layer commands target and which backends this program can run.
// The device is the one the rtl backend simulates: the default device of isa/devices.json,
// Verilated as tpu_top with those parameters (testbench/host_if/CMakeLists.txt). Its figures
// come from the list (devices/devices_gen.h) so that info needs no SystemC elaboration and no
// Verilated model; the simulator refuses to run a built model that differs from the list, and
// tests/cli/test_cli_info_device.cpp checks info against the built model.
#include <cctype>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "commands.h"
#include "devices/devices_gen.h"
#include "isa/isa.h"
#include "report.h"
#include "runtime_names.h"

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

int RunInfo(const std::string& format, bool rtl_backend_linked) {
  const devices::DeviceConfig& device = devices::DefaultDevice();
  const isa::DeviceLimits& limits = device.limits;
  Report r(std::string("tpu info: the device the rtl backend simulates (Verilated tpu_top, "
                       "device ") + device.name + ")");
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
  r.Add("dram_width_bits", "weight DRAM read beat", device.dram_width_bits, "bits");
  r.Add("clock_mhz", "clock", device.clock_mhz, "MHz", 1);
  r.Add("peak_tops", "peak throughput (2 x N x N MACs per cycle)",
        2.0 * double(limits.n * limits.n) * device.clock_mhz * 1e6 / 1e12, "TOPS", 4);
  r.Add("max_payload_bytes", "PCIe max payload size (MPS)", device.max_payload, "bytes");
  r.Add("max_read_request_bytes", "PCIe max read request size (MRRS)", device.max_read_request,
        "bytes");
  r.Add("dma_tags", "DMA reads outstanding (tags)", device.dma_tags);
  const PcieLink link;
  r.Add("pcie_default", "PCIe link (default --pcie)",
        link.ToString() + " (" + Fixed2(link.BytesPerSecond() / 1e9) + " GB/s per direction)");
  r.Add("backend_golden", "backend golden", "available (the C++ reference, no device)");
  r.Add("backend_rtl", "backend rtl",
        rtl_backend_linked ? std::string("available (this device, Verilated, in the SystemC "
                                          "system model over the PCIe link model)")
                           : std::string(kRtlUnavailable));
  if (format == "json") {
    r.PrintJson(std::cout);
  } else {
    r.PrintText(std::cout);
  }
  return 0;
}

}  // namespace

CommandRunner AddInfoCommand(CLI::App& app, bool rtl_backend_linked) {
  auto format = std::make_shared<std::string>("text");
  auto* cmd = app.add_subcommand("info", "Print the device configuration and available backends");
  cmd->add_option("--report", *format, "report format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return [format, rtl_backend_linked] { return RunInfo(*format, rtl_backend_linked); };
}

}  // namespace tpu::cli
