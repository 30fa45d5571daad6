#include "onnx/proto_reader.h"

#include <cstring>
#include <utility>

namespace tpu::onnx {

ProtoReader::ProtoReader(std::string_view data, std::string path)
    : data_(data), path_(std::move(path)) {}

void ProtoReader::Fail(const ProtoField& field, const std::string& problem) const {
  throw ParseError(path_ + ": field " + std::to_string(field.number) + " at offset " +
                   std::to_string(field.offset) + ": " + problem);
}

uint64_t ProtoReader::ReadVarint(const char* what) {
  uint64_t value = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos_ >= data_.size()) {
      throw ParseError(path_ + ": " + what + " at offset " + std::to_string(pos_) +
                       " runs past the end of the message (truncated file?)");
    }
    const uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) return value;
  }
  throw ParseError(path_ + ": " + what + " at offset " + std::to_string(pos_) +
                   " is longer than 10 bytes (not a protobuf message?)");
}

bool ProtoReader::Next(ProtoField* field) {
  if (pos_ >= data_.size()) return false;
  *field = ProtoField{};
  field->offset = pos_;
  const uint64_t tag = ReadVarint("field tag");
  const uint64_t number = tag >> 3;
  if (number == 0 || number > 0x1fffffff) {
    throw ParseError(path_ + ": invalid field number " + std::to_string(number) + " at offset " +
                     std::to_string(field->offset) + " (not a protobuf message, or corrupted)");
  }
  field->number = static_cast<uint32_t>(number);
  const auto type = static_cast<int>(tag & 7);
  auto take = [&](uint64_t n) {
    if (n > data_.size() - pos_) {
      Fail(*field, "needs " + std::to_string(n) + " bytes but only " +
                       std::to_string(data_.size() - pos_) +
                       " are left in the message (truncated or corrupted file)");
    }
    field->bytes = data_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
  };
  switch (type) {
    case 0:
      field->type = WireType::kVarint;
      field->varint = ReadVarint("varint");
      break;
    case 1:
      field->type = WireType::kFixed64;
      take(8);
      break;
    case 2:
      field->type = WireType::kLengthDelimited;
      take(ReadVarint("length"));
      break;
    case 5:
      field->type = WireType::kFixed32;
      take(4);
      break;
    default:
      Fail(*field, "wire type " + std::to_string(type) +
                       " is not used by ONNX (groups or invalid: corrupted file?)");
  }
  return true;
}

namespace {

const char* WireTypeName(WireType type) {
  switch (type) {
    case WireType::kVarint: return "varint";
    case WireType::kFixed64: return "fixed64";
    case WireType::kLengthDelimited: return "length-delimited";
    case WireType::kFixed32: return "fixed32";
  }
  return "?";
}

void Expect(const ProtoReader& reader, const ProtoField& field, WireType type) {
  if (field.type != type) {
    reader.Fail(field, std::string("wire type ") + WireTypeName(field.type) + ", expected " +
                           WireTypeName(type));
  }
}

// Decodes the varints of a packed payload.
void AppendPackedVarints(const ProtoReader& reader, const ProtoField& field,
                         std::vector<int64_t>* out) {
  // A packed payload is a bare run of varints, each bounded by the payload.
  size_t pos = 0;
  const std::string_view data = field.bytes;
  while (pos < data.size()) {
    uint64_t value = 0;
    int i = 0;
    for (;; ++i) {
      if (i == 10 || pos >= data.size()) {
        reader.Fail(field, "a packed varint runs past the end of its field or is longer than "
                           "10 bytes (corrupted file?)");
      }
      const uint8_t byte = static_cast<uint8_t>(data[pos++]);
      value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
      if ((byte & 0x80) == 0) break;
    }
    out->push_back(static_cast<int64_t>(value));
  }
}

template <typename T>
void AppendFixed(const ProtoReader& reader, const ProtoField& field, WireType single,
                 std::vector<T>* out) {
  if (field.type == single) {
    T value;
    std::memcpy(&value, field.bytes.data(), sizeof(T));
    out->push_back(value);
    return;
  }
  Expect(reader, field, WireType::kLengthDelimited);
  if (field.bytes.size() % sizeof(T) != 0) {
    reader.Fail(field, "packed payload of " + std::to_string(field.bytes.size()) +
                           " bytes is not a multiple of " + std::to_string(sizeof(T)));
  }
  for (size_t i = 0; i < field.bytes.size(); i += sizeof(T)) {
    T value;
    std::memcpy(&value, field.bytes.data() + i, sizeof(T));
    out->push_back(value);
  }
}

}  // namespace

std::string FieldString(const ProtoReader& reader, const ProtoField& field) {
  Expect(reader, field, WireType::kLengthDelimited);
  return std::string(field.bytes);
}

int64_t FieldInt(const ProtoReader& reader, const ProtoField& field) {
  Expect(reader, field, WireType::kVarint);
  return static_cast<int64_t>(field.varint);
}

float FieldFloat(const ProtoReader& reader, const ProtoField& field) {
  Expect(reader, field, WireType::kFixed32);
  float value;
  std::memcpy(&value, field.bytes.data(), sizeof value);
  return value;
}

void AppendInts(const ProtoReader& reader, const ProtoField& field, std::vector<int64_t>* out) {
  if (field.type == WireType::kVarint) {
    out->push_back(static_cast<int64_t>(field.varint));
    return;
  }
  Expect(reader, field, WireType::kLengthDelimited);
  AppendPackedVarints(reader, field, out);
}

void AppendFloats(const ProtoReader& reader, const ProtoField& field, std::vector<float>* out) {
  AppendFixed(reader, field, WireType::kFixed32, out);
}

void AppendDoubles(const ProtoReader& reader, const ProtoField& field,
                   std::vector<double>* out) {
  AppendFixed(reader, field, WireType::kFixed64, out);
}

}  // namespace tpu::onnx
