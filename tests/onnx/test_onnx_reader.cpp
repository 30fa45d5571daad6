// The ONNX wire-format reader (host_driver/onnx/proto_reader.h, onnx_model.h): hand-built
// messages field by field, packed and unpacked repeated fields, every kind of malformed input;
// and a mutation test: every truncation and every single-bit flip of the committed models is
// either rejected with a message (ParseError, or ImportError from the mapping) or still a valid
// model, never a crash or another exception.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "onnx/onnx_import.h"
#include "onnx/onnx_model.h"
#include "mutation_testing.h"
#include "onnx/proto_reader.h"

namespace tpu::onnx {
namespace {

// Protobuf encoding, for building messages by hand.
std::string Varint(uint64_t v) {
  std::string s;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    if (v != 0) b |= 0x80;
    s += static_cast<char>(b);
  } while (v != 0);
  return s;
}
std::string Tag(int field, int wire) { return Varint(static_cast<uint64_t>(field) << 3 | wire); }
std::string VarintField(int field, uint64_t v) { return Tag(field, 0) + Varint(v); }
std::string Bytes(int field, const std::string& payload) {
  return Tag(field, 2) + Varint(payload.size()) + payload;
}
std::string Float32(float f) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &f, 4);
  return s;
}

TEST(ProtoReader, ReadsFieldsOfEveryWireType) {
  const std::string msg = VarintField(1, 300) + Bytes(2, "abc") + Tag(3, 5) + Float32(1.5f) +
                          Tag(4, 1) + std::string(8, '\x01');
  ProtoReader r(msg, "Test");
  ProtoField f;
  ASSERT_TRUE(r.Next(&f));
  EXPECT_EQ(f.number, 1u);
  EXPECT_EQ(FieldInt(r, f), 300);
  ASSERT_TRUE(r.Next(&f));
  EXPECT_EQ(FieldString(r, f), "abc");
  ASSERT_TRUE(r.Next(&f));
  EXPECT_EQ(FieldFloat(r, f), 1.5f);
  ASSERT_TRUE(r.Next(&f));
  EXPECT_EQ(f.type, WireType::kFixed64);
  EXPECT_EQ(f.bytes.size(), 8u);
  EXPECT_FALSE(r.Next(&f));
}

TEST(ProtoReader, PackedAndUnpackedRepeatedFieldsAgree) {
  std::vector<int64_t> packed, unpacked;
  const std::string p = Bytes(1, Varint(2) + Varint(300) + Varint(7));
  const std::string u = VarintField(1, 2) + VarintField(1, 300) + VarintField(1, 7);
  ProtoField f;
  ProtoReader rp(p, "P");
  while (rp.Next(&f)) AppendInts(rp, f, &packed);
  ProtoReader ru(u, "U");
  while (ru.Next(&f)) AppendInts(ru, f, &unpacked);
  EXPECT_EQ(packed, (std::vector<int64_t>{2, 300, 7}));
  EXPECT_EQ(packed, unpacked);
}

// Each malformed message is a ParseError whose text says what is wrong.
TEST(ProtoReader, RejectsMalformedMessagesWithAMessage) {
  struct Case {
    std::string bytes, expect;
  };
  const std::vector<Case> cases = {
      {Tag(1, 2) + Varint(10) + "abc", "only 3 are left"},
      {Tag(1, 0) + "\x80\x80", "runs past the end"},
      {Tag(1, 0) + std::string(11, '\xff'), "longer than 10 bytes"},
      {Tag(1, 3), "wire type 3"},
      {Tag(1, 7), "wire type 7"},
      {VarintField(0, 1), "invalid field number 0"},
      {Tag(1, 5) + "ab", "needs 4 bytes"},
  };
  for (const Case& c : cases) {
    ProtoReader r(c.bytes, "Test");
    ProtoField f;
    try {
      while (r.Next(&f)) {
      }
      ADD_FAILURE() << "accepted: " << c.expect;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
    }
  }
}

TEST(OnnxModel, DecodesTensorsFromRawAndTypedData) {
  // dims [2, 3], int8, raw_data.
  const std::string raw = VarintField(1, 2) + VarintField(1, 3) + VarintField(2, kInt8) +
                          Bytes(8, "w") + Bytes(9, std::string("\x01\xff\x02\x80\x7f\x00", 6));
  const TensorData t = ParseTensor(raw, "t");
  EXPECT_EQ(t.name, "w");
  EXPECT_EQ(t.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.values, (std::vector<double>{1, -1, 2, -128, 127, 0}));
  // uint8 in int32_data (packed), float in float_data (packed), a scalar (no dims).
  const TensorData u = ParseTensor(
      VarintField(1, 2) + VarintField(2, kUint8) + Bytes(5, Varint(0) + Varint(255)), "u");
  EXPECT_EQ(u.values, (std::vector<double>{0, 255}));
  const TensorData f = ParseTensor(VarintField(2, kFloat) + Bytes(4, Float32(0.25f)), "f");
  EXPECT_TRUE(f.dims.empty());
  EXPECT_EQ(f.values, (std::vector<double>{0.25}));
}

