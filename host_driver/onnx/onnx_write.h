// Writing an imported network: NET.json and its .npy files next to it, all or nothing checked
// first (no file is written if one exists without `force`, or the directory is not writable).
#ifndef TPU_ONNX_ONNX_WRITE_H_
#define TPU_ONNX_ONNX_WRITE_H_

#include <string>
#include <vector>

#include "onnx/onnx_import.h"

namespace tpu::onnx {

// The prefix of the .npy names for a network written to `json_path`: its stem and "_"
// ("out/net.json" -> "net_").
std::string FilePrefix(const std::string& json_path);

// The paths WriteImported writes: `json_path` and every file of `network` in its directory.
std::vector<std::string> OutputPaths(const ImportedNetwork& network, const std::string& json_path);

// Writes `network` to `json_path` and its .npy files to the same directory. Throws ImportError,
// before writing anything, if the directory does not exist or is not writable, or (without
// `force`) if any of the files exists, naming them.
void WriteImported(const ImportedNetwork& network, const std::string& json_path, bool force);

}  // namespace tpu::onnx

#endif  // TPU_ONNX_ONNX_WRITE_H_
