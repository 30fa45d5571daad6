// .npy files as bytes, written out by hand from the format (numpy.lib.format): the first two are
// exactly what numpy 1.24's np.save writes for the same arrays (test_npy_numpy checks that), the
// builder makes files with any header text for the error cases.
#ifndef TPU_TESTS_NPY_NPY_FIXTURES_H_
#define TPU_TESTS_NPY_NPY_FIXTURES_H_

#include <cstdint>
#include <string>

namespace tpu::npy::fixtures {

// np.save of np.array([[1, -2, 3], [-128, 127, 0]], dtype=np.int8): magic, version 1.0, header
// length 0x0076 = 118, the dict (59 characters), 58 spaces (20 of room to grow axis 0 plus 38 up
// to the 64-byte boundary), "\n", then the 6 data bytes at offset 128.
inline std::string Int8Matrix() {
  return std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
         "{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3), }" + std::string(58, ' ') +
         "\n" + std::string("\x01\xfe\x03\x80\x7f\x00", 6);
}

// np.save of np.array([1, -1, 2147483647, -2147483648], dtype=np.int32): the dict is 57
// characters, so 60 spaces; four little-endian int32 values at offset 128.
inline std::string Int32Vector() {
  return std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
         "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }" + std::string(60, ' ') + "\n" +
         std::string("\x01\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\x7f\x00\x00\x00\x80", 16);
}

// A file of format `major`.0 with `header` as the header text verbatim (no padding added) and
// `data` after it.
inline std::string Npy(int major, const std::string& header, const std::string& data) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  const size_t length_bytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < length_bytes; ++i) {
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  return out + header + data;
}

// A version 1.0 file with the dict {'descr': descr, 'fortran_order': False, 'shape': shape}.
inline std::string Npy(const std::string& descr, const std::string& shape,
                       const std::string& data) {
  return Npy(1, "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }\n",
             data);
}

}  // namespace tpu::npy::fixtures

#endif  // TPU_TESTS_NPY_NPY_FIXTURES_H_
