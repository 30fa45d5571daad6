#include "isa/instr.h"

#include <array>
#include <cstdio>
#include <stdexcept>
#include <type_traits>
#include <variant>

namespace tpu::isa {

Opcode OpcodeOf(const Instr& instr) {
  return std::visit([](const auto& x) { return std::decay_t<decltype(x)>::kOpcode; }, instr);
}

const InstrInfo* FindInstr(uint8_t opcode) {
  // Indexed by opcode: every instruction decoded or encoded looks its entry up.
  static const std::array<const InstrInfo*, 256> kByOpcode = [] {
    std::array<const InstrInfo*, 256> table{};
    for (const InstrInfo& info : kInstrs) table[static_cast<uint8_t>(info.opcode)] = &info;
    return table;
  }();
  return kByOpcode[opcode];
}

const InstrInfo* FindInstr(std::string_view name) {
  for (const InstrInfo& info : kInstrs) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

const InstrInfo& InfoOf(Opcode opcode) {
  const InstrInfo* info = FindInstr(static_cast<uint8_t>(opcode));
  if (info == nullptr) {
    throw std::invalid_argument("tpu::isa: no instruction has opcode " +
                                std::to_string(static_cast<int>(opcode)));
  }
  return *info;
}

const InstrInfo& InfoOf(const Instr& instr) { return InfoOf(OpcodeOf(instr)); }

FieldValues ValuesOf(const Instr& instr) {
  FieldValues values{};
  std::visit([&values](const auto& x) { ToValues(x, &values); }, instr);
  return values;
}

std::string ErrorName(Error error) {
  for (const ErrorInfo& e : kErrors) {
    if (e.error == error) return e.name;
  }
  return "ERROR_" + std::to_string(static_cast<int>(error));
}

const char* ErrorDoc(Error error) {
  for (const ErrorInfo& e : kErrors) {
    if (e.error == error) return e.doc;
  }
  return "unknown error code";
}

const char* UnitName(Unit unit) { return kUnitNames[static_cast<int>(unit)]; }

std::string FieldRangeText(const FieldInfo& field) {
  return std::to_string(FieldMin(field)) + ".." + std::to_string(FieldMax(field));
}

const char* ValueName(const FieldInfo& field, int64_t value) {
  for (int i = 0; i < field.num_names; ++i) {
    if (field.names[i].value == value) return field.names[i].name;
  }
  return nullptr;
}

std::string FormatFieldValue(const FieldInfo& field, int64_t value) {
  switch (field.kind) {
    case FieldKind::kEnum: {
      const char* name = ValueName(field, value);
      return name != nullptr ? name : std::to_string(value);
    }
    case FieldKind::kMask: {
      if (value == 0) return "none";
      std::string text;
      for (int bit = 0; bit < field.width; ++bit) {
        if (((value >> bit) & 1) == 0) continue;
        if (!text.empty()) text += ',';
        const char* name = ValueName(field, bit);
        text += name != nullptr ? name : std::to_string(bit);
      }
      return text;
    }
    default:
      break;
  }
  if (field.hex && value >= 0) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
    return buffer;
  }
  return std::to_string(value);
}

TokenMasks TokensOf(const Instr& instr) {
  return std::visit(
      [](const auto& op) -> TokenMasks {
        if constexpr (std::is_same_v<std::decay_t<decltype(op)>, Nop> ||
                      std::is_same_v<std::decay_t<decltype(op)>, Halt>) {
          return {};
        } else {
          return {op.wait, op.signal};
        }
      },
      instr);
}

uint8_t WaitTokens(const Instr& instr) { return TokensOf(instr).wait; }
uint8_t SignalTokens(const Instr& instr) { return TokensOf(instr).signal; }

}  // namespace tpu::isa
