#include <gtest/gtest.h>

#include "expect_error.h"
#include "golden/padding.h"

namespace tpu::golden {
namespace {

void ExpectAxis(const PaddedAxis& axis, int64_t out_size, int64_t pad_before) {
  EXPECT_EQ(axis.out_size, out_size);
  EXPECT_EQ(axis.pad_before, pad_before);
}

TEST(Padding, Valid) {
  ExpectAxis(ComputePaddedAxis(Padding::kValid, 5, 3, 1, "op", "height"), 3, 0);  // 5-3+1
  ExpectAxis(ComputePaddedAxis(Padding::kValid, 5, 3, 2, "op", "height"), 2, 0);  // (5-3)/2+1
  ExpectAxis(ComputePaddedAxis(Padding::kValid, 6, 3, 2, "op", "height"), 2, 0);  // (6-3)/2+1
  ExpectAxis(ComputePaddedAxis(Padding::kValid, 3, 3, 1, "op", "height"), 1, 0);
}

TEST(Padding, SameStride1KeepsSize) {
  // out = 3; pad_total = (3-1)*1 + 3 - 3 = 2; before = 1
  ExpectAxis(ComputePaddedAxis(Padding::kSame, 3, 3, 1, "op", "height"), 3, 1);
  // 1x1 window needs no padding
  ExpectAxis(ComputePaddedAxis(Padding::kSame, 7, 1, 1, "op", "height"), 7, 0);
}

TEST(Padding, SameOddTotalPutsExtraAfter) {
  // in 4, window 3, stride 2: out = ceil(4/2) = 2; pad_total = (2-1)*2 + 3 - 4 = 1; before = 0
  ExpectAxis(ComputePaddedAxis(Padding::kSame, 4, 3, 2, "op", "width"), 2, 0);
  // in 5, window 3, stride 2: out = 3; pad_total = 2*2 + 3 - 5 = 2; before = 1
  ExpectAxis(ComputePaddedAxis(Padding::kSame, 5, 3, 2, "op", "width"), 3, 1);
  // in 4, window 4, stride 1: out = 4; pad_total = 3 + 4 - 4 = 3; before = 1, after = 2
  ExpectAxis(ComputePaddedAxis(Padding::kSame, 4, 4, 1, "op", "width"), 4, 1);
}

TEST(Padding, SameNeverNegative) {
  // in 5, window 1, stride 2: out = 3; (3-1)*2 + 1 - 5 = 0
  ExpectAxis(ComputePaddedAxis(Padding::kSame, 5, 1, 2, "op", "width"), 3, 0);
  // in 6, window 1, stride 4: out = 2; (2-1)*4 + 1 - 6 = -1 -> 0
  ExpectAxis(ComputePaddedAxis(Padding::kSame, 6, 1, 4, "op", "width"), 2, 0);
  // window wider than the input: in 2, window 5: out 2; pad_total = 1 + 5 - 2 = 4; before 2
  ExpectAxis(ComputePaddedAxis(Padding::kSame, 2, 5, 1, "op", "width"), 2, 2);
}

TEST(Padding, Errors) {
  ExpectInvalidArgument([] { ComputePaddedAxis(Padding::kValid, 2, 3, 1, "conv2d", "height"); },
                        "conv2d: VALID padding needs input height 2 >= window height 3");
  ExpectInvalidArgument([] { ComputePaddedAxis(Padding::kSame, 4, 0, 1, "pool", "width"); },
                        "pool: window width 0 must be >= 1");
  ExpectInvalidArgument([] { ComputePaddedAxis(Padding::kSame, 4, 2, 0, "pool", "width"); },
                        "pool: stride width 0 must be >= 1");
}

}  // namespace
}  // namespace tpu::golden
