// `tpu`: runs layers and networks on the TPU's Verilated RTL or its model device and checks them
// against the golden reference. The composition root: the one place that puts a backend
// together with a simulator. The commands (tpu_cli) know backends only as
// runtime::LayerBackend made by a factory; here the factory's `rtl` is the runtime's device
// backend on the simulator (testbench/simulator: the system model with the Verilated tpu_top of
// the device --device names on the modeled PCIe link), its `model` the same device backend on
// the model device of that configuration (sc_models/model_device, docs/model.md); golden comes
// from the runtime. `tpu info` learns here which devices are built.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "commands.h"
#include "runtime/device_backend.h"
#include "runtime/layer_backend.h"
#include "host_if/built_devices.h"
#include "sc_models/model_device/model_platform.h"
#include "simulator/simulator.h"

// SystemC's shared library has its own main(), which prints a banner and calls sc_main(); the
// tool keeps its own main() (the executable's wins) so that the report is all it prints, and
// defines sc_main only because the library refers to it.
extern "C" int sc_main(int, char**) { return 2; }

namespace {

std::unique_ptr<tpu::runtime::LayerBackend> MakeBackend(
    const std::string& name, const tpu::runtime::BackendOptions& options) {
  if (name == "rtl") {
    tpu::tb::SimulatorOptions simulator;
    simulator.device = options.device;
    simulator.link = options.link;
    if (options.pcie_faults) simulator.faults = *options.pcie_faults;
    simulator.trace.trace_path = options.trace_path;
    simulator.trace.trace_begin = options.trace_begin;
    simulator.trace.trace_end = options.trace_end;
    return std::make_unique<tpu::runtime::DeviceBackend>("rtl", tpu::tb::MakeSimulator(simulator),
                                                         options);
  }
  if (name == "model") {
    if (options.pcie_faults) throw std::invalid_argument(tpu::runtime::kPcieFaultsNeedRtl);
    if (!options.trace_path.empty()) {
      throw std::invalid_argument("--trace " + options.trace_path +
                                  ": the model backend writes no waveform; use --backend rtl");
    }
    return std::make_unique<tpu::runtime::DeviceBackend>(
        "model", tpu::sc::MakeModelPlatform(options.device, options.link), options);
  }
  return tpu::runtime::MakeBackend(name, options);
}

}  // namespace

int main(int argc, char** argv) {
  // The banner would also come with the first module the rtl backend builds.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  CLI::App app{
      "tpu: run work on the open TPU's Verilated RTL or its model device, checked against "
      "the golden reference"};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       "tpu 0.3 (layers and networks on the RTL over the modeled PCIe link, or "
                       "on the model device)");

  std::map<const CLI::App*, tpu::cli::CommandRunner> runners;
  auto add = [&](tpu::cli::CommandRunner runner) {
    runners[app.get_subcommands({}).back()] = std::move(runner);
  };
  add(tpu::cli::AddDenseCommand(app, MakeBackend));
  add(tpu::cli::AddConv2dCommand(app, MakeBackend));
  add(tpu::cli::AddPoolCommand(app, MakeBackend));
  add(tpu::cli::AddActivationCommand(app, MakeBackend));
  add(tpu::cli::AddGemmCommand(app, MakeBackend));
  add(tpu::cli::AddInfoCommand(
      app, [](const tpu::devices::DeviceConfig& device) { return tpu::tb::IsBuilt(device); },
      /*has_model=*/true));
  add(tpu::cli::AddRunCommand(app, MakeBackend));
  add(tpu::cli::AddImportCommand(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    for (const auto* sub : app.get_subcommands()) {
      return tpu::cli::FinishStdout(runners.at(sub)());
    }
  } catch (const tpu::runtime::DeviceFailure& e) {  // the device kept failing: not bad input
    std::cerr << "tpu: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tpu: error: " << e.what() << "\n";
    return 2;
  }
  return 2;
}
