#include "onnx/onnx_model.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace tpu::onnx {
namespace {

// Elements a tensor may hold: far above any model the device can run, low enough that the
// element count of hostile dims cannot overflow or exhaust memory before the data is checked.
constexpr int64_t kMaxElements = int64_t{1} << 31;

size_t ElementSize(int32_t data_type) {
  switch (data_type) {
    case kFloat: case kInt32: return 4;
    case kUint8: case kInt8: return 1;
    case kInt64: case kDouble: return 8;
    default: return 0;
  }
}

void DecodeRaw(const TensorData& t, std::string_view raw, const std::string& where,
               std::vector<double>* out) {
  const size_t size = ElementSize(t.data_type);
  for (size_t i = 0; i + size <= raw.size(); i += size) {
    const char* p = raw.data() + i;
    switch (t.data_type) {
      case kFloat: { float v; std::memcpy(&v, p, 4); out->push_back(v); break; }
      case kUint8: out->push_back(static_cast<uint8_t>(*p)); break;
      case kInt8: out->push_back(static_cast<int8_t>(*p)); break;
      case kInt32: { int32_t v; std::memcpy(&v, p, 4); out->push_back(v); break; }
      case kInt64: {
        int64_t v;
        std::memcpy(&v, p, 8);
        if (v > (int64_t{1} << 53) || v < -(int64_t{1} << 53)) {
          throw ParseError(where + ": int64 value " + std::to_string(v) +
                           " beyond 2^53 (not a shape, axis or bias the importer can use)");
        }
        out->push_back(static_cast<double>(v));
        break;
      }
      case kDouble: { double v; std::memcpy(&v, p, 8); out->push_back(v); break; }
    }
  }
}

TensorData DecodeTensor(std::string_view bytes, const std::string& where) {
  ProtoReader r(bytes, where);
  TensorData t;
  std::string_view raw;
  bool has_raw = false;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<double> doubles;
  ProtoField f;
  while (r.Next(&f)) {
    switch (f.number) {
      case 1: AppendInts(r, f, &t.dims); break;
      case 2: t.data_type = static_cast<int32_t>(FieldInt(r, f)); break;
      case 3: r.Fail(f, "segmented tensors are not supported");
      case 4: AppendFloats(r, f, &floats); break;
      case 5: case 7: AppendInts(r, f, &ints); break;
      case 8: t.name = FieldString(r, f); break;
      case 9:
        if (f.type != WireType::kLengthDelimited) r.Fail(f, "raw_data is not length-delimited");
        raw = f.bytes;
        has_raw = true;
        break;
      case 10: AppendDoubles(r, f, &doubles); break;
      case 14:
        if (FieldInt(r, f) != 0) {
          r.Fail(f, "tensor '" + t.name + "' keeps its data in an external file; save the model "
                    "with its tensors inside (onnx.save(model, path, save_as_external_data=False))");
        }
        break;
      default: break;  // doc_string, string_data, uint64_data, external_data: not used
    }
  }
  const std::string named = where + " (tensor '" + t.name + "')";
  int64_t count = 1;
  for (int64_t d : t.dims) {
    if (d < 0 || (d > 0 && count > kMaxElements / d)) {
      throw ParseError(named + ": dims invalid or too large");
    }
    count *= d;
  }
  const size_t size = ElementSize(t.data_type);
  if (size == 0) {
    throw ParseError(named + ": data type " + DataTypeName(t.data_type) +
                     " is not supported (the importer reads float, double, int8, uint8, int32, "
                     "int64 tensors)");
  }
  if (has_raw) {
    if (raw.size() != static_cast<size_t>(count) * size) {
      throw ParseError(named + ": raw_data holds " + std::to_string(raw.size()) +
                       " bytes, dims and type need " + std::to_string(count * size));
    }
    t.values.reserve(static_cast<size_t>(count));
    DecodeRaw(t, raw, named, &t.values);
  } else if (t.data_type == kFloat) {
    t.values.assign(floats.begin(), floats.end());
  } else if (t.data_type == kDouble) {
    t.values.assign(doubles.begin(), doubles.end());
  } else {
    for (int64_t v : ints) {
      // int32_data holds int8/uint8/int32 elements; check they are in their type's range.
      const bool ok = t.data_type == kUint8   ? (v >= 0 && v <= 255)
                      : t.data_type == kInt8  ? (v >= -128 && v <= 127)
                      : t.data_type == kInt32 ? (static_cast<int32_t>(v) == v ||
                                                 static_cast<uint32_t>(v) == v)
                                              : (v <= (int64_t{1} << 53) && v >= -(int64_t{1} << 53));
      if (!ok) {
        throw ParseError(named + ": value " + std::to_string(v) + " out of range for " +
                         DataTypeName(t.data_type));
      }
      t.values.push_back(static_cast<double>(
          t.data_type == kInt32 ? static_cast<int64_t>(static_cast<int32_t>(v)) : v));
    }
  }
  if (t.values.size() != static_cast<size_t>(count)) {
    throw ParseError(named + ": holds " + std::to_string(t.values.size()) +
                     " values, its dims say " + std::to_string(count));
  }
  return t;
}

Attribute DecodeAttribute(std::string_view bytes, const std::string& where) {
  ProtoReader r(bytes, where);
  Attribute a;
  ProtoField f;
  while (r.Next(&f)) {
    switch (f.number) {
      case 1: a.name = FieldString(r, f); break;
      case 2: a.f = FieldFloat(r, f); break;
      case 3: a.i = FieldInt(r, f); break;
      case 4: a.s = FieldString(r, f); break;
      case 5:
        if (f.type != WireType::kLengthDelimited) r.Fail(f, "t is not a message");
        a.t = DecodeTensor(f.bytes, where + ".t");
        break;
      case 7: AppendFloats(r, f, &a.floats); break;
      case 8: AppendInts(r, f, &a.ints); break;
      case 20: a.type = FieldInt(r, f); break;
      default: break;  // g, graphs, tensors, strings, ...: no operator the importer maps uses them
    }
  }
  return a;
}

Node DecodeNode(std::string_view bytes, const std::string& where) {
  ProtoReader r(bytes, where);
  Node n;
  ProtoField f;
  while (r.Next(&f)) {
    switch (f.number) {
      case 1: n.inputs.push_back(FieldString(r, f)); break;
      case 2: n.outputs.push_back(FieldString(r, f)); break;
      case 3: n.name = FieldString(r, f); break;
      case 4: n.op_type = FieldString(r, f); break;
      case 5:
        if (f.type != WireType::kLengthDelimited) r.Fail(f, "attribute is not a message");
        n.attributes.push_back(DecodeAttribute(
            f.bytes, where + ".attribute[" + std::to_string(n.attributes.size()) + "]"));
        break;
      case 7: n.domain = FieldString(r, f); break;
      default: break;
    }
  }
  return n;
}

// TensorShapeProto.Dimension: dim_value = 1 (int64), dim_param = 2 (string).
int64_t DecodeDim(std::string_view bytes, const std::string& where) {
  ProtoReader r(bytes, where);
  int64_t value = -1;
  ProtoField f;
  while (r.Next(&f)) {
    if (f.number == 1) value = FieldInt(r, f);
  }
  return value;
}

// ValueInfoProto: name = 1, type = 2 (TypeProto: tensor_type = 1 (elem_type = 1, shape = 2
// (dim = 1))).
ValueInfo DecodeValueInfo(std::string_view bytes, const std::string& where) {
  ValueInfo v;
  ProtoReader r(bytes, where);
  ProtoField f;
  while (r.Next(&f)) {
    if (f.number == 1) v.name = FieldString(r, f);
    if (f.number != 2 || f.type != WireType::kLengthDelimited) continue;
    ProtoReader type(f.bytes, where + ".type");
    ProtoField tf;
    while (type.Next(&tf)) {
      if (tf.number != 1 || tf.type != WireType::kLengthDelimited) continue;
      ProtoReader tensor(tf.bytes, where + ".type.tensor_type");
      ProtoField ef;
      while (tensor.Next(&ef)) {
        if (ef.number == 1) v.elem_type = static_cast<int32_t>(FieldInt(tensor, ef));
        if (ef.number != 2 || ef.type != WireType::kLengthDelimited) continue;
        v.has_shape = true;
        ProtoReader shape(ef.bytes, where + ".type.tensor_type.shape");
        ProtoField df;
        while (shape.Next(&df)) {
          if (df.number != 1) continue;
          if (df.type != WireType::kLengthDelimited) shape.Fail(df, "dim is not a message");
          v.dims.push_back(DecodeDim(df.bytes, shape.path() + ".dim"));
        }
      }
    }
  }
  return v;
}

Graph DecodeGraph(std::string_view bytes, const std::string& where) {
  ProtoReader r(bytes, where);
  Graph g;
  ProtoField f;
  auto message = [&](const char* what) {
    if (f.type != WireType::kLengthDelimited) r.Fail(f, std::string(what) + " is not a message");
  };
  while (r.Next(&f)) {
    switch (f.number) {
      case 1:
        message("node");
        g.nodes.push_back(
            DecodeNode(f.bytes, where + ".node[" + std::to_string(g.nodes.size()) + "]"));
        break;
      case 2: g.name = FieldString(r, f); break;
      case 5:
        message("initializer");
        g.initializers.push_back(DecodeTensor(
            f.bytes, where + ".initializer[" + std::to_string(g.initializers.size()) + "]"));
        break;
      case 11:
        message("input");
        g.inputs.push_back(
            DecodeValueInfo(f.bytes, where + ".input[" + std::to_string(g.inputs.size()) + "]"));
        break;
      case 12:
        message("output");
        g.outputs.push_back(DecodeValueInfo(
            f.bytes, where + ".output[" + std::to_string(g.outputs.size()) + "]"));
        break;
      case 13:
        message("value_info");
        g.value_info.push_back(DecodeValueInfo(
            f.bytes, where + ".value_info[" + std::to_string(g.value_info.size()) + "]"));
        break;
      case 15: r.Fail(f, "sparse initializers are not supported");
      default: break;
    }
  }
  return g;
}

}  // namespace

