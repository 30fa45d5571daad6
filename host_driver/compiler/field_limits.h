// The lowerings' limits that come from the instruction encoding, read from the tables generated
// from isa/isa.json at compile time: a field widened in a new ISA version moves the limit and
// the messages that name it, with nothing else to change.
#ifndef TPU_COMPILER_FIELD_LIMITS_H_
#define TPU_COMPILER_FIELD_LIMITS_H_

#include <cstdint>

#include "isa/instr.h"

namespace tpu::compiler {

// A MATMUL window's image height and width and its output width (and ACTIVATE's pooled image
// sides, the same width): the largest image side a window or a pooling pass can describe.
inline constexpr int64_t kMaxImageSide = isa::MaxFieldValue<isa::Matmul>("image_w");
static_assert(isa::MaxFieldValue<isa::Matmul>("image_h") == kMaxImageSide &&
                  isa::MaxFieldValue<isa::Matmul>("out_w") == kMaxImageSide &&
                  isa::MaxFieldValue<isa::Activate>("image_w") == kMaxImageSide &&
                  isa::MaxFieldValue<isa::Activate>("image_h") == kMaxImageSide,
              "one limit stands for the window's and the pooling's image fields");

// A window's strides.
inline constexpr int64_t kMaxWindowStride = isa::MaxFieldValue<isa::Matmul>("stride_w");
static_assert(isa::MaxFieldValue<isa::Matmul>("stride_h") == kMaxWindowStride);

// A window's first tap: x0 of each output line, y0 of row 0 (negative in the padding).
inline constexpr int64_t kMinWindowX0 = isa::MinFieldValue<isa::Matmul>("x0");
inline constexpr int64_t kMaxWindowX0 = isa::MaxFieldValue<isa::Matmul>("x0");
inline constexpr int64_t kMinWindowY0 = isa::MinFieldValue<isa::Matmul>("y0");
inline constexpr int64_t kMaxWindowY0 = isa::MaxFieldValue<isa::Matmul>("y0");

// Rows one ACTIVATE reads from the accumulators.
inline constexpr int64_t kActivateMaxRows = isa::MaxFieldValue<isa::Activate>("rows");

}  // namespace tpu::compiler

#endif  // TPU_COMPILER_FIELD_LIMITS_H_
