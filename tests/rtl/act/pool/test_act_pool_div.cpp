// The pooling unit's average divider (tpu_act_pool_div), exhaustively: every count and every sum
// whose rounded average the divider promises (|sum| + count / 2 < 256 * count within the sum's
// width, a superset of the sums of count int8 values), against TFLite's rounding formula as the
// golden AvgPool2d computes it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "act/pool/act_pool_div_model.h"

namespace tpu::tb {
namespace {

int64_t TfliteRoundedAverage(int64_t sum, int64_t count) {
  return sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
}

void ExpectExhaustive(ActPoolDivModel& div) {
  const int64_t lo_width = -(int64_t(1) << (div.sum_width() - 1));
  const int64_t hi_width = (int64_t(1) << (div.sum_width() - 1)) - 1;
  uint64_t checked = 0;
  int failures = 0;
  for (int count = 1; count <= div.max_count(); ++count) {
    const int64_t limit = 256 * count - count / 2 - 1;  // |sum| <= limit
    for (int64_t sum = std::max(-limit, lo_width); sum <= std::min(limit, hi_width); ++sum) {
      const int64_t want = TfliteRoundedAverage(sum, count);
      const int32_t got = div.Avg(int32_t(sum), count);
      ++checked;
      if (got != want && ++failures <= 10) {
        ADD_FAILURE() << "sum " << sum << " / count " << count << ": got " << got << ", want "
                      << want << " (MaxCount " << div.max_count() << ")";
      }
    }
    // Every sum of `count` int8 values is inside the checked range.
    EXPECT_LE(128 * count, std::min(limit, -lo_width));
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(checked, uint64_t(div.max_count()) * 256);
}

TEST(ActPoolDivTest, ExhaustiveForWindowsUpToFourByFour) {
  auto div = MakeActPoolDivModel16();
  ExpectExhaustive(*div);
}

TEST(ActPoolDivTest, ExhaustiveForWindowsUpToThreeByThree) {
  auto div = MakeActPoolDivModel9();
  ExpectExhaustive(*div);
}

}  // namespace
}  // namespace tpu::tb
