// Generic access to instructions through the tables generated from isa/isa.json: which
// instruction a value holds, its fields as numbers, names of opcodes, errors and values.
#ifndef TPU_ISA_INSTR_H_
#define TPU_ISA_INSTR_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "isa/isa_gen.h"

namespace tpu::isa {

// The opcode of the instruction `instr` holds.
Opcode OpcodeOf(const Instr& instr);

// Table entry of an opcode, or nullptr if no instruction has it.
const InstrInfo* FindInstr(uint8_t opcode);
// Table entry by mnemonic (exact, upper case), or nullptr.
const InstrInfo* FindInstr(std::string_view name);
// Table entry of a known opcode.
const InstrInfo& InfoOf(Opcode opcode);
const InstrInfo& InfoOf(const Instr& instr);

// The instruction's fields as numbers, in InstrInfo::fields order (enums as their encoding,
// flags 0/1, signed fields as signed values); unused trailing entries are 0.
FieldValues ValuesOf(const Instr& instr);

// The instruction's wait and signal token masks (0 for NOP and HALT, which have none): both at
// once, or either.
struct TokenMasks {
  uint8_t wait = 0, signal = 0;
};
TokenMasks TokensOf(const Instr& instr);
uint8_t WaitTokens(const Instr& instr);
uint8_t SignalTokens(const Instr& instr);

// "UB_RANGE"; "ERROR_<n>" for a value with no name.
std::string ErrorName(Error error);
const char* ErrorDoc(Error error);
const char* UnitName(Unit unit);

// Smallest and largest value a field can encode (for signed fields, two's complement).
// Inline: every field of every instruction checked passes here.
constexpr int64_t FieldMin(const FieldInfo& field) {
  return field.kind == FieldKind::kSint ? -(int64_t{1} << (field.width - 1)) : 0;
}
constexpr int64_t FieldMax(const FieldInfo& field) {
  return field.kind == FieldKind::kSint ? (int64_t{1} << (field.width - 1)) - 1
                                        : (int64_t{1} << field.width) - 1;
}
inline bool FieldFits(const FieldInfo& field, int64_t value) {
  return value >= FieldMin(field) && value <= FieldMax(field);
}
// Field `name` of instruction type T (Matmul, Activate, ...) in the generated tables, at compile
// time, and the smallest and largest values it encodes: the compiler's limits follow the
// encoding (a window's 8-bit image sides: MaxFieldValue<Matmul>("image_w") == 255). In a
// constant expression, a name T does not have does not compile.
template <typename T>
constexpr const FieldInfo& FieldNamed(std::string_view name) {
  for (const InstrInfo& info : kInstrs) {
    if (info.opcode != T::kOpcode) continue;
    for (int i = 0; i < info.num_fields; ++i) {
      if (name == info.fields[i].name) return info.fields[i];
    }
  }
  throw std::invalid_argument("FieldNamed: no such field");
}
template <typename T>
constexpr int64_t MinFieldValue(std::string_view name) {
  return FieldMin(FieldNamed<T>(name));
}
template <typename T>
constexpr int64_t MaxFieldValue(std::string_view name) {
  return FieldMax(FieldNamed<T>(name));
}
// "0..65535" or "-128..127".
std::string FieldRangeText(const FieldInfo& field);
// The enum value's or mask bit's name (nullptr if none has that value).
const char* ValueName(const FieldInfo& field, int64_t value);
// A value as the assembler writes it: enum name, "t0,t3" / "none" for masks, hex for address
// fields, decimal otherwise.
std::string FormatFieldValue(const FieldInfo& field, int64_t value);

}  // namespace tpu::isa

#endif  // TPU_ISA_INSTR_H_
