// The arithmetic of ACTIVATE (docs/isa.md): per element bias add (int32 wrapping), TFLite
// requantization, output zero point, clamp, optional lookup table; then pooling of whole NHWC
// images, the pooled value clamped to the same bounds again (as rtl/act/tpu_act.sv does; without
// the LUT the pooled value is inside them anyway). Bit-exact with tpu::golden by construction:
// it calls golden's Requantize, ApplyLut, MaxPool2d and AvgPool2d.
#ifndef TPU_MODEL_ACTIVATE_H_
#define TPU_MODEL_ACTIVATE_H_

#include <cstdint>
#include <vector>

#include "golden/activation.h"
#include "isa/isa_gen.h"

namespace tpu::model {

// One parameter set as it sits in the parameter memory (9N bytes): bias[c] int32 little-endian
// at 4c, multiplier M0[c] int32 at 4N + 4c, shift[c] int8 at 8N + c (positive = left).
struct ParamSet {
  std::vector<int32_t> bias;
  std::vector<int32_t> multiplier;
  std::vector<int8_t> shift;
};

ParamSet DecodeParamSet(const uint8_t* bytes, int64_t n);
// The 9N bytes of a parameter set (the inverse of DecodeParamSet).
std::vector<uint8_t> EncodeParamSet(const ParamSet& set);

// The requantization shifts the activation pipeline supports: [-31, 30] (docs/isa.md, READ_HOST
// param; the hardware keeps 6 bits and asserts this range).
inline bool ShiftSupported(int shift) { return shift >= -31 && shift <= 30; }

// UB rows that `instr` writes: rows, or the pooled pixel count (docs/isa.md, out_rows).
int64_t ActivateOutRows(const isa::Activate& instr);

// The out_rows x n int8 values ACTIVATE writes, from its rows x n accumulator values
// (row-major). Every shift in `params` must be ShiftSupported; the instruction must have passed
// isa::Validate. `lut` is used only when instr.lut is set.
std::vector<int8_t> ActivateRows(const isa::Activate& instr, const int32_t* acc, int64_t n,
                                 const ParamSet& params, const golden::Lut& lut);

}  // namespace tpu::model

#endif  // TPU_MODEL_ACTIVATE_H_
