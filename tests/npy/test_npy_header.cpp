// The .npy header: the Python-literal parser, ParseHeader on every valid form and every malformed
// one (each error must name the file and what was expected), FormatHeader's exact bytes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "npy/header.h"
#include "npy/literal.h"
#include "npy/npy.h"
#include "npy_fixtures.h"

namespace tpu::npy {
namespace {

using fixtures::Npy;

// `fn` must throw npy::Error (or, for the literal parser, std::invalid_argument) whose message
// contains every string in `parts`.
template <typename Fn>
void ExpectError(Fn&& fn, const std::vector<std::string>& parts) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    for (const auto& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "message: " << e.what() << "\nexpected to contain: " << part;
    }
    return;
  }
  ADD_FAILURE() << "no error thrown; expected one containing: " << parts.front();
}

void ExpectHeaderError(const std::string& bytes, const std::vector<std::string>& parts) {
  std::vector<std::string> all = {"f.npy: "};
  all.insert(all.end(), parts.begin(), parts.end());
  ExpectError([&] { ParseHeader(bytes, "f.npy"); }, all);
}

// ---------------------------------------------------------------------------------------------
// Python literals

TEST(NpyLiteral, ParsesNumpysDict) {
  const Literal d = ParseLiteral("{'descr': '<i4', 'fortran_order': False, 'shape': (3, 4), }");
  ASSERT_EQ(d.kind, Literal::Kind::kDict);
  ASSERT_EQ(d.dict.size(), 3u);
  EXPECT_EQ(d.dict[0].first, "descr");
  EXPECT_EQ(d.dict[0].second.text, "<i4");
  EXPECT_EQ(d.dict[1].second.kind, Literal::Kind::kBool);
  EXPECT_FALSE(d.dict[1].second.boolean);
  ASSERT_EQ(d.dict[2].second.kind, Literal::Kind::kTuple);
  ASSERT_EQ(d.dict[2].second.items.size(), 2u);
  EXPECT_EQ(d.dict[2].second.items[1].integer, 4);
}

TEST(NpyLiteral, TuplesAsPythonReadsThem) {
  EXPECT_EQ(ParseLiteral("()").kind, Literal::Kind::kTuple);
  EXPECT_TRUE(ParseLiteral("()").items.empty());
  EXPECT_EQ(ParseLiteral("(3,)").kind, Literal::Kind::kTuple);
  EXPECT_EQ(ParseLiteral("( 3 , )").items.size(), 1u);
  EXPECT_EQ(ParseLiteral("(3)").kind, Literal::Kind::kInt);  // parentheses, not a tuple
  EXPECT_EQ(ParseLiteral("(1, 2, 3,)").items.size(), 3u);
  EXPECT_EQ(ParseLiteral("[1, [2, (3,)]]").items[1].items[1].kind, Literal::Kind::kTuple);
}

TEST(NpyLiteral, Lenient) {
  const Literal d = ParseLiteral(" \t{ \"shape\" :(2L,3l ,),\n'fortran_order':True,'x':None }\n ");
  ASSERT_EQ(d.dict.size(), 3u);
  EXPECT_EQ(d.dict[0].second.items[0].integer, 2);  // Python 2's long suffix
  EXPECT_EQ(d.dict[0].second.items[1].integer, 3);
  EXPECT_TRUE(d.dict[1].second.boolean);
  EXPECT_EQ(d.dict[2].second.kind, Literal::Kind::kNone);
  EXPECT_EQ(ParseLiteral("'it\\'s'").text, "it's");
  EXPECT_EQ(ParseLiteral("-9223372036854775808").integer, INT64_MIN);
  EXPECT_EQ(ParseLiteral("+9223372036854775807").integer, INT64_MAX);
  EXPECT_EQ(ParseLiteral("{}").dict.size(), 0u);
  EXPECT_EQ(ParseLiteral("(1, # one\n 2) # done").items.size(), 2u);  // comments
  EXPECT_EQ(ParseLiteral("'# not a comment'").text, "# not a comment");
}

TEST(NpyLiteral, Repr) {
  EXPECT_EQ(Repr(ParseLiteral("( 3 ,)")), "(3,)");
  EXPECT_EQ(Repr(ParseLiteral("(2,3)")), "(2, 3)");
  EXPECT_EQ(Repr(ParseLiteral("[('a', '<i4')]")), "[('a', '<i4')]");
  EXPECT_EQ(Repr(ParseLiteral("{\"k\": True}")), "{'k': True}");
}

