// Reading and writing .npy arrays: the hand-written fixtures, round trips of every rank and both
// dtypes and versions, and every error (dtype, order, size, file), each naming the file and what
// was expected.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "npy/npy.h"
#include "npy_fixtures.h"
#include "scratch_dir.h"

namespace tpu::npy {
namespace {

using fixtures::Npy;
using golden::Tensor;

template <typename Fn>
void ExpectError(Fn&& fn, const std::vector<std::string>& parts) {
  try {
    fn();
  } catch (const Error& e) {
    for (const auto& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "message: " << e.what() << "\nexpected to contain: " << part;
    }
    return;
  }
  ADD_FAILURE() << "no npy::Error thrown; expected one containing: " << parts.front();
}

template <typename T>
Tensor<T> RandomTensor(std::vector<int64_t> shape, std::mt19937_64& rng) {
  Tensor<T> t(std::move(shape));
  for (auto& v : t.data) v = static_cast<T>(rng());
  return t;
}

// ---------------------------------------------------------------------------------------------
// Decoding

TEST(NpyRead, HandWrittenInt8Matrix) {
  const Tensor<int8_t> t = Decode<int8_t>(fixtures::Int8Matrix(), "x.npy");
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.data, (std::vector<int8_t>{1, -2, 3, -128, 127, 0}));
}

TEST(NpyRead, HandWrittenInt32Vector) {
  const Tensor<int32_t> t = Decode<int32_t>(fixtures::Int32Vector(), "b.npy");
  EXPECT_EQ(t.shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(t.data, (std::vector<int32_t>{1, -1, INT32_MAX, INT32_MIN}));
}

TEST(NpyRead, ScalarZeroSizeAndRank3) {
  const auto scalar = Decode<int32_t>(Npy("<i4", "()", std::string("\x2a\0\0\0", 4)), "s");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.data, (std::vector<int32_t>{42}));
  const auto empty = Decode<int8_t>(Npy("|i1", "(0, 3)", ""), "e");
  EXPECT_EQ(empty.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(empty.data.empty());
  const auto cube = Decode<int8_t>(Npy("|i1", "(2, 1, 2)", "\x01\x02\x03\x04"), "c");
  EXPECT_EQ(cube.shape, (std::vector<int64_t>{2, 1, 2}));
  EXPECT_EQ(cube.At({1, 0, 1}), 4);
}

TEST(NpyRead, AllVersionsAndInt8ByteOrderMarks) {
  for (int major : {1, 2, 3}) {
    const auto t =
        Decode<int32_t>(Npy(major, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n",
                            std::string("\x01\x00\x00\x00\x00\x01\x00\x00", 8)),
                        "v");
    EXPECT_EQ(t.data, (std::vector<int32_t>{1, 256})) << "version " << major;
  }
  for (const char* descr : {"|i1", "<i1", ">i1", "=i1", "i1"}) {
    EXPECT_EQ(Decode<int8_t>(Npy(descr, "(1,)", "\xff"), "b").data, (std::vector<int8_t>{-1}))
        << descr;
  }
}

// ---------------------------------------------------------------------------------------------
// Encoding and round trips

TEST(NpyWrite, MatchesTheHandWrittenFixtures) {
  EXPECT_EQ(Encode(Tensor<int8_t>({2, 3}, {1, -2, 3, -128, 127, 0})), fixtures::Int8Matrix());
  EXPECT_EQ(Encode(Tensor<int32_t>({4}, {1, -1, INT32_MAX, INT32_MIN})), fixtures::Int32Vector());
}

TEST(NpyWrite, RoundTripEveryRankBothDtypesBothVersions) {
  const uint64_t seed = 20240501;
  std::mt19937_64 rng(seed);
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {1}, {7}, {0}, {3, 5}, {4, 0}, {2, 3, 4}, {2, 1, 3, 2}, {1, 1, 1, 1, 17}};
  for (int version : {0, 1, 2}) {
    for (const auto& shape : shapes) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " version " + std::to_string(version) +
                   " shape " + ShapeRepr(shape));
      const auto a = RandomTensor<int8_t>(shape, rng);
      const auto a2 = Decode<int8_t>(Encode(a, {version}), "a");
      EXPECT_EQ(a2.shape, a.shape);
      EXPECT_EQ(a2.data, a.data);
      const auto b = RandomTensor<int32_t>(shape, rng);
      const std::string bytes = Encode(b, {version});
      EXPECT_EQ(ParseHeader(bytes, "b").major, version == 2 ? 2 : 1);
      EXPECT_EQ(ParseHeader(bytes, "b").data_offset % 64, 0u);
      const auto b2 = Decode<int32_t>(bytes, "b");
      EXPECT_EQ(b2.shape, b.shape);
      EXPECT_EQ(b2.data, b.data);
    }
  }
}

