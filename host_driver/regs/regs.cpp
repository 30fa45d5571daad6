#include "regs/regs.h"

#include <cstdio>

#include "isa/instr.h"

namespace tpu::regs {
namespace {

uint32_t Mask(const FieldInfo& field) {
  const uint32_t ones = field.width >= 32 ? ~0u : ((1u << field.width) - 1);
  return ones << field.lsb;
}

std::string Hex(uint32_t value, int digits = 0) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%0*x", digits, value);
  return buf;
}

}  // namespace

const RegisterInfo* FindRegister(uint32_t offset) {
  offset &= ~3u;
  for (const RegisterInfo& r : kRegisters) {
    if (r.offset == offset) return &r;
  }
  return nullptr;
}

const RegisterInfo* FindRegister(std::string_view name) {
  for (const RegisterInfo& r : kRegisters) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

const FieldInfo* FindField(const RegisterInfo& reg, std::string_view name) {
  for (int i = 0; i < reg.num_fields; ++i) {
    if (name == reg.fields[i].name) return &reg.fields[i];
  }
  return nullptr;
}

uint32_t FieldValue(const FieldInfo& field, uint32_t reg_value) {
  const uint32_t bits = reg_value & Mask(field);
  return field.in_place ? bits : bits >> field.lsb;
}

uint32_t WithField(const FieldInfo& field, uint32_t reg_value, uint32_t value) {
  const uint32_t placed = field.in_place ? value : value << field.lsb;
  return (reg_value & ~Mask(field)) | (placed & Mask(field));
}

const char* AccessName(Access access) {
  switch (access) {
    case Access::kRO:
      return "RO";
    case Access::kRW:
      return "RW";
    case Access::kRW1C:
      return "RW1C";
    case Access::kW1P:
      return "W1P";
  }
  return "?";
}

std::string ErrorCodeName(uint32_t code) {
  for (const ErrorInfo& e : kErrors) {
    if (e.value == code) return e.name;
  }
  if (code > 0xff) return "ERROR_" + std::to_string(code);
  return isa::ErrorName(static_cast<isa::Error>(code));
}

std::string FormatField(const FieldInfo& field, uint32_t reg_value) {
  const uint32_t v = FieldValue(field, reg_value);
  std::string text = std::string(field.name) + "=";
  switch (field.format) {
    case Format::kDec:
      text += std::to_string(v);
      break;
    case Format::kHex:
      text += Hex(v);
      break;
    case Format::kError:
      text += Hex(v, 2) + " (" + ErrorCodeName(v) + ")";
      break;
  }
  return text;
}

std::string FormatRegister(const RegisterInfo& reg, uint32_t value) {
  char head[64];
  std::snprintf(head, sizeof(head), "%-14s 0x%03x = 0x%08x ", reg.name, reg.offset, value);
  std::string text = head;
  for (int i = 0; i < reg.num_fields; ++i) text += " " + FormatField(reg.fields[i], value);
  if ((value & ~reg.defined) != 0) text += " reserved=" + Hex(value & ~reg.defined);
  return text;
}

}  // namespace tpu::regs
