#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "golden/int32_wrap.h"

namespace tpu::golden {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

TEST(Int32Wrap, BitsToInt32IsTwosComplement) {
  EXPECT_EQ(BitsToInt32(0u), 0);
  EXPECT_EQ(BitsToInt32(0x7FFFFFFFu), kMax);
  EXPECT_EQ(BitsToInt32(0x80000000u), kMin);
  EXPECT_EQ(BitsToInt32(0xFFFFFFFFu), -1);
  EXPECT_EQ(BitsToInt32(0xFFFFFF80u), -128);  // 2^32 - 128
}

TEST(Int32Wrap, AddWrapsAroundBothEnds) {
  EXPECT_EQ(WrapAdd(kMax, 1), kMin);
  EXPECT_EQ(WrapAdd(kMin, -1), kMax);
  EXPECT_EQ(WrapAdd(kMax, kMax), -2);  // 2^32 - 2 wraps to -2
  EXPECT_EQ(WrapAdd(-5, 3), -2);
}

TEST(Int32Wrap, MulWraps) {
  EXPECT_EQ(WrapMul(65536, 65536), 0);     // 2^32 mod 2^32
  EXPECT_EQ(WrapMul(65536, 32768), kMin);  // 2^31 reads back as -2^31
  EXPECT_EQ(WrapMul(kMin, -1), kMin);      // the one negation that overflows
  EXPECT_EQ(WrapMul(-7, 6), -42);
}

}  // namespace
}  // namespace tpu::golden
