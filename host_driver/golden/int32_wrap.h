// Two's-complement int32 arithmetic, the way the accumulators and adders in hardware behave.
// Signed overflow is undefined behaviour in C++17, so every sum or product that may overflow is
// done in uint32 (where wrapping is defined) and mapped back without an implementation-defined
// conversion.
#ifndef TPU_GOLDEN_INT32_WRAP_H_
#define TPU_GOLDEN_INT32_WRAP_H_

#include <cstdint>
#include <limits>

namespace tpu::golden {

// The int32 whose two's-complement bit pattern is `bits`.
inline int32_t BitsToInt32(uint32_t bits) {
  constexpr uint32_t kSignBit = 0x80000000u;
  if (bits < kSignBit) return static_cast<int32_t>(bits);
  // bits - 2^31 fits in int32; adding INT32_MIN (-2^31) gives bits - 2^32.
  return static_cast<int32_t>(bits - kSignBit) + std::numeric_limits<int32_t>::min();
}

inline int32_t WrapAdd(int32_t a, int32_t b) {
  return BitsToInt32(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

inline int32_t WrapMul(int32_t a, int32_t b) {
  return BitsToInt32(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

}  // namespace tpu::golden

#endif  // TPU_GOLDEN_INT32_WRAP_H_
