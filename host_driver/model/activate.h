// The arithmetic of ACTIVATE (docs/isa.md): per element bias add (int32 wrapping), TFLite
// requantization, output zero point, clamp, optional lookup table; then pooling of whole NHWC
// images, the pooled value clamped to the same bounds again (as rtl/act/tpu_act.sv does; without
// the LUT the pooled value is inside them anyway). Bit-exact with tpu::golden: it calls golden's
// ApplyLut, MaxPool2d and AvgPool2d, and RowRequant is golden's Requantize arithmetic
// (checked against it in tests/model).
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

// ACTIVATE's bias add and requantization to int8 for rows of N channels: per element
// golden::WrapAdd with bias[c], then golden::Requantize with multiplier[c] and shift[c], the
// output zero point and the clamp; with the per-channel constants worked out once, no argument
// checks (every shift must be ShiftSupported, the clamp bounds int8 and ordered), and 16
// channels an instruction with AVX-512 where the CPU has it (N a multiple of 16). Bit-exact with
// golden (tests/model).
class RowRequant {
 public:
  RowRequant(const ParamSet& params, int32_t zero_point, int32_t clamp_min, int32_t clamp_max);

  // out[c] for acc[c], c < N.
  void Apply(const int32_t* acc, int8_t* out) const;

 private:
  int64_t n_;
  std::vector<int32_t> bias_, multiplier_, left_shift_, right_shift_;
  int32_t zero_point_, clamp_min_, clamp_max_;
};

// The out_rows x n int8 values ACTIVATE writes, from its rows x n accumulator values
// (row-major), into `out` (resized). Every shift in `params` must be ShiftSupported; the
// instruction must have passed isa::Validate. `lut` is used only when instr.lut is set.
void ActivateRows(const isa::Activate& instr, const int32_t* acc, int64_t n,
                  const ParamSet& params, const golden::Lut& lut, std::vector<int8_t>* out);

}  // namespace tpu::model

#endif  // TPU_MODEL_ACTIVATE_H_
