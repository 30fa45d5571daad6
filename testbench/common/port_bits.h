// Bit-field access to Verilated ports of any width. Verilator maps ports of up to 8, 16, 32
// and 64 bits to integers and wider ones to VlWide<words>; lanes of a flat packed vector
// (lane i at bits [i*width +: width]) are read and written the same way for all of them.
#ifndef TPU_TESTBENCH_COMMON_PORT_BITS_H_
#define TPU_TESTBENCH_COMMON_PORT_BITS_H_

#include <verilated.h>

#include <cstdint>
#include <type_traits>

namespace tpu::tb {

// Writes the low `width` (<= 32) bits of `value` at bit `lsb` of an integer port.
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
inline void SetBits(T& port, int lsb, int width, uint32_t value) {
  const uint64_t mask = ((width >= 64) ? ~0ull : ((1ull << width) - 1)) << lsb;
  uint64_t v = static_cast<uint64_t>(port);
  v = (v & ~mask) | ((static_cast<uint64_t>(value) << lsb) & mask);
  port = static_cast<T>(v);
}

// Reads `width` (<= 32) bits at bit `lsb` of an integer port.
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
inline uint32_t GetBits(const T& port, int lsb, int width) {
  const uint64_t v = static_cast<uint64_t>(port) >> lsb;
  return static_cast<uint32_t>(width >= 32 ? v : (v & ((1ull << width) - 1)));
}

// Wide ports: 32-bit words, least significant first. A field may straddle two words.
template <std::size_t W>
inline void SetBits(VlWide<W>& port, int lsb, int width, uint32_t value) {
  for (int b = 0; b < width;) {
    const int bit = lsb + b, word = bit / 32, off = bit % 32;
    const int take = (32 - off < width - b) ? 32 - off : width - b;
    const uint32_t mask = (take == 32 ? ~0u : ((1u << take) - 1)) << off;
    const uint32_t chunk = (value >> b) << off;
    port[word] = (port[word] & ~mask) | (chunk & mask);
    b += take;
  }
}

template <std::size_t W>
inline uint32_t GetBits(const VlWide<W>& port, int lsb, int width) {
  uint32_t out = 0;
  for (int b = 0; b < width;) {
    const int bit = lsb + b, word = bit / 32, off = bit % 32;
    const int take = (32 - off < width - b) ? 32 - off : width - b;
    const uint32_t mask = take == 32 ? ~0u : ((1u << take) - 1);
    out |= ((port[word] >> off) & mask) << b;
    b += take;
  }
  return out;
}

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_COMMON_PORT_BITS_H_
