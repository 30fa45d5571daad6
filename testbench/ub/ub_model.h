// Reference model of the unified buffer's contents: a plain vector of rows, with the buffer's
// rules for byte masks and out-of-range addresses (never written, read as zeros).
#ifndef TPU_TESTBENCH_UB_UB_MODEL_H_
#define TPU_TESTBENCH_UB_UB_MODEL_H_

#include <cstdint>
#include <vector>

namespace tpu::tb {

class UbModel {
 public:
  // Zero rows, as the Verilated memory starts.
  UbModel(int n, uint32_t depth) : n_(n), depth_(depth), mem_(size_t(n) * depth, 0) {}

  int n() const { return n_; }
  uint32_t depth() const { return depth_; }

  // Byte i of `row` is written when mask is null or mask[i] != 0.
  void Write(uint32_t addr, const int8_t* row, const uint8_t* mask) {
    if (addr >= depth_) return;
    for (int i = 0; i < n_; ++i) {
      if (mask == nullptr || mask[i] != 0) mem_[size_t(addr) * n_ + i] = row[i];
    }
  }
  std::vector<int8_t> Read(uint32_t addr) const {
    if (addr >= depth_) return std::vector<int8_t>(n_, 0);
    const auto first = mem_.begin() + ptrdiff_t(size_t(addr) * n_);
    return std::vector<int8_t>(first, first + n_);
  }

 private:
  int n_;
  uint32_t depth_;
  std::vector<int8_t> mem_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_UB_UB_MODEL_H_
