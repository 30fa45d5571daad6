#include "onnx/onnx_write.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "npy/npy.h"

namespace tpu::onnx {
namespace fs = std::filesystem;

std::string FilePrefix(const std::string& json_path) {
  return fs::path(json_path).stem().string() + "_";
}

std::vector<std::string> OutputPaths(const ImportedNetwork& network,
                                     const std::string& json_path) {
  const fs::path dir = fs::path(json_path).parent_path();
  std::vector<std::string> paths = {json_path};
  for (const NpyFile& f : network.files) paths.push_back((dir / f.name).string());
  return paths;
}

void WriteImported(const ImportedNetwork& network, const std::string& json_path, bool force) {
  const fs::path dir = fs::path(json_path).parent_path();
  const std::string dir_name = dir.empty() ? "." : dir.string();
  std::error_code ec;
  if (!fs::is_directory(dir.empty() ? fs::path(".") : dir, ec)) {
    throw ImportError("--output " + json_path + ": the directory " + dir_name +
                      " does not exist (create it first)");
  }
  if (access(dir_name.c_str(), W_OK | X_OK) != 0) {
    throw ImportError("--output " + json_path + ": the directory " + dir_name +
                      " is not writable; choose another --output");
  }
  const std::vector<std::string> paths = OutputPaths(network, json_path);
  if (!force) {
    std::string existing;
    for (const std::string& p : paths) {
      if (fs::exists(p, ec)) existing += (existing.empty() ? "" : ", ") + p;
    }
    if (!existing.empty()) {
      throw ImportError("would overwrite " + existing +
                        "; nothing written (--force overwrites, or choose another --output)");
    }
  }
  for (const std::string& p : paths) {
    if (fs::is_directory(p, ec)) throw ImportError(p + " is a directory; nothing written");
  }
  // Encode everything first, so that a failure leaves no half-written network.
  std::vector<std::string> bytes;
  bytes.push_back(network.description.dump(2) + "\n");
  for (const NpyFile& f : network.files) {
    bytes.push_back(f.is_int8 ? npy::Encode(f.int8) : npy::Encode(f.int32));
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    std::ofstream out(paths[i], std::ios::binary | std::ios::trunc);
    out.write(bytes[i].data(), static_cast<std::streamsize>(bytes[i].size()));
    out.close();
    if (!out) throw ImportError(paths[i] + ": cannot write the file");
  }
}

}  // namespace tpu::onnx