std::string DataTypeName(int32_t data_type) {
  switch (data_type) {
    case kFloat: return "float";
    case kUint8: return "uint8";
    case kInt8: return "int8";
    case 4: return "uint16";
    case 5: return "int16";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case 8: return "string";
    case 9: return "bool";
    case 10: return "float16";
    case kDouble: return "double";
    case 16: return "bfloat16";
    default: return "data type " + std::to_string(data_type);
  }
}

const Attribute* Node::Find(const std::string& attribute) const {
  for (const Attribute& a : attributes) {
    if (a.name == attribute) return &a;
  }
  return nullptr;
}

Model ParseModel(std::string_view bytes, const std::string& name) {
  ProtoReader r(bytes, name + ": ModelProto");
  Model m;
  bool has_graph = false;
  ProtoField f;
  while (r.Next(&f)) {
    switch (f.number) {
      case 1: m.ir_version = FieldInt(r, f); break;
      case 7:
        if (f.type != WireType::kLengthDelimited) r.Fail(f, "graph is not a message");
        m.graph = DecodeGraph(f.bytes, r.path() + ".graph");
        has_graph = true;
        break;
      case 8: {
        if (f.type != WireType::kLengthDelimited) r.Fail(f, "opset_import is not a message");
        ProtoReader op(f.bytes, r.path() + ".opset_import");
        std::pair<std::string, int64_t> entry{"", 0};
        ProtoField of;
        while (op.Next(&of)) {
          if (of.number == 1) entry.first = FieldString(op, of);
          if (of.number == 2) entry.second = FieldInt(op, of);
        }
        m.opset_import.push_back(entry);
        break;
      }
      default: break;
    }
  }
  if (!has_graph) {
    throw ParseError(name + ": no graph (ModelProto field 7): not an ONNX model, or an empty "
                            "file");
  }
  return m;
}

TensorData ParseTensor(std::string_view bytes, const std::string& name) {
  return DecodeTensor(bytes, name + ": TensorProto");
}

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path + ": cannot open the file");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw ParseError(path + ": cannot read the file");
  return bytes.str();
}

}  // namespace tpu::onnx
