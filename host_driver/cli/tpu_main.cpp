// `tpu`: runs layers on the TPU's Verilated RTL and checks them against the golden reference.
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>

#include "commands.h"
#include "rtl_backend.h"

// SystemC's shared library has its own main(), which prints a banner and calls sc_main(); the
// tool keeps its own main() (the executable's wins) so that the report is all it prints, and
// defines sc_main only because the library refers to it.
extern "C" int sc_main(int, char**) { return 2; }

int main(int argc, char** argv) {
  // The banner would also come with the first module the rtl backend builds.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  CLI::App app{"tpu: run work on the open TPU's Verilated RTL, checked against the golden "
               "reference"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tpu 0.3 (dense layers on the RTL over the modeled PCIe link)");

  std::map<const CLI::App*, tpu::cli::CommandRunner> runners;
  auto add = [&](tpu::cli::CommandRunner runner) {
    runners[app.get_subcommands({}).back()] = std::move(runner);
  };
  add(tpu::cli::AddMxuCommand(app));
  add(tpu::cli::AddDenseCommand(app, tpu::cli::MakeBackendWithRtl));
  add(tpu::cli::AddConv2dCommand(app, tpu::cli::MakeBackendWithRtl));
  add(tpu::cli::AddPoolCommand(app, tpu::cli::MakeBackendWithRtl));
  add(tpu::cli::AddActivationCommand(app, tpu::cli::MakeBackendWithRtl));
  add(tpu::cli::AddGemmCommand(app, tpu::cli::MakeBackendWithRtl));
  add(tpu::cli::AddInfoCommand(app, /*rtl_backend_linked=*/true));
  add(tpu::cli::AddRunCommand(app, tpu::cli::MakeBackendWithRtl));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    for (const auto* sub : app.get_subcommands()) return runners.at(sub)();
  } catch (const std::exception& e) {
    std::cerr << "tpu: error: " << e.what() << "\n";
    return 2;
  }
  return 2;
}
