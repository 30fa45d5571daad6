// A fixed array of n zero values whose memory is touched only where it is used: calloc's block
// (for a large one, pages the kernel hands out zeroed on their first touch) instead of a
// std::vector's, which writes every element when it is made. The machine's UB (4 MiB at n16,
// 24 MiB at v1) and accumulators: a layer that uses part of them no longer pays for the rest in
// every process that makes a machine.
#ifndef TPU_MODEL_ZEROED_ARRAY_H_
#define TPU_MODEL_ZEROED_ARRAY_H_

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace tpu::model {

template <typename T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>,
                "all-zero bytes must be a value of T");

 public:
  explicit ZeroedArray(std::size_t n)
      : data_(static_cast<T*>(std::calloc(n > 0 ? n : 1, sizeof(T)))), size_(n) {
    if (!data_) throw std::bad_alloc();
  }

  std::size_t size() const { return size_; }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  T& operator[](std::size_t i) { return data_.get()[i]; }
  const T& operator[](std::size_t i) const { return data_.get()[i]; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t size_;
};

}  // namespace tpu::model

#endif  // TPU_MODEL_ZEROED_ARRAY_H_
