// `tpu import MODEL.onnx --output NET.json [--force]`: an int8 ONNX graph converted to the
// network format (host_driver/onnx, docs/onnx_import.md). The network is written to a scratch
// directory and loaded back by the network parser before anything is written to --output, so
// that what lands there always loads with `tpu run`.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <string>

#include "commands.h"
#include "network/network.h"
#include "onnx/onnx_import.h"
#include "onnx/onnx_model.h"
#include "onnx/onnx_write.h"

namespace tpu::cli {
namespace {

namespace fs = std::filesystem;

struct ImportOptions {
  std::string model, output, name;
  bool force = false;
};

// Loads the written network back from a scratch copy; throws NetworkError if it does not parse.
network::Network CheckLoads(const onnx::ImportedNetwork& imported, const std::string& output) {
  const fs::path scratch = fs::temp_directory_path() /
                           ("tpu_import_" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{scratch};
  const std::string json = (scratch / fs::path(output).filename()).string();
  onnx::WriteImported(imported, json, true);
  return network::LoadNetwork(json);
}

int RunImport(const ImportOptions& o) {
  onnx::ImportOptions options;
  options.name = o.name.empty() ? fs::path(o.output).stem().string() : o.name;
  options.file_prefix = onnx::FilePrefix(o.output);
  const onnx::Model model = onnx::ParseModel(onnx::ReadFileBytes(o.model), o.model);
  const onnx::ImportedNetwork imported = onnx::ImportModel(model, o.model, options);
  const network::Network net = CheckLoads(imported, o.output);
  onnx::WriteImported(imported, o.output, o.force);

  std::cout << "tpu import: " << o.model << " -> " << o.output << " (" << net.layers.size()
            << " layers, " << imported.files.size() << " .npy files)\n";
  for (const std::string& line : imported.mapping) std::cout << "  " << line << "\n";
  for (const std::string& note : imported.notes) std::cout << "  note: " << note << "\n";
  return 0;
}

}  // namespace

CommandRunner AddImportCommand(CLI::App& app) {
  auto o = std::make_shared<ImportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "import", "Convert an int8 ONNX model (QLinear or QDQ operators) to a network for `tpu run`");
  cmd->add_option("model", o->model, "the ONNX model (.onnx)")->required();
  cmd->add_option("--output,-o", o->output,
                  "the network JSON to write; its .npy files go next to it")
      ->required();
  cmd->add_option("--name", o->name, "the network's name (default: the output's stem)");
  cmd->add_flag("--force", o->force, "overwrite existing files");
  return [o]() {
    try {
      return RunImport(*o);
    } catch (const std::exception& e) {
      std::cerr << "tpu import: error: " << e.what() << "\n";
      return 2;
    }
  };
}

}  // namespace tpu::cli
