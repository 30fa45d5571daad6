// `tpu`: runs layers on the TPU's Verilated RTL and checks them against the golden reference.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <map>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"tpu: run work on the open TPU's Verilated RTL, checked against the golden "
               "reference"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tpu 0.2 (golden layers, MXU demo)");

  std::map<const CLI::App*, tpu::cli::CommandRunner> runners;
  auto add = [&](tpu::cli::CommandRunner runner) {
    runners[app.get_subcommands({}).back()] = std::move(runner);
  };
  add(tpu::cli::AddMxuCommand(app));
  add(tpu::cli::AddDenseCommand(app));
  add(tpu::cli::AddGemmCommand(app));
  add(tpu::cli::AddInfoCommand(app));

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
