#include "output_paths.h"

#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace tpu::cli {
namespace {

namespace fs = std::filesystem;

// The folder `path` would be created in ("." for a bare file name).
fs::path FolderOf(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (!fs::exists(a, ec) || !fs::exists(b, ec)) {
    // Not both there yet: the same file only if they name it the same way.
    return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
  }
  return fs::equivalent(a, b, ec);
}

void CheckOne(const NamedPath& out) {
  const std::string head = out.option + " " + out.path + ": ";
  std::error_code ec;
  const fs::path folder = FolderOf(out.path);
  if (!fs::exists(folder, ec)) {
    throw std::invalid_argument(head + "the folder " + folder.string() +
                                " does not exist; create it first or choose another path");
  }
  if (!fs::is_directory(folder, ec)) {
    throw std::invalid_argument(head + folder.string() + " is not a folder");
  }
  if (fs::is_directory(out.path, ec)) {
    throw std::invalid_argument(head + "is a folder; give a file name inside it");
  }
  const bool exists = fs::exists(out.path, ec);
  if (exists ? access(out.path.c_str(), W_OK) != 0 : access(folder.c_str(), W_OK | X_OK) != 0) {
    throw std::invalid_argument(head + "cannot be written (" +
                                std::string(exists ? "the file" : "its folder") +
                                " is not writable); choose another path");
  }
}

}  // namespace

void CheckOutputPaths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (out.path.empty()) continue;
    CheckOne(out);
    for (const NamedPath& in : inputs) {
      if (!in.path.empty() && SameFile(out.path, in.path)) {
        throw std::invalid_argument(out.option + " " + out.path + ": is the " + in.option +
                                    " file; writing it would destroy an input: choose another "
                                    "path");
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (!outputs[j].path.empty() && SameFile(out.path, outputs[j].path)) {
        throw std::invalid_argument(out.option + " " + out.path + ": is also the " +
                                    outputs[j].option + " file; give each output its own path");
      }
    }
  }
}

}  // namespace tpu::cli