TEST(NpyLiteral, Errors) {
  ExpectError([] { ParseLiteral(""); }, {"at character 0: expected a value", "found the end"});
  ExpectError([] { ParseLiteral("'abc"); }, {"expected the closing '"});
  ExpectError([] { ParseLiteral("{'a' 1}"); }, {"at character 5: expected ':'", "found '1'"});
  ExpectError([] { ParseLiteral("{'a': 1 'b': 2}"); }, {"expected ',' or '}'"});
  ExpectError([] { ParseLiteral("{1: 2}"); }, {"expected a quoted key"});
  ExpectError([] { ParseLiteral("(1 2)"); }, {"expected ',' or ')'"});
  ExpectError([] { ParseLiteral("[1 2]"); }, {"expected ',' or ']'"});
  ExpectError([] { ParseLiteral("Fals"); }, {"expected True, False or None"});
  ExpectError([] { ParseLiteral("3.5"); }, {"expected the end of the literal", "found '.'"});
  ExpectError([] { ParseLiteral("-"); }, {"expected a digit"});
  ExpectError([] { ParseLiteral("9223372036854775808"); }, {"an integer that fits in 64 bits"});
  ExpectError([] { ParseLiteral("{} {}"); }, {"expected the end of the literal"});
  ExpectError([] { ParseLiteral(std::string(40, '(') + std::string(40, ')')); },
              {"at most 32 levels of nesting"});
  ExpectError([] { ParseLiteral("@"); }, {"expected a value"});
}

// ---------------------------------------------------------------------------------------------
// ParseHeader

TEST(NpyHeader, NumpysHeader) {
  const Header h = ParseHeader(fixtures::Int8Matrix(), "x.npy");
  EXPECT_EQ(h.major, 1);
  EXPECT_EQ(h.minor, 0);
  EXPECT_EQ(h.descr, "|i1");
  EXPECT_FALSE(h.fortran_order);
  EXPECT_EQ(h.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(h.data_offset, 128u);
}

TEST(NpyHeader, Versions2And3HaveA32BitLength) {
  for (int major : {2, 3}) {
    const std::string bytes =
        Npy(major, "{'descr': '<i4', 'fortran_order': False, 'shape': (), }\n", "abcd");
    const Header h = ParseHeader(bytes, "v.npy");
    EXPECT_EQ(h.major, major);
    EXPECT_TRUE(h.shape.empty());
    EXPECT_EQ(h.data_offset, bytes.size() - 4);
  }
  // Version 3.0 allows UTF-8 in the header (only strings may hold it).
  const Header h = ParseHeader(
      Npy(3, "{'shape': (1,), 'descr': '<i4', 'fortran_order': False} # \xc3\xa9", ""), "u.npy");
  EXPECT_EQ(h.shape, (std::vector<int64_t>{1}));
}

TEST(NpyHeader, AnyKeyOrderSpacingAndQuotes) {
  const Header h = ParseHeader(
      Npy(1, "{ \"shape\":( 0 ,5,),\"fortran_order\" : False , \"descr\":\"<i4\"}", ""), "s.npy");
  EXPECT_EQ(h.descr, "<i4");
  EXPECT_EQ(h.shape, (std::vector<int64_t>{0, 5}));
}

TEST(NpyHeader, BadMagicVersionOrLength) {
  ExpectHeaderError("", {"not a .npy file", "expected the magic", "(the file is empty)"});
  ExpectHeaderError("hello world", {"not a .npy file", "found \"hello \""});
  ExpectHeaderError(std::string("PK\x03\x04rest", 8), {"zip archive", "expected a single .npy"});
  ExpectHeaderError(std::string("\x93NUMPY\x01", 7), {"truncated", "version bytes"});
  ExpectHeaderError(std::string("\x93NUMPY\x04\x00\x00\x00", 10),
                    {"unsupported .npy format version 4.0", "expected 1.0, 2.0 or 3.0"});
  ExpectHeaderError(std::string("\x93NUMPY\x01\x01\x00\x00", 10), {"version 1.1"});
  ExpectHeaderError(std::string("\x93NUMPY\x02\x00\x10\x00", 10),
                    {"truncated", "header length", "expected at least 12"});
  ExpectHeaderError(std::string("\x93NUMPY\x01\x00\x50\x00{'descr'", 17),
                    {"truncated: the header length says 80 bytes, the file has 7"});
}

TEST(NpyHeader, MalformedDict) {
  ExpectHeaderError(Npy(1, "{'descr': '<i4', 'shape': (3,)", ""),
                    {"malformed header", "expected ',' or '}'", "found the end"});
  ExpectHeaderError(Npy(1, "['descr', '<i4']", ""),
                    {"header is not a dict", "expected {'descr': ...", "['descr', '<i4']"});
  ExpectHeaderError(Npy(1, "{'descr': '<i4', 'fortran_order': False}", ""),
                    {"no 'shape' key", "expected 'descr', 'fortran_order' and 'shape'"});
  ExpectHeaderError(Npy(1, "{'shape': (), 'fortran_order': False}", ""), {"no 'descr' key"});
  ExpectHeaderError(Npy(1, "{'shape': (), 'descr': '<i4'}", ""), {"no 'fortran_order' key"});
  ExpectHeaderError(
      Npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (), 'order': 'C'}", ""),
      {"unknown key 'order'", "expected only"});
  ExpectHeaderError(Npy(1, "{'descr': '<i4', 'descr': '<i4', 'fortran_order': 0, 'shape': ()}", ""),
                    {"the key 'descr' twice"});
}