TEST(NpyWrite, HugeHeaderSwitchesToVersion2) {
  const Tensor<int8_t> t(std::vector<int64_t>(25000, 1), {-5});
  const std::string bytes = Encode(t);
  EXPECT_EQ(ParseHeader(bytes, "big").major, 2);
  EXPECT_EQ(Decode<int8_t>(bytes, "big").data, (std::vector<int8_t>{-5}));
  ExpectError([&] { Encode(t, {1}); }, {"does not fit format version 1.0"});
}

TEST(NpyWrite, InconsistentTensor) {
  Tensor<int8_t> t({2, 2});
  t.data.pop_back();
  ExpectError([&] { Encode(t); }, {"shape [2, 2] needs 4 elements, buffer holds 3"});
}

TEST(NpyFile, WriteThenRead) {
  testing::ScratchDir dir;
  const Tensor<int32_t> t({2, 2}, {1, -2, 3, -4});
  Write(dir / "t.npy", t);
  EXPECT_EQ(testing::ReadFile(dir / "t.npy"), Encode(t));
  EXPECT_EQ(Read<int32_t>(dir / "t.npy").data, t.data);
  const Header h = ReadHeader(dir / "t.npy");
  EXPECT_EQ(h.descr, "<i4");
  EXPECT_EQ(h.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(h.data_offset, 128u);
  Write(dir / "t.npy", Tensor<int8_t>({1}, {9}));  // overwrites
  EXPECT_EQ(Read<int8_t>(dir / "t.npy").data, (std::vector<int8_t>{9}));
}

// Real values (float32, float64) for --input-float, --output-float and scales, and integer
// labels (int8, uint8, int32, int64) as numpy writes them.
TEST(NpyFile, RealsAndLabels) {
  testing::ScratchDir dir;
  const Tensor<float> f({2, 2}, {0.5f, -1.25f, 3e-8f, -0.0f});
  Write(dir / "f.npy", f);
  EXPECT_EQ(ReadHeader(dir / "f.npy").descr, "<f4");
  // The bytes numpy writes: 0.5f is 0x3f000000, little-endian.
  EXPECT_EQ(Encode(f).substr(128, 4), std::string("\0\0\0\x3f", 4));
  EXPECT_EQ(Read<float>(dir / "f.npy").data, f.data);
  const golden::Tensor<double> r = ReadReal(dir / "f.npy");
  EXPECT_EQ(r.shape, f.shape);
  EXPECT_EQ(r.data, (std::vector<double>{0.5, -1.25, double(3e-8f), 0.0}));
  const Tensor<double> d({3}, {1e300, -2.5, 0.1});
  Write(dir / "d.npy", d);
  EXPECT_EQ(ReadReal(dir / "d.npy").data, d.data);
  Write(dir / "i.npy", Tensor<int8_t>({1}, {3}));
  ExpectError([&] { ReadReal(dir / "i.npy"); },
              {"i.npy: dtype '|i1' (int8): expected float32 ('<f4') or float64 ('<f8')"});

  Write(dir / "l8.npy", Tensor<int64_t>({3}, {0, 9, int64_t(1) << 40}));
  EXPECT_EQ(ReadIntegers(dir / "l8.npy").data, (std::vector<int64_t>{0, 9, int64_t(1) << 40}));
  Write(dir / "u8.npy", Tensor<uint8_t>({2}, {255, 7}));
  EXPECT_EQ(ReadIntegers(dir / "u8.npy").data, (std::vector<int64_t>{255, 7}));
  Write(dir / "i4.npy", Tensor<int32_t>({2}, {-3, 7}));
  EXPECT_EQ(ReadIntegers(dir / "i4.npy").data, (std::vector<int64_t>{-3, 7}));
  ExpectError([&] { ReadIntegers(dir / "f.npy"); },
              {"f.npy: dtype '<f4' (float32): expected integers"});
  ExpectError([] { Decode<float>(Npy(">f4", "(1,)", std::string(4, '\0')), "b.npy"); },
              {"b.npy: dtype '>f4'", "expected float32 ('<f4')", "astype('<f4')"});
}

// ---------------------------------------------------------------------------------------------
// Errors

TEST(NpyErrors, WrongSupportedDtype) {
  ExpectError([] { Decode<int8_t>(fixtures::Int32Vector(), "b.npy"); },
              {"b.npy: dtype '<i4' (int32): expected int8 ('|i1')"});
  ExpectError([] { Decode<int32_t>(fixtures::Int8Matrix(), "x.npy"); },
              {"x.npy: dtype '|i1' (int8): expected int32 ('<i4')"});
}

TEST(NpyErrors, UnsupportedDtypesAreNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"<i2", "int16"},  {"<f4", "float32"}, {"|u1", "uint8"},
      {"|b1", "bool"},   {"<f8", "float64"}, {"<i8", "int64"},
      {"<u4", "uint32"}, {"<f2", "float16"}, {"<U3", "unicode string"}};
  for (const auto& [descr, name] : cases) {
    ExpectError([&] { Decode<int8_t>(Npy(descr, "(1,)", std::string(16, '\0')), "w.npy"); },
                {"w.npy: dtype '" + descr + "' (" + name + "): expected int8 ('|i1')",
                 "tpu reads int8 and int32 arrays only"});
  }
}

