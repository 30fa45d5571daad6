// A backend's result against the golden one, element by element (--check, the network runner,
// the regression suites).
#ifndef TPU_RUNTIME_COMPARE_H_
#define TPU_RUNTIME_COMPARE_H_

#include <cstddef>
#include <cstdint>

#include "golden/tensor.h"

namespace tpu::runtime {

struct Comparison {
  bool same_shape = true;
  std::size_t total = 0;       // elements compared
  std::size_t mismatches = 0;  // elements that differ
  std::size_t first = 0;       // row-major index of the first one
  int64_t got = 0, want = 0;   // its two values

  bool ok() const { return same_shape && mismatches == 0; }
};

template <typename T>
Comparison Compare(const golden::Tensor<T>& got, const golden::Tensor<T>& want) {
  Comparison c;
  c.same_shape = got.shape == want.shape && got.data.size() == want.data.size();
  if (!c.same_shape) return c;
  c.total = want.data.size();
  for (std::size_t i = 0; i < c.total; ++i) {
    if (got.data[i] == want.data[i]) continue;
    if (c.mismatches++ == 0) {
      c.first = i;
      c.got = got.data[i];
      c.want = want.data[i];
    }
  }
  return c;
}

}  // namespace tpu::runtime

#endif  // TPU_RUNTIME_COMPARE_H_
