// A minimal owning tensor for the golden reference: a shape and a row-major buffer, nothing else.
// Kept deliberately dumb so that the reference code reads like the maths it implements; the
// kernels check shapes themselves and name the tensor involved when they do not fit.
#ifndef TPU_GOLDEN_TENSOR_H_
#define TPU_GOLDEN_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "golden/format.h"

namespace tpu::golden {

// Number of elements a shape describes; a rank-0 shape is a scalar with one element. Throws
// std::invalid_argument for a negative dimension or a count beyond int64 (a shape read from a
// file can claim anything); a zero dimension makes the count 0 whatever the others are.
inline int64_t ElementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0) {
      throw std::invalid_argument("tensor: negative dimension in shape " + ShapeToString(shape));
    }
    if (dim == 0) count = 0;
  }
  if (count == 0) return 0;
  for (int64_t dim : shape) {
    if (count > std::numeric_limits<int64_t>::max() / dim) {
      throw std::invalid_argument("tensor: shape " + ShapeToString(shape) +
                                  " has more elements than int64 counts");
    }
    count *= dim;
  }
  return count;
}

template <typename T>
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<T> data;  // row-major: the last dimension is contiguous

  Tensor() = default;

  // A tensor of the given shape filled with zeros.
  explicit Tensor(std::vector<int64_t> shape_in)
      : shape(std::move(shape_in)), data(static_cast<std::size_t>(ElementCount(shape))) {}

  // A tensor that adopts `data_in`, which must hold exactly as many elements as `shape_in` says.
  Tensor(std::vector<int64_t> shape_in, std::vector<T> data_in)
      : shape(std::move(shape_in)), data(std::move(data_in)) {
    CheckConsistent("tensor");
  }

  int64_t NumElements() const { return ElementCount(shape); }
  std::size_t rank() const { return shape.size(); }

  // Row-major offset of a full index, bounds-checked in every dimension.
  int64_t Offset(std::initializer_list<int64_t> index) const {
    if (index.size() != shape.size()) {
      throw std::out_of_range("tensor: index of rank " + std::to_string(index.size()) +
                              " used on shape " + ShapeToString(shape));
    }
    int64_t offset = 0;
    std::size_t axis = 0;
    for (int64_t i : index) {
      if (i < 0 || i >= shape[axis]) {
        throw std::out_of_range("tensor: index " + std::to_string(i) + " on axis " +
                                std::to_string(axis) + " outside shape " + ShapeToString(shape));
      }
      offset = offset * shape[axis] + i;
      ++axis;
    }
    return offset;
  }

  T& At(std::initializer_list<int64_t> index) {
    return data[static_cast<std::size_t>(Offset(index))];
  }
  const T& At(std::initializer_list<int64_t> index) const {
    return data[static_cast<std::size_t>(Offset(index))];
  }

  // Throws unless the buffer size matches the shape. The fields are public, so kernels call this
  // (with their own name in `what`) before trusting a tensor they were handed.
  void CheckConsistent(const std::string& what) const {
    const int64_t expected = ElementCount(shape);
    if (static_cast<int64_t>(data.size()) != expected) {
      throw std::invalid_argument(what + ": shape " + ShapeToString(shape) + " needs " +
                                  std::to_string(expected) + " elements, buffer holds " +
                                  std::to_string(data.size()));
    }
  }

  // CheckConsistent() plus a rank check, e.g. CheckRank("conv2d: input", 4, "NHWC").
  void CheckRank(const std::string& what, std::size_t expected_rank, const char* layout) const {
    if (shape.size() != expected_rank) {
      throw std::invalid_argument(what + " must be rank " + std::to_string(expected_rank) + " " +
                                  layout + ", got shape " + ShapeToString(shape));
    }
    CheckConsistent(what);
  }
};

}  // namespace tpu::golden

#endif  // TPU_GOLDEN_TENSOR_H_
