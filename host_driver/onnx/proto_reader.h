// A protobuf wire-format reader (https://protobuf.dev/programming-guides/encoding/) for the
// few ONNX messages the importer reads: fields one by one, every length checked against what
// is left, so that a truncated or corrupted file is an error, never a read out of bounds.
//
//   ProtoReader reader(bytes, "ModelProto");
//   ProtoField field;
//   while (reader.Next(&field)) { if (field.number == 7) ...field.bytes... }
#ifndef TPU_ONNX_PROTO_READER_H_
#define TPU_ONNX_PROTO_READER_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tpu::onnx {

// A file that is not a well-formed message of the expected kind; the message names the
// message path (e.g. "ModelProto.graph.node[3]"), the byte offset within it and the problem.
class ParseError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

struct ProtoField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t varint = 0;     // kVarint
  std::string_view bytes;  // kLengthDelimited: the payload; kFixed32/kFixed64: the 4 or 8 bytes
  size_t offset = 0;       // where the field's tag starts, for messages
};

class ProtoReader {
 public:
  // `path` names the message in errors. `data` must outlive the reader and its fields.
  ProtoReader(std::string_view data, std::string path);

  // The next field, or false at the end of the message. Throws ParseError for a varint longer
  // than 10 bytes, a length beyond the end, field number 0, groups (wire types 3, 4) and wire
  // types 6 and 7.
  bool Next(ProtoField* field);

  // Throws ParseError "<path>: field <n> at offset <o>: <problem>".
  [[noreturn]] void Fail(const ProtoField& field, const std::string& problem) const;

  const std::string& path() const { return path_; }

 private:
  uint64_t ReadVarint(const char* what);

  std::string_view data_;
  size_t pos_ = 0;
  std::string path_;
};

// Field payload helpers. Each checks the wire type the schema gives (a mismatch is a
// ParseError through `reader`) and converts.
std::string FieldString(const ProtoReader& reader, const ProtoField& field);
int64_t FieldInt(const ProtoReader& reader, const ProtoField& field);  // int32/int64 varint
float FieldFloat(const ProtoReader& reader, const ProtoField& field);  // fixed32

// Repeated scalar fields, packed (one length-delimited field) or not (one field per value):
// appends the field's values to `out`.
void AppendInts(const ProtoReader& reader, const ProtoField& field, std::vector<int64_t>* out);
void AppendFloats(const ProtoReader& reader, const ProtoField& field, std::vector<float>* out);
void AppendDoubles(const ProtoReader& reader, const ProtoField& field, std::vector<double>* out);

}  // namespace tpu::onnx

#endif  // TPU_ONNX_PROTO_READER_H_
