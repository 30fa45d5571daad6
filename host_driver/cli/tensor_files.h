// The layer commands' tensors in and out of .npy files. Every error names the option, the file
// and what was expected, e.g.
//   "--weights: w.npy: shape (5, 3): expected (K, N) with K = 4, the columns of x.npy".
#ifndef TPU_HOST_DRIVER_CLI_TENSOR_FILES_H_
#define TPU_HOST_DRIVER_CLI_TENSOR_FILES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "golden/tensor.h"

namespace tpu::cli {

// An int8 matrix with at least one row and one column; `layout` names the axes, e.g. "(M, K)".
// Throws std::invalid_argument for anything else (npy errors included).
golden::Tensor<int8_t> LoadInt8Matrix(const std::string& option, const std::string& path,
                                      const std::string& layout);

// An int8 tensor of rank `rank` (0: any rank >= 1) with no zero-size dimension; `layout` names
// the axes, e.g. "(N, H, W, Cin)". Throws std::invalid_argument for anything else.
golden::Tensor<int8_t> LoadInt8Tensor(const std::string& option, const std::string& path,
                                      std::size_t rank, const std::string& layout);

// Exactly `n` int8 values in a (n,) array (a lookup table); `meaning` as for LoadInt32Vector.
std::vector<int8_t> LoadInt8Vector(const std::string& option, const std::string& path, int64_t n,
                                   const std::string& meaning);

// Exactly `n` int32 values in a (n,) array; `meaning` completes "expected (n,): ...", e.g.
// "one bias per output column (N = 3, the columns of w.npy)".
std::vector<int32_t> LoadInt32Vector(const std::string& option, const std::string& path, int64_t n,
                                     const std::string& meaning);

// Writes `tensor`; throws std::invalid_argument naming the option if the file cannot be written.
template <typename T>
void SaveTensor(const std::string& option, const std::string& path,
                const golden::Tensor<T>& tensor);

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_TENSOR_FILES_H_
