#include "isa/codec.h"

#include <stdexcept>
#include <string>

#include "isa/instr.h"
#include "isa/validate.h"

namespace tpu::isa {
namespace {

// The instruction as one 128-bit number (bit i of the instruction at bit i): a field is then
// one shift and one mask, whichever words it spans. Every instruction the compiler checks, the
// driver writes into the ring and the machine executes passes here.
__extension__ typedef unsigned __int128 Bits;

Bits Join(const Words& words) {
  Bits bits = 0;
  for (int w = kInstrWords - 1; w >= 0; --w) bits = bits << 32 | words[static_cast<size_t>(w)];
  return bits;
}

Words Split(Bits bits) {
  Words words{};
  for (uint32_t& word : words) {
    word = static_cast<uint32_t>(bits);
    bits >>= 32;
  }
  return words;
}

Bits Mask(int width) { return (Bits{1} << width) - 1; }

uint64_t Field(Bits bits, int lsb, int width) {
  return static_cast<uint64_t>((bits >> lsb) & Mask(width));
}

void Put(Bits* bits, int lsb, int width, uint64_t value) {
  const Bits mask = Mask(width) << lsb;
  *bits = (*bits & ~mask) | ((Bits{value} << lsb) & mask);
}

}  // namespace

uint64_t GetBits(const Words& words, int lsb, int width) {
  return Field(Join(words), lsb, width);
}

void SetBits(Words* words, int lsb, int width, uint64_t value) {
  Bits bits = Join(*words);
  Put(&bits, lsb, width, value);
  *words = Split(bits);
}

Words Encode(const Instr& instr) {
  const InstrInfo& info = InfoOf(instr);
  const FieldValues values = ValuesOf(instr);
  Bits bits = 0;
  Put(&bits, kOpcodeLsb, kOpcodeWidth, static_cast<uint64_t>(info.opcode));
  // One pass over the fields (the driver encodes every instruction of every program): each is
  // checked as it is put, the message built only for one that does not fit.
  for (int i = 0; i < info.num_fields; ++i) {
    const FieldInfo& field = info.fields[i];
    if (!FieldFits(field, values[i])) CheckFieldsFit(info, values);  // throws
    Put(&bits, field.lsb, field.width, static_cast<uint64_t>(values[i]));
  }
  return Split(bits);
}

Decoded Decode(const Words& words) {
  Decoded out;
  const Bits bits = Join(words);
  const InstrInfo* info = FindInstr(static_cast<uint8_t>(Field(bits, kOpcodeLsb, kOpcodeWidth)));
  if (info == nullptr) {
    out.error = Error::kIllegalOpcode;
    out.instr = Nop{};
    return out;
  }
  out.opcode = info->opcode;
  if ((bits & Join(info->reserved_mask)) != 0) out.error = Error::kReservedNonzero;
  FieldValues& values = out.values;
  for (int i = 0; i < info->num_fields; ++i) {
    const FieldInfo& field = info->fields[i];
    uint64_t raw = Field(bits, field.lsb, field.width);
    if (field.kind == FieldKind::kSint && ((raw >> (field.width - 1)) & 1u)) {
      raw |= ~uint64_t{0} << field.width;  // sign-extend
    }
    values[i] = static_cast<int64_t>(raw);
  }
  if (out.error == Error::kOk) {
    const int field = FirstIllegalEncoding(*info, values);
    if (field >= 0) {
      out.error = info->fields[field].error;
      out.field = field;
    }
  }
  out.instr = FromValues(info->opcode, values);
  return out;
}

Error Check(const Decoded& decoded, const DeviceLimits& limits) {
  if (decoded.error != Error::kOk) return decoded.error;
  // Decode has checked the enum encodings (FirstIllegalEncoding): only the rules are left, in
  // ValidateValues' order.
  const InstrInfo& info = InfoOf(decoded.opcode);
  for (int r = 0; r < info.num_rules; ++r) {
    if (!RulePasses(info.opcode, r, decoded.values, limits)) return info.rules[r].error;
  }
  return Error::kOk;
}

Error Check(const Words& words, const DeviceLimits& limits) {
  return Check(Decode(words), limits);
}

}  // namespace tpu::isa
