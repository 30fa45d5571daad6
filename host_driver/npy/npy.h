// NumPy .npy files for the TPU's tensors: int8 ('|i1') and int32 ('<i4') arrays of any rank in C
// order, and float32/float64 (real inputs and outputs, scales) and uint8/int64 (labels). Reads
// format versions 1.0, 2.0 and 3.0; writes 1.0 (2.0 when the header needs more than 64 KiB)
// byte for byte as numpy 1.24's np.save does.
//
//   golden::Tensor<int8_t> x = tpu::npy::Read<int8_t>("x.npy");
//   tpu::npy::Write("y.npy", y);
//
// Every error is a tpu::npy::Error whose message starts with the file name and says what was
// expected and what was found, e.g.
//   "w.npy: dtype '<f4' (float32): expected int8 ('|i1'); tpu reads int8 and int32 arrays only".
#ifndef TPU_NPY_NPY_H_
#define TPU_NPY_NPY_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "golden/tensor.h"
#include "npy/header.h"

namespace tpu::npy {

class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct WriteOptions {
  int version = 0;  // 0: 1.0 when the header fits (as numpy chooses), else 2.0; or 1 or 2
};

// Decodes a whole .npy file held in memory; `name` names it in errors. T is int8_t or int32_t
// (the tensors), or uint8_t, int64_t, float or double (labels and real values).
// Throws npy::Error for any header problem (ParseHeader), a dtype other than T's (named, e.g.
// "'<i2' (int16)"), big-endian int32, fortran_order True, an element count that overflows, and
// data shorter (truncated) or longer than the shape says. Zero-size arrays are valid files.
template <typename T>
golden::Tensor<T> Decode(std::string_view bytes, const std::string& name);

// The bytes of a .npy file holding `tensor` (shape and data must agree).
template <typename T>
std::string Encode(const golden::Tensor<T>& tensor, const WriteOptions& options = {});

// Decode() of the file at `path`; also throws npy::Error if it cannot be opened or read.
template <typename T>
golden::Tensor<T> Read(const std::string& path);

// Writes Encode(tensor) to `path`; throws npy::Error if it cannot be written.
template <typename T>
void Write(const std::string& path, const golden::Tensor<T>& tensor,
           const WriteOptions& options = {});

// A float32 ('<f4') or float64 ('<f8') file at `path` as doubles (real-valued inputs and
// scales); throws npy::Error naming the dtype otherwise.
golden::Tensor<double> ReadReal(const std::string& path);

// An int8, uint8, int32 or int64 file at `path` as int64 (labels); throws npy::Error otherwise.
golden::Tensor<int64_t> ReadIntegers(const std::string& path);

// The header of the file at `path` (reads only the header; no dtype check).
Header ReadHeader(const std::string& path);

}  // namespace tpu::npy

#endif  // TPU_NPY_NPY_H_