TEST(NpyHeader, BadValues) {
  ExpectHeaderError(Npy(1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': ()}", ""),
                    {"dtype [('a', '<i4')] is a structured dtype", "expected a plain int8"});
  ExpectHeaderError(Npy(1, "{'descr': 4, 'fortran_order': False, 'shape': ()}", ""),
                    {"'descr' is 4: expected a dtype string"});
  ExpectHeaderError(Npy(1, "{'descr': '<i4', 'fortran_order': 0, 'shape': ()}", ""),
                    {"'fortran_order' is 0: expected True or False"});
  ExpectHeaderError(Npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': [2, 3]}", ""),
                    {"'shape' is [2, 3]: expected a tuple of integers such as (3,)"});
  ExpectHeaderError(Npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (3)}", ""),
                    {"'shape' is 3: expected a tuple"});
  ExpectHeaderError(Npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, -1)}", ""),
                    {"'shape' is (2, -1): expected a tuple of non-negative integers"});
  ExpectHeaderError(Npy(1, "{'descr': '<i4', 'fortran_order': False, 'shape': ('2',)}", ""),
                    {"'shape' is ('2',)"});
}

// ---------------------------------------------------------------------------------------------
// Formatting

TEST(NpyHeader, FormatHeaderIsNumpys) {
  EXPECT_EQ(FormatHeader("|i1", {2, 3}, 1) + std::string("\x01\xfe\x03\x80\x7f\x00", 6),
            fixtures::Int8Matrix());
  EXPECT_EQ(FormatHeader("<i4", {4}, 1), fixtures::Int32Vector().substr(0, 128));
  // A scalar gets no room to grow; the data still starts at a multiple of 64.
  const std::string scalar = FormatHeader("<i4", {}, 1);
  EXPECT_EQ(scalar.size(), 128u);
  EXPECT_NE(scalar.find("'shape': (), }"), std::string::npos);
  EXPECT_EQ(scalar.back(), '\n');
  // numpy leaves room to grow axis 0 (21 - len("1") spaces), which here pushes the header past
  // 128 bytes: 10 + 98 characters of dict + 20 + "\n" = 129, so the data starts at 192.
  const std::string ones = FormatHeader("|i1", std::vector<int64_t>(15, 1), 1);
  EXPECT_EQ(ones.size(), 192u);
  EXPECT_EQ(ones.find("    "), 108u);  // the padding starts right after the dict
  const std::string v2 = FormatHeader("<i4", {5, 6}, 2);
  EXPECT_EQ(v2.size() % 64, 0u);
  EXPECT_EQ(v2[6], '\x02');
  EXPECT_EQ(ParseHeader(v2, "v2").shape, (std::vector<int64_t>{5, 6}));
}

TEST(NpyHeader, FormatHeaderLimits) {
  ExpectError([] { FormatHeader("<i4", std::vector<int64_t>(30000, 1), 1); },
              {"does not fit format version 1.0"});
  EXPECT_EQ(FormatHeader("<i4", std::vector<int64_t>(30000, 1), 2).size() % 64, 0u);
  ExpectError([] { FormatHeader("<i4", {1}, 3); }, {"cannot write format version 3"});
}

TEST(NpyHeader, ShapeRepr) {
  EXPECT_EQ(ShapeRepr({}), "()");
  EXPECT_EQ(ShapeRepr({3}), "(3,)");
  EXPECT_EQ(ShapeRepr({2, 3, 4}), "(2, 3, 4)");
}

TEST(NpyHeader, DescribeDescr) {
  EXPECT_EQ(DescribeDescr("|i1"), "int8");
  EXPECT_EQ(DescribeDescr("<i2"), "int16");
  EXPECT_EQ(DescribeDescr("<i4"), "int32");
  EXPECT_EQ(DescribeDescr(">i4"), "big-endian int32");
  EXPECT_EQ(DescribeDescr("<i8"), "int64");
  EXPECT_EQ(DescribeDescr("|u1"), "uint8");
  EXPECT_EQ(DescribeDescr("<f4"), "float32");
  EXPECT_EQ(DescribeDescr(">f8"), "big-endian float64");
  EXPECT_EQ(DescribeDescr("|b1"), "bool");
  EXPECT_EQ(DescribeDescr("<c16"), "complex128");
  EXPECT_EQ(DescribeDescr("<U5"), "unicode string");
  EXPECT_EQ(DescribeDescr("|O"), "Python object");
  EXPECT_EQ(DescribeDescr("<M8[ns]"), "datetime64");
  EXPECT_EQ(DescribeDescr("weird"), "weird");
  EXPECT_EQ(DescribeDescr(""), "");
}

}  // namespace
}  // namespace tpu::npy
