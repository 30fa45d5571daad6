#include "isa/codec.h"

#include <array>
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

// An instruction's fields as the codec walks them: the tables of isa_gen.h (kInstrs) packed
// into what encoding and decoding read, in one small block per opcode (every instruction of
// every program is encoded once by the driver and decoded once by the machine).
struct FieldLayout {
  int lsb = 0;
  int width = 0;
  bool sint = false;
  uint64_t mask = 0;  // the low `width` bits
  int64_t min = 0, max = 0;
};

struct InstrLayout {
  int num_fields = 0;
  Bits reserved = 0;
  std::array<FieldLayout, kMaxFields> fields{};
};

const InstrLayout& LayoutOf(const InstrInfo& info) {
  static const std::array<InstrLayout, 256> kLayouts = [] {
    std::array<InstrLayout, 256> table{};
    for (const InstrInfo& instr : kInstrs) {
      InstrLayout& layout = table[static_cast<uint8_t>(instr.opcode)];
      layout.num_fields = instr.num_fields;
      layout.reserved = Join(instr.reserved_mask);
      for (int i = 0; i < instr.num_fields; ++i) {
        const FieldInfo& field = instr.fields[i];
        FieldLayout& f = layout.fields[static_cast<size_t>(i)];
        f.lsb = field.lsb;
        f.width = field.width;
        f.sint = field.kind == FieldKind::kSint;
        f.mask = static_cast<uint64_t>(Mask(field.width));
        f.min = FieldMin(field);
        f.max = FieldMax(field);
      }
    }
    return table;
  }();
  return kLayouts[static_cast<uint8_t>(info.opcode)];
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
  const InstrLayout& layout = LayoutOf(info);
  Bits bits = 0;
  Put(&bits, kOpcodeLsb, kOpcodeWidth, static_cast<uint64_t>(info.opcode));
  // One pass over the fields: each is checked as it is put (fields do not overlap: an OR), the
  // message built only for one that does not fit.
  for (int i = 0; i < layout.num_fields; ++i) {
    const FieldLayout& f = layout.fields[static_cast<size_t>(i)];
    const int64_t value = values[static_cast<size_t>(i)];
    if (value < f.min || value > f.max) CheckFieldsFit(info, values);  // throws
    bits |= Bits{static_cast<uint64_t>(value) & f.mask} << f.lsb;
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
  const InstrLayout& layout = LayoutOf(*info);
  if ((bits & layout.reserved) != 0) out.error = Error::kReservedNonzero;
  FieldValues& values = out.values;
  for (int i = 0; i < layout.num_fields; ++i) {
    const FieldLayout& f = layout.fields[static_cast<size_t>(i)];
    uint64_t raw = static_cast<uint64_t>(bits >> f.lsb) & f.mask;
    if (f.sint && ((raw >> (f.width - 1)) & 1u)) raw |= ~f.mask;  // sign-extend
    values[static_cast<size_t>(i)] = static_cast<int64_t>(raw);
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
