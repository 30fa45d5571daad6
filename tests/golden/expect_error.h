// Shared by the golden tests: error messages are part of the interface (they must name the bad
// argument and what was expected), so tests check the text, not just the exception type.
#ifndef TPU_TESTS_GOLDEN_EXPECT_ERROR_H_
#define TPU_TESTS_GOLDEN_EXPECT_ERROR_H_

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace tpu::golden {

// Runs `fn`, which must throw std::invalid_argument with `expected` somewhere in its message.
template <typename Fn>
void ExpectInvalidArgument(Fn&& fn, const std::string& expected) {
  try {
    fn();
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find(expected), std::string::npos)
        << "message was: " << error.what() << "\nexpected it to contain: " << expected;
    return;
  }
  ADD_FAILURE() << "no std::invalid_argument thrown; expected one containing: " << expected;
}

}  // namespace tpu::golden

#endif  // TPU_TESTS_GOLDEN_EXPECT_ERROR_H_
