// `tpu import`: an int8 ONNX graph mapped to the network format (docs/networks.md,
// docs/onnx_import.md). The graph must be a chain (each node consumes the previous one's
// output) of QLinearConv, QLinearMatMul, Conv / Gemm / MatMul in QDQ form (DequantizeLinear ->
// op -> QuantizeLinear), MaxPool, AveragePool, Relu, Clip, Flatten and Reshape (to 2-D,
// batch-first), with constant weights, scales and zero points. The mapping is exact: uint8
// tensors become int8 by subtracting 128 (values and zero points), NCHW becomes NHWC (conv
// weights OIHW -> HWIO; the rows of a dense layer after a Flatten of a 4-D tensor are permuted
// from C,H,W to H,W,C order), per-channel weight scales become per-channel requantization.
// Anything the device cannot run is an ImportError naming the node (name and op_type), the
// attribute or input, and what would work.
#ifndef TPU_ONNX_ONNX_IMPORT_H_
#define TPU_ONNX_ONNX_IMPORT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/tensor.h"
#include "onnx/onnx_model.h"

namespace tpu::onnx {

class ImportError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// One .npy file of the imported network: int8 weights or int32 bias / multipliers / shifts.
struct NpyFile {
  std::string name;  // relative to the network's directory
  bool is_int8 = true;
  golden::Tensor<int8_t> int8;
  golden::Tensor<int32_t> int32;
};

struct ImportedNetwork {
  nlohmann::ordered_json description;  // the network JSON; its file names are those of `files`
  std::vector<NpyFile> files;
  // One line per network layer: the layer and the ONNX nodes it comes from.
  std::vector<std::string> mapping;
  // What the user must know to feed and read it (layout, uint8 -> int8, fixed batch, ...).
  std::vector<std::string> notes;
  bool input_uint8 = false, output_uint8 = false;  // the ONNX input / output element type
  bool input_nchw = false, output_nchw = false;    // 4-D: transposed to / from NHWC
};

struct ImportOptions {
  std::string name;         // the network's "name" ("" = the graph's name)
  std::string file_prefix;  // prefix of every .npy name, e.g. "net_" -> "net_conv1_weights.npy"
};

// Maps `model` (`source` names it in messages). Throws ImportError.
ImportedNetwork ImportModel(const Model& model, const std::string& source,
                            const ImportOptions& options);

}  // namespace tpu::onnx

#endif  // TPU_ONNX_ONNX_IMPORT_H_
