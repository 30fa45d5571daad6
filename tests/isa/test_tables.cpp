// The tables generated from isa/isa.json are consistent: unique opcodes and names, fields
// inside the 128 bits without overlap and disjoint from the reserved mask, defaults that fit,
// enum and error tables complete, limits whose defaults are supported.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "isa/isa.h"

namespace tpu::isa {
namespace {

TEST(Tables, OpcodesAndNamesAreUniqueAndFindable) {
  std::set<int> opcodes;
  std::set<std::string> names;
  for (const InstrInfo& info : kInstrs) {
    EXPECT_TRUE(opcodes.insert(static_cast<int>(info.opcode)).second) << info.name;
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(FindInstr(static_cast<uint8_t>(info.opcode)), &info);
    EXPECT_EQ(FindInstr(std::string_view(info.name)), &info);
    EXPECT_EQ(&InfoOf(info.opcode), &info);
    EXPECT_LE(info.num_fields, kMaxFields);
  }
  EXPECT_EQ(FindInstr(uint8_t{0}), nullptr);
  EXPECT_EQ(FindInstr(std::string_view("matmul")), nullptr);  // exact names only
}

TEST(Tables, FieldsTileTheInstructionWithTheReservedMask) {
  for (const InstrInfo& info : kInstrs) {
    SCOPED_TRACE(info.name);
    Words used{};
    SetBits(&used, kOpcodeLsb, kOpcodeWidth, ~uint64_t{0});
    std::set<std::string> names;
    for (int i = 0; i < info.num_fields; ++i) {
      const FieldInfo& f = info.fields[i];
      EXPECT_TRUE(names.insert(f.name).second) << f.name;
      ASSERT_GE(f.lsb, 0);
      ASSERT_LE(f.lsb + f.width, kInstrBits) << f.name;
      ASSERT_LE(f.width, 63) << f.name;
      EXPECT_EQ(GetBits(used, f.lsb, f.width), 0u) << f.name << " overlaps another field";
      SetBits(&used, f.lsb, f.width, ~uint64_t{0});
      if (f.has_default) {
        EXPECT_TRUE(FieldFits(f, f.default_value)) << f.name;
      }
      if (f.kind == FieldKind::kEnum || f.kind == FieldKind::kMask) {
        EXPECT_GT(f.num_names, 0) << f.name;
      }
      if (f.kind == FieldKind::kEnum && f.num_names < (1 << f.width)) {
        EXPECT_NE(f.error, Error::kOk) << f.name << ": unused encodings need an error";
      }
    }
    for (int w = 0; w < kInstrWords; ++w) {
      EXPECT_EQ(used[w] & info.reserved_mask[w], 0u) << "word " << w;
      // Reserved bits are exactly the bits no field or the opcode uses.
      EXPECT_EQ(used[w] | info.reserved_mask[w], 0xFFFFFFFFu) << "word " << w;
    }
    for (int r = 0; r < info.num_rules; ++r) {
      EXPECT_GE(info.rules[r].field, 0);
      EXPECT_LT(info.rules[r].field, info.num_fields);
      EXPECT_NE(info.rules[r].error, Error::kOk);
    }
  }
}

TEST(Tables, TokenFieldsSitAtTheSamePlaceInEveryInstruction) {
  for (const InstrInfo& info : kInstrs) {
    for (int i = 0; i < info.num_fields; ++i) {
      const std::string name = info.fields[i].name;
      if (name == "wait") {
        EXPECT_EQ(info.fields[i].lsb, 8) << info.name;
      }
      if (name == "signal") {
        EXPECT_EQ(info.fields[i].lsb, 16) << info.name;
      }
      if (name == "wait" || name == "signal") {
        EXPECT_EQ(info.fields[i].width, kNumTokens);
      }
    }
  }
}

TEST(Tables, ErrorsHaveNamesAndDistinctCodes) {
  std::set<int> codes;
  for (const ErrorInfo& e : kErrors) {
    EXPECT_TRUE(codes.insert(static_cast<int>(e.error)).second) << e.name;
    EXPECT_EQ(ErrorName(e.error), e.name);
    EXPECT_LT(static_cast<int>(e.error), 1 << kErrorWidth);
  }
  EXPECT_EQ(ErrorName(Error::kOk), "OK");
  EXPECT_EQ(ErrorName(Error::kUbRange), "UB_RANGE");
  EXPECT_EQ(ErrorName(static_cast<Error>(200)), "ERROR_200");
}

TEST(Tables, DefaultLimitsAreSupportedAndDerivedValuesMatchTheirDefinitions) {
  const DeviceLimits limits;
  EXPECT_NO_THROW(CheckLimits(limits));
  int index = 0;
  for (const LimitInfo& l : kLimits) {
    EXPECT_EQ(LimitValue(index, limits), l.default_value) << l.name;
    ++index;
  }
  EXPECT_EQ(DerivedTileBytes(limits), 256);
  EXPECT_EQ(DerivedParamSetBytes(limits), 144);
  EXPECT_EQ(DerivedParamBytes(limits), 64 * 144);
  EXPECT_EQ(DerivedHostSpace(limits), int64_t{1} << 48);
}

TEST(Tables, PoolOutFollowsTensorFlow) {
  const auto kValid = static_cast<int64_t>(Padding::kValid);
  const auto kSame = static_cast<int64_t>(Padding::kSame);
  EXPECT_EQ(detail::PoolOut(8, 2, 2, kValid), 4);
  EXPECT_EQ(detail::PoolOut(7, 3, 2, kValid), 3);
  EXPECT_EQ(detail::PoolOut(7, 3, 2, kSame), 4);
  EXPECT_EQ(detail::PoolOut(7, 9, 3, kSame), 3);
  EXPECT_EQ(detail::PoolOut(2, 3, 1, kValid), 0);
  EXPECT_EQ(detail::CeilDiv(17, 16), 2);
  EXPECT_EQ(detail::CeilDiv(16, 16), 1);
  EXPECT_EQ(detail::FloorDiv(-1, 2), -1);
  EXPECT_EQ(detail::Mod(-1, 2), 1);
}

TEST(Tables, FieldLimitsAtCompileTimeAreTheFieldsWidths) {
  // Evaluated by the compiler: the lowerings' limits (compiler/field_limits.h) are these.
  static_assert(MaxFieldValue<Matmul>("image_w") == 255);
  static_assert(MinFieldValue<Matmul>("x0") == -16 && MaxFieldValue<Matmul>("x0") == 15);
  // The same lookups at run time, against the generic table walk.
  for (const InstrInfo& info : kInstrs) {
    if (info.opcode != Opcode::kActivate) continue;
    for (int i = 0; i < info.num_fields; ++i) {
      const std::string name = info.fields[i].name;
      EXPECT_EQ(MaxFieldValue<Activate>(name), FieldMax(info.fields[i])) << name;
      EXPECT_EQ(MinFieldValue<Activate>(name), FieldMin(info.fields[i])) << name;
    }
  }
  EXPECT_EQ(MaxFieldValue<Activate>("rows"), (int64_t{1} << FieldNamed<Activate>("rows").width) - 1);
  EXPECT_THROW(MaxFieldValue<Activate>("image_d"), std::invalid_argument);
}

}  // namespace
}  // namespace tpu::isa
