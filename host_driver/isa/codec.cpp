#include "isa/codec.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "isa/instr.h"
#include "isa/validate.h"

namespace tpu::isa {

// Fields are read and written a word-sized piece at a time (a field spans at most three of the
// 32-bit words): every instruction the driver sends and the models execute passes here.
uint64_t GetBits(const Words& words, int lsb, int width) {
  uint64_t value = 0;
  for (int done = 0; done < width;) {
    const int bit = lsb + done;
    const int offset = bit % 32;
    const int take = std::min(32 - offset, width - done);
    const uint64_t mask = (uint64_t{1} << take) - 1;
    value |= ((uint64_t{words[bit / 32]} >> offset) & mask) << done;
    done += take;
  }
  return value;
}

void SetBits(Words* words, int lsb, int width, uint64_t value) {
  for (int done = 0; done < width;) {
    const int bit = lsb + done;
    const int offset = bit % 32;
    const int take = std::min(32 - offset, width - done);
    const uint64_t mask = ((uint64_t{1} << take) - 1) << offset;
    const uint64_t piece = ((value >> done) << offset) & mask;
    uint32_t& word = (*words)[bit / 32];
    word = static_cast<uint32_t>((word & ~mask) | piece);
    done += take;
  }
}

Words Encode(const Instr& instr) {
  const InstrInfo& info = InfoOf(instr);
  const FieldValues values = ValuesOf(instr);
  Words words{};
  SetBits(&words, kOpcodeLsb, kOpcodeWidth, static_cast<uint64_t>(info.opcode));
  for (int i = 0; i < info.num_fields; ++i) {
    const FieldInfo& field = info.fields[i];
    if (!FieldFits(field, values[i])) {
      throw std::invalid_argument(std::string(info.name) + ": field '" + field.name +
                                  "' = " + std::to_string(values[i]) + " does not fit in " +
                                  std::to_string(field.width) + " bits (" + FieldRangeText(field) +
                                  ")");
    }
    SetBits(&words, field.lsb, field.width, static_cast<uint64_t>(values[i]));
  }
  return words;
}

Decoded Decode(const Words& words) {
  Decoded out;
  const InstrInfo* info = FindInstr(static_cast<uint8_t>(GetBits(words, kOpcodeLsb, kOpcodeWidth)));
  if (info == nullptr) {
    out.error = Error::kIllegalOpcode;
    out.instr = Nop{};
    return out;
  }
  for (int w = 0; w < kInstrWords; ++w) {
    if ((words[w] & info->reserved_mask[w]) != 0 && out.error == Error::kOk) {
      out.error = Error::kReservedNonzero;
    }
  }
  FieldValues values{};
  for (int i = 0; i < info->num_fields; ++i) {
    const FieldInfo& field = info->fields[i];
    uint64_t raw = GetBits(words, field.lsb, field.width);
    if (field.kind == FieldKind::kSint && ((raw >> (field.width - 1)) & 1u)) {
      raw |= ~uint64_t{0} << field.width;  // sign-extend
    }
    values[i] = static_cast<int64_t>(raw);
    if (out.error == Error::kOk && field.kind == FieldKind::kEnum && field.error != Error::kOk &&
        ValueName(field, values[i]) == nullptr) {
      out.error = field.error;
      out.field = i;
    }
  }
  out.instr = FromValues(info->opcode, values);
  return out;
}

Error Check(const Words& words, const DeviceLimits& limits) {
  const Decoded decoded = Decode(words);
  if (decoded.error != Error::kOk) return decoded.error;
  return Validate(decoded.instr, limits);
}

}  // namespace tpu::isa
