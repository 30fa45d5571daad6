#include "isa/disassembler.h"

#include <cstdio>

#include "isa/codec.h"
#include "isa/instr.h"

namespace tpu::isa {

std::string Disassemble(const Instr& instr) {
  const InstrInfo& info = InfoOf(instr);
  const FieldValues values = ValuesOf(instr);
  std::string text = info.name;
  for (int i = 0; i < info.num_fields; ++i) {
    const FieldInfo& field = info.fields[i];
    if (field.has_default && values[i] == field.default_value) continue;
    text += ' ';
    text += field.name;
    text += '=';
    text += FormatFieldValue(field, values[i]);
  }
  return text;
}

std::string Disassemble(const Words& words) {
  const Decoded decoded = Decode(words);
  if (decoded.error == Error::kOk) return Disassemble(decoded.instr);
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, ".words 0x%08x 0x%08x 0x%08x 0x%08x  # ", words[0], words[1],
                words[2], words[3]);
  return buffer + ErrorName(decoded.error);
}

std::string DisassembleProgram(const std::vector<Words>& program) {
  std::string text;
  for (const Words& words : program) {
    text += Disassemble(words);
    text += '\n';
  }
  return text;
}

}  // namespace tpu::isa
