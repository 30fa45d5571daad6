// `tpu info`: a device configuration the layer commands target (--device, default the list's
// default) and which backends this program can run on it; `tpu info --devices`: every
// configuration of isa/devices.json with its sizes and whether this build verilated it. The
// figures come from the list (devices/devices_gen.h) so that info needs no SystemC elaboration
// and no Verilated model; the simulator refuses to run a built model that differs from the
// list, and tests/cli/test_cli_info_device.cpp checks info against the built model.
#include <cctype>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "commands.h"
#include "devices/device_lookup.h"
#include "devices/devices_gen.h"
#include "isa/isa.h"
#include "layer_options.h"
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

struct InfoOptions {
  std::string format = "text";
  std::string device;  // "" = the default
  bool list = false;   // --devices
};

std::string BuiltText(const devices::DeviceConfig& device, const DeviceBuiltQuery& built) {
  if (!built) return "no (this program has no rtl backend)";
  return built(device) ? "yes" : "no (not in TPU_BUILD_DEVICES)";
}

void Print(const Report& r, const std::string& format) {
  if (format == "json") {
    r.PrintJson(std::cout);
  } else {
    r.PrintText(std::cout);
  }
}

// One line per configuration: "N 16, UB 64 KiB, ... built yes".
std::string ModelText(bool has_model) {
  return has_model ? "available (the model device: the instruction set's reference machine "
                     "behind the driver's bus, timing estimated; every configuration, no "
                     "Verilated build)"
                   : runtime::kModelUnavailable;
}

int RunInfoDevices(const InfoOptions& o, const DeviceBuiltQuery& built, bool has_model) {
  Report r("tpu info --devices: the device configurations of isa/devices.json (default " +
           std::string(devices::kDefaultDevice) + ")");
  for (const devices::DeviceConfig& d : devices::kDevices) {
    r.Add(d.name, d.name,
          DeviceText(d.name) + ", built: " + BuiltText(d, built) +
              (has_model ? ", model: yes" : ""));
  }
  r.Add("default", "default device", devices::kDefaultDevice);
  Print(r, o.format);
  return 0;
}

int RunInfo(const InfoOptions& o, const DeviceBuiltQuery& built, bool has_model) {
  if (o.list) return RunInfoDevices(o, built, has_model);
  const std::string name = o.device.empty() ? devices::kDefaultDevice : o.device;
  const devices::DeviceConfig* found = devices::FindDevice(name);
  if (found == nullptr) devices::DeviceNamed(name);  // throws, naming the devices
  const devices::DeviceConfig& device = *found;
  const isa::DeviceLimits& limits = device.limits;
  Report r(std::string("tpu info: device ") + device.name +
           " (what the rtl backend simulates with --device " + device.name +
           ": Verilated tpu_top)");
  r.Add("device", "device", device.name);
  r.Add("default_device", "default device", devices::kDefaultDevice);
  r.Add("built", "Verilated in this build", BuiltText(device, built));
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
  r.Add("tlp_width_bits", "TLP stream and DMA beat width", device.tlp_width_bits, "bits");
  const PcieLink link;
  r.Add("pcie_default", "PCIe link (default --pcie)",
        link.ToString() + " (" + Fixed2(link.BytesPerSecond() / 1e9) + " GB/s per direction)");
  r.Add("backend_golden", "backend golden", "available (the C++ reference, no device)");
  std::string rtl;
  if (!built) {
    rtl = kRtlUnavailable;
  } else if (built(device)) {
    rtl = "available (this device, Verilated, in the SystemC system model over the PCIe link "
          "model)";
  } else {
    rtl = std::string("not built: ") + device.name +
          " has no Verilated model in this build (cmake -DTPU_BUILD_DEVICES=...; "
          "`tpu dense --device " + device.name + " --backend rtl` prints the command)";
  }
  r.Add("backend_rtl", "backend rtl", rtl);
  r.Add("backend_model", "backend model", ModelText(has_model));
  Print(r, o.format);
  return 0;
}

}  // namespace

CommandRunner AddInfoCommand(CLI::App& app, DeviceBuiltQuery built, bool has_model) {
  auto o = std::make_shared<InfoOptions>();
  auto* cmd = app.add_subcommand(
      "info", "Print a device configuration and the available backends, or every configuration");
  cmd->add_option("--device", o->device,
                  std::string("the device configuration to describe (default ") +
                      devices::kDefaultDevice + ")")
      ->type_name("NAME");
  cmd->add_flag("--devices", o->list,
                "list every device configuration: N, memories, whether this build has it");
  cmd->add_option("--report", o->format, "report format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return [o, built, has_model] {
    try {
      return RunInfo(*o, built, has_model);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--device " + o->device + ": " + e.what());
    }
  };
}

}  // namespace tpu::cli
