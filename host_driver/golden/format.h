// How shapes and real numbers appear in the golden reference's error messages.
#ifndef TPU_GOLDEN_FORMAT_H_
#define TPU_GOLDEN_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace tpu::golden {

// "[1, 4, 4, 3]".
inline std::string ShapeToString(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  }
  return text + "]";
}

// Shortest readable form ("0.5", "1e-40"); std::to_string would print tiny scales as 0.000000.
inline std::string FormatReal(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

}  // namespace tpu::golden

#endif  // TPU_GOLDEN_FORMAT_H_
