// The subset of an ONNX model (onnx.proto) that the importer reads, decoded by the wire-format
// reader: ModelProto.graph and opset_import; GraphProto node, initializer, input, output,
// value_info; NodeProto; AttributeProto (f, i, s, t, floats, ints); TensorProto (dims,
// data_type, raw_data, float_data, int32_data, int64_data, double_data); ValueInfoProto's
// tensor type and shape. Other fields are skipped (their lengths still checked).
#ifndef TPU_ONNX_ONNX_MODEL_H_
#define TPU_ONNX_ONNX_MODEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx/proto_reader.h"

namespace tpu::onnx {

// TensorProto.DataType values the importer decodes.
enum DataType : int32_t {
  kFloat = 1, kUint8 = 2, kInt8 = 3, kInt32 = 6, kInt64 = 7, kDouble = 11
};
// A value of an int8/uint8 tensor as int8: uint8 minus 128.
inline int32_t ToInt8(int32_t data_type, double value) {
  return static_cast<int32_t>(value) - (data_type == kUint8 ? 128 : 0);
}

// "float", "uint8", ..., or "data type <n>".
std::string DataTypeName(int32_t data_type);

struct TensorData {
  std::string name;
  int32_t data_type = 0;
  std::vector<int64_t> dims;
  // Every element as a double (exact for all the types above: int64 values beyond 2^53 are
  // refused), in row-major order; as many as the dims say.
  std::vector<double> values;
};

struct Attribute {
  std::string name;
  int64_t type = 0;  // AttributeProto.AttributeType (0 when the producer left it out)
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::optional<TensorData> t;
};

struct Node {
  std::string name, op_type, domain;
  std::vector<std::string> inputs, outputs;  // "" = an omitted optional input
  std::vector<Attribute> attributes;

  const Attribute* Find(const std::string& attribute) const;
};

struct ValueInfo {
  std::string name;
  int32_t elem_type = 0;      // 0: not given
  bool has_shape = false;
  std::vector<int64_t> dims;  // -1 for a symbolic or missing dimension
};

struct Graph {
  std::string name;
  std::vector<Node> nodes;
  std::vector<TensorData> initializers;
  std::vector<ValueInfo> inputs, outputs, value_info;
};

struct Model {
  int64_t ir_version = 0;
  std::vector<std::pair<std::string, int64_t>> opset_import;  // (domain, version)
  Graph graph;
};

// Decodes a serialized ModelProto; `name` (the file) prefixes every error. Throws ParseError
// for malformed bytes, a tensor whose data does not match its dims and type, external data.
Model ParseModel(std::string_view bytes, const std::string& name);
// Decodes a serialized TensorProto (ONNX's test data files, input_0.pb).
TensorData ParseTensor(std::string_view bytes, const std::string& name);

// The whole file at `path`; throws ParseError if it cannot be read.
std::string ReadFileBytes(const std::string& path);

}  // namespace tpu::onnx

#endif  // TPU_ONNX_ONNX_MODEL_H_