TEST(NpyErrors, BigEndianInt32) {
  ExpectError([] { Decode<int32_t>(Npy(">i4", "(1,)", "abcd"), "be.npy"); },
              {"be.npy: dtype '>i4' (big-endian int32): expected int32 ('<i4'), little-endian",
               "a.astype('<i4')"});
  ExpectError([] { Decode<int32_t>(Npy("=i4", "(1,)", "abcd"), "ne.npy"); },
              {"ne.npy: dtype '=i4'", "expected int32 ('<i4'), little-endian"});
}

TEST(NpyErrors, FortranOrder) {
  const std::string bytes =
      Npy(1, "{'descr': '|i1', 'fortran_order': True, 'shape': (2, 2), }\n", "abcd");
  ExpectError([&] { Decode<int8_t>(bytes, "f.npy"); },
              {"f.npy: fortran_order is True (column-major data): expected C order",
               "np.ascontiguousarray"});
}

TEST(NpyErrors, TruncatedOrTrailingData) {
  ExpectError([] { Decode<int32_t>(Npy("<i4", "(2, 3)", std::string(20, '\0')), "t.npy"); },
              {"t.npy: truncated: shape (2, 3) int32 needs 24 data bytes, the file has 20"});
  ExpectError([] { Decode<int8_t>(fixtures::Int8Matrix().substr(0, 130), "t.npy"); },
              {"t.npy: truncated: shape (2, 3) int8 needs 6 data bytes, the file has 2 after "
               "its 128-byte header"});
  ExpectError([] { Decode<int8_t>(fixtures::Int8Matrix().substr(0, 100), "t.npy"); },
              {"t.npy: truncated: the header length says 118 bytes"});
  ExpectError([] { Decode<int8_t>(fixtures::Int8Matrix() + "xy", "x.npy"); },
              {"x.npy: 2 bytes after the array data: shape (2, 3) int8 needs 6 data bytes"});
}

TEST(NpyErrors, ElementCountOverflow) {
  ExpectError([] { Decode<int32_t>(Npy("<i4", "(4294967296, 4294967296)", ""), "o.npy"); },
              {"o.npy: shape (4294967296, 4294967296) int32 has too many elements"});
  // A zero anywhere makes the count 0, however large the other dimensions.
  EXPECT_TRUE(Decode<int32_t>(Npy("<i4", "(4294967296, 0, 4294967296)", ""), "z").data.empty());
}

TEST(NpyErrors, HeaderErrorsNameTheFile) {
  ExpectError([] { Decode<int8_t>("not npy at all", "n.npy"); },
              {"n.npy: not a .npy file: expected the magic"});
}

TEST(NpyErrors, Files) {
  testing::ScratchDir dir;
  const std::string missing = dir / "missing.npy";
  ExpectError([&] { Read<int8_t>(missing); },
              {missing + ": cannot open for reading (No such file or directory)"});
  ExpectError([&] { ReadHeader(missing); }, {missing + ": cannot open for reading"});
  ExpectError([&] { Read<int8_t>(dir.str()); }, {dir.str() + ": is a directory"});
  ExpectError([&] { ReadHeader(dir.str()); }, {dir.str() + ": is a directory"});
  const std::string no_dir = dir / "no/such/dir/y.npy";
  ExpectError([&] { Write(no_dir, Tensor<int8_t>({1}, {0})); },
              {no_dir + ": cannot open for writing (No such file or directory)"});
  const std::string empty = dir.WriteFile("empty.npy", "");
  ExpectError([&] { Read<int32_t>(empty); }, {empty + ": not a .npy file", "the file is empty"});
  ExpectError([&] { ReadHeader(empty); }, {empty + ": not a .npy file"});
  const std::string short_header = dir.WriteFile("short.npy", fixtures::Int8Matrix().substr(0, 90));
  ExpectError([&] { ReadHeader(short_header); }, {short_header + ": truncated"});
}

}  // namespace
}  // namespace tpu::npy
