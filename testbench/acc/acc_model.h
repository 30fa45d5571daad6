// Reference model of the accumulators' contents: a plain vector of int32 rows, with the
// accumulators' rules: accumulate adds with int32 wrap-around (tpu::golden::WrapAdd), overwrite
// replaces, out-of-range addresses are never written and read as zeros.
#ifndef TPU_TESTBENCH_ACC_ACC_MODEL_H_
#define TPU_TESTBENCH_ACC_ACC_MODEL_H_

#include <cstdint>
#include <vector>

#include "golden/int32_wrap.h"

namespace tpu::tb {

class AccModel {
 public:
  // Zero rows, as the Verilated memories start.
  AccModel(int n, uint32_t depth) : n_(n), depth_(depth), mem_(size_t(n) * depth, 0) {}

  int n() const { return n_; }
  uint32_t depth() const { return depth_; }

  void Write(uint32_t addr, bool accumulate, const int32_t* row) {
    if (addr >= depth_) return;
    int32_t* dst = &mem_[size_t(addr) * n_];
    for (int i = 0; i < n_; ++i) dst[i] = accumulate ? golden::WrapAdd(dst[i], row[i]) : row[i];
  }
  std::vector<int32_t> Read(uint32_t addr) const {
    if (addr >= depth_) return std::vector<int32_t>(n_, 0);
    const auto first = mem_.begin() + ptrdiff_t(size_t(addr) * n_);
    return std::vector<int32_t>(first, first + n_);
  }

 private:
  int n_;
  uint32_t depth_;
  std::vector<int32_t> mem_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACC_ACC_MODEL_H_
