// The .npy header: magic "\x93NUMPY", version, header length (2 bytes in 1.0, 4 bytes in 2.0 and
// 3.0, little-endian), then a Python dict literal such as
//   {'descr': '<i4', 'fortran_order': False, 'shape': (3, 4), }
// padded with spaces and a newline so that the array data starts at a multiple of 64 bytes.
// Format reference: numpy.lib.format (NEP 1).
#ifndef TPU_NPY_HEADER_H_
#define TPU_NPY_HEADER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpu::npy {

struct Header {
  int major = 1;  // format version: 1, 2 or 3 (3.0 only differs by a UTF-8 header)
  int minor = 0;
  std::string descr;  // the dtype as written, e.g. "|i1" or "<i4"
  bool fortran_order = false;
  std::vector<int64_t> shape;  // () for a scalar
  uint64_t data_offset = 0;    // where the array data starts in the file
};

// The longest header text read, in bytes: numpy writes a few hundred (its own reader stops at
// 10,000 by default); 1 MiB leaves room for 100,000-dimension shapes and keeps a header length
// field of up to 4 GiB (format 2.0) from being read into memory.
constexpr uint64_t kMaxHeaderLength = uint64_t{1} << 20;

// Parses the header at the start of `bytes` (a whole file, or at least its header). `name` (the
// file) starts every error message. Throws npy::Error if the magic, the version or the header
// length is wrong (above kMaxHeaderLength) or truncated, the dict does not parse, a key is missing, duplicated or unknown,
// `descr` is not a string (structured dtypes are lists), `fortran_order` is not a bool, or `shape`
// is not a tuple of non-negative integers. The dtype itself is checked by the readers.
Header ParseHeader(std::string_view bytes, const std::string& name);

// The header bytes numpy 1.24's np.save writes for a C-order array: keys sorted, a trailing
// ", }", 21 - len(str(shape[0])) spaces of room to grow the first axis, then spaces and "\n" up
// to a multiple of 64 bytes. `major` is 1 or 2; throws npy::Error if the header does not fit the
// 16-bit length of version 1.
std::string FormatHeader(const std::string& descr, const std::vector<int64_t>& shape, int major);

// "(2, 3)", "(3,)", "()": a shape as Python (and numpy's messages) print it.
std::string ShapeRepr(const std::vector<int64_t>& shape);

// A readable name for a dtype descr, for error messages: "int16" for '<i2', "big-endian int32"
// for '>i4', "float32" for '<f4', "uint8" for '|u1', "bool" for '|b1'. Unknown descrs come back
// unchanged.
std::string DescribeDescr(const std::string& descr);

}  // namespace tpu::npy

#endif  // TPU_NPY_HEADER_H_
