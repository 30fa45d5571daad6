// The checks the hardware applies to an instruction's fields against one device's limits, in
// the order docs/isa.md lists them; the first failure is the error the hardware raises.
#ifndef TPU_ISA_VALIDATE_H_
#define TPU_ISA_VALIDATE_H_

#include <string>

#include "isa/isa_gen.h"

namespace tpu::isa {

// The first failing check of an instruction, with an explanation.
struct Violation {
  Error error = Error::kOk;
  int field = -1;       // index into InstrInfo::fields of the field the check constrains
  int rule = -1;        // index into InstrInfo::rules, -1 for an enum encoding
  std::string message;  // e.g. "field 'ub' = 4090 out of range: need ub + rows <= UB_ROWS
                        // (ub = 4090, rows = 64, UB_ROWS = 4096) -> UB_RANGE"; empty if kOk
};

// The enum encodings, then the instruction's rules (docs/isa.md), against `limits`.
// Throws std::invalid_argument if a value does not fit its field's bits: such an instruction
// cannot be encoded, so the hardware can never see it.
Violation Explain(const Instr& instr, const DeviceLimits& limits);

// Explain(instr, limits).error, without the message: the same checks, nothing allocated.
Error Validate(const Instr& instr, const DeviceLimits& limits);

// The checks of Explain and Validate on an instruction's fields as numbers (ValuesOf order,
// each known to fit its bits): the enum encodings, then the rules. The one path every check
// takes: the compiler's, the driver's and the machine's (isa::Check on decoded words).
Error ValidateValues(const InstrInfo& info, const FieldValues& values, const DeviceLimits& limits);

// Index of the first enum field whose value is not one of its listed encodings and has an
// error code for it (the decode stage's check), or -1.
int FirstIllegalEncoding(const InstrInfo& info, const FieldValues& values);

// Throws std::invalid_argument naming the instruction, the field and its encodable range
// unless every value fits its field's bits.
void CheckFieldsFit(const InstrInfo& info, const FieldValues& values);

// Throws std::invalid_argument naming the limit and its allowed range unless every limit is
// inside the range the encoding supports (docs/isa.md, "Device limits").
void CheckLimits(const DeviceLimits& limits);

}  // namespace tpu::isa

#endif  // TPU_ISA_VALIDATE_H_