TEST(OnnxModel, RejectsInconsistentTensors) {
  struct Case {
    std::string bytes, expect;
  };
  const std::vector<Case> cases = {
      {VarintField(1, 4) + VarintField(2, kInt8) + Bytes(9, "abc"), "raw_data holds 3 bytes"},
      {VarintField(1, 2) + VarintField(2, kUint8) + Bytes(5, Varint(256) + Varint(1)),
       "out of range for uint8"},
      {VarintField(1, 3) + VarintField(2, kFloat) + Bytes(4, Float32(1)), "holds 1 values"},
      {VarintField(2, 8), "string"},
      {VarintField(1, uint64_t{1} << 40) + VarintField(1, uint64_t{1} << 40) + VarintField(2, 1),
       "too large"},
      {VarintField(2, kFloat) + VarintField(14, 1), "external file"},
  };
  for (const Case& c : cases) {
    try {
      ParseTensor(c.bytes, "t");
      ADD_FAILURE() << "accepted: " << c.expect;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
    }
  }
}

TEST(OnnxModel, ReadsAGraphBuiltByHand) {
  const std::string attr = Bytes(1, "kernel_shape") + Bytes(8, Varint(2) + Varint(2)) +
                           VarintField(20, 7);
  const std::string node = Bytes(1, "x") + Bytes(2, "y") + Bytes(3, "pool") +
                           Bytes(4, "MaxPool") + Bytes(5, attr);
  const std::string dim = [] {
    std::string shape;
    for (int d : {1, 3, 4, 4}) shape += Bytes(1, VarintField(1, static_cast<uint64_t>(d)));
    return shape;
  }();
  const std::string input =
      Bytes(1, "x") + Bytes(2, Bytes(1, VarintField(1, kInt8) + Bytes(2, dim)));
  const std::string graph = Bytes(1, node) + Bytes(2, "g") + Bytes(11, input) +
                            Bytes(12, Bytes(1, "y"));
  const std::string model = VarintField(1, 8) + Bytes(7, graph) +
                            Bytes(8, Bytes(1, "") + VarintField(2, 13));
  const Model m = ParseModel(model, "m.onnx");
  EXPECT_EQ(m.ir_version, 8);
  ASSERT_EQ(m.opset_import.size(), 1u);
  EXPECT_EQ(m.opset_import[0].second, 13);
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  const Node& n = m.graph.nodes[0];
  EXPECT_EQ(n.op_type, "MaxPool");
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"x"}));
  ASSERT_NE(n.Find("kernel_shape"), nullptr);
  EXPECT_EQ(n.Find("kernel_shape")->ints, (std::vector<int64_t>{2, 2}));
  ASSERT_EQ(m.graph.inputs.size(), 1u);
  EXPECT_EQ(m.graph.inputs[0].elem_type, kInt8);
  EXPECT_EQ(m.graph.inputs[0].dims, (std::vector<int64_t>{1, 3, 4, 4}));
  // And the mapping takes it: one max pool layer.
  const ImportedNetwork net = ImportModel(m, "m.onnx", {});
  ASSERT_EQ(net.description["layers"].size(), 1u);
  EXPECT_EQ(net.description["layers"][0]["mode"], "max");
}

TEST(OnnxModel, RejectsWhatIsNotAModel) {
  for (const std::string& bytes : {std::string(), std::string("hello, world\n"),
                                   std::string("\x08\x07", 2)}) {
    EXPECT_THROW(ParseModel(bytes, "x.onnx"), ParseError);
  }
  try {
    ParseModel("", "empty.onnx");
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("empty.onnx: no graph"), std::string::npos);
  }
}

// Parses and imports `bytes`: true if it is a valid model that imports, false if rejected with
// a message; any other outcome fails the test.
bool ParsesAndImports(const std::string& bytes, const std::string& what) {
  return tpu::testing::AcceptedOrRejected<ParseError, ImportError>(
      what, [&] { ImportModel(ParseModel(bytes, what), what, {}); });
}

class Mutation : public ::testing::TestWithParam<std::string> {};

TEST_P(Mutation, TruncatedFilesAreRejected) {
  const std::string bytes = ReadFileBytes(std::string(TPU_ONNX_MODELS) + "/" + GetParam());
  ASSERT_TRUE(ParsesAndImports(bytes, GetParam()));
  int accepted = 0;
  tpu::testing::ForEachTruncation(bytes, [&](const std::string& m, const std::string& what) {
    accepted += ParsesAndImports(m, GetParam() + " " + what);
  });
  // Only a cut at the end of a top-level field (after the graph) leaves a valid model.
  EXPECT_LE(accepted, 4) << "truncated models that still import";
}

TEST_P(Mutation, BitFlipsAreRejectedOrHarmless) {
  const std::string bytes = ReadFileBytes(std::string(TPU_ONNX_MODELS) + "/" + GetParam());
  int rejected = 0, total = 0;
  tpu::testing::ForEachBitFlip(bytes, [&](const std::string& m, const std::string& what) {
    rejected += !ParsesAndImports(m, GetParam() + " " + what);
    ++total;
  });
  // Most flips hit a tag, a length, a name or a shape and are caught; flips in weight values
  // give another valid model.
  EXPECT_GT(rejected, total / 4);
  std::cout << GetParam() << ": " << rejected << " of " << total << " bit flips rejected\n";
}

INSTANTIATE_TEST_SUITE_P(Models, Mutation,
                         ::testing::Values("qdq_cnn.onnx", "qlinear_mlp.onnx",
                                           "qdq_conv_asym.onnx"),
                         [](const auto& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

}  // namespace
}  // namespace tpu::onnx
