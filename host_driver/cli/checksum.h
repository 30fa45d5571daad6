// A checksum of a result tensor for reports: FNV-1a (64 bits) over its elements as little-endian
// bytes in row-major order, the bytes its .npy file holds after the header. Equal checksums from
// two runs mean equal results for all practical purposes.
#ifndef TPU_HOST_DRIVER_CLI_CHECKSUM_H_
#define TPU_HOST_DRIVER_CLI_CHECKSUM_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "golden/tensor.h"

namespace tpu::cli {

template <typename T>
uint64_t Fnv1a64(const golden::Tensor<T>& tensor) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (T value : tensor.data) {
    const auto bits = static_cast<uint32_t>(value);
    for (size_t b = 0; b < sizeof(T); ++b) {
      hash ^= (bits >> (8 * b)) & 0xff;
      hash *= 0x100000001b3ull;
    }
  }
  return hash;
}

// "0x" and 16 hex digits.
inline std::string HexChecksum(uint64_t value) {
  char text[19];
  std::snprintf(text, sizeof(text), "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_CHECKSUM_H_
