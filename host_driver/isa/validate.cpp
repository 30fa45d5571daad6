#include "isa/validate.h"

#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include "isa/instr.h"
#include "isa/static_fields.h"

namespace tpu::isa {
namespace {

// The value of a name a rule uses, as text.
std::string RefValue(const InstrInfo& info, const RuleRef& ref, const FieldValues& values,
                     const DeviceLimits& limits) {
  switch (ref.kind) {
    case RefKind::kField:
      return FormatFieldValue(info.fields[ref.index], values[ref.index]);
    case RefKind::kLet:
      return std::to_string(LetValue(info.opcode, ref.index, values, limits));
    case RefKind::kLimit:
      return std::to_string(LimitValue(ref.index, limits));
    case RefKind::kDerived:
      return std::to_string(DerivedValue(ref.index, limits));
    case RefKind::kConstant:
      return std::to_string(kConstantValues[ref.index]);
  }
  return "?";
}

std::string RuleMessage(const InstrInfo& info, const RuleInfo& rule, const FieldValues& values,
                        const DeviceLimits& limits) {
  const FieldInfo& field = info.fields[rule.field];
  std::string text = std::string("field '") + field.name +
                     "' = " + FormatFieldValue(field, values[rule.field]) + " out of range: need " +
                     rule.check;
  if (rule.when[0] != '\0') text += std::string(" when ") + rule.when;
  // The values of every other name the rule uses.
  std::string refs;
  for (int i = 0; i < rule.num_refs; ++i) {
    const RuleRef& ref = rule.refs[i];
    if (ref.kind == RefKind::kField && ref.index == rule.field && rule.num_refs == 1) continue;
    if (!refs.empty()) refs += ", ";
    refs += std::string(ref.name) + " = " + RefValue(info, ref, values, limits);
  }
  if (!refs.empty()) text += " (" + refs + ")";
  return text + " -> " + ErrorName(rule.error);
}

}  // namespace

namespace {

// The first failing rule (index into info.rules), or -1.
int FirstFailingRule(const InstrInfo& info, const FieldValues& values,
                     const DeviceLimits& limits) {
  for (int r = 0; r < info.num_rules; ++r) {
    if (!RulePasses(info.opcode, r, values, limits)) return r;
  }
  return -1;
}

}  // namespace

int FirstIllegalEncoding(const InstrInfo& info, const FieldValues& values) {
  for (int i = 0; i < info.num_fields; ++i) {
    const FieldInfo& field = info.fields[i];
    if (field.kind == FieldKind::kEnum && field.error != Error::kOk &&
        ValueName(field, values[i]) == nullptr) {
      return i;
    }
  }
  return -1;
}

void CheckFieldsFit(const InstrInfo& info, const FieldValues& values) {
  for (int i = 0; i < info.num_fields; ++i) {
    const FieldInfo& field = info.fields[i];
    if (!FieldFits(field, values[i])) {
      throw std::invalid_argument(std::string(info.name) + ": field '" + field.name +
                                  "' = " + std::to_string(values[i]) + " does not fit in " +
                                  std::to_string(field.width) + " bits (" + FieldRangeText(field) +
                                  ")");
    }
  }
}

Error ValidateValues(const InstrInfo& info, const FieldValues& values,
                     const DeviceLimits& limits) {
  const int field = FirstIllegalEncoding(info, values);
  if (field >= 0) return info.fields[field].error;
  const int rule = FirstFailingRule(info, values, limits);
  return rule >= 0 ? info.rules[rule].error : Error::kOk;
}

Violation Explain(const Instr& instr, const DeviceLimits& limits) {
  const InstrInfo& info = InfoOf(instr);
  const FieldValues values = ValuesOf(instr);
  CheckFieldsFit(info, values);
  Violation v;
  const int i = FirstIllegalEncoding(info, values);
  if (i >= 0) {
    const FieldInfo& field = info.fields[i];
    std::string legal;
    for (int k = 0; k < field.num_names; ++k) {
      if (!legal.empty()) legal += ", ";
      legal += std::string(field.names[k].name) + " (" + std::to_string(field.names[k].value) + ")";
    }
    v.error = field.error;
    v.field = i;
    v.message = std::string("field '") + field.name + "' = " + std::to_string(values[i]) +
                " is not a legal encoding (" + legal + ") -> " + ErrorName(field.error);
    return v;
  }
  const int r = FirstFailingRule(info, values, limits);
  if (r >= 0) {
    const RuleInfo& rule = info.rules[r];
    v.error = rule.error;
    v.field = rule.field;
    v.rule = r;
    v.message = RuleMessage(info, rule, values, limits);
  }
  return v;
}

Error Validate(const Instr& instr, const DeviceLimits& limits) {
  // Explain's checks with each instruction type's fields and rules as constants
  // (static_fields.h): the compiler validates every instruction it emits.
  return std::visit(
      [&limits](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        FieldValues values{};
        ToValues(x, &values);
        if (!detail::FieldsFit<T>(values, detail::FieldIndexes<T>{})) {
          CheckFieldsFit(detail::kInfo<T>, values);  // throws
        }
        return detail::ValidateValuesOf<T>(values, limits);
      },
      instr);
}

void CheckLimits(const DeviceLimits& limits) {
  int index = 0;
  for (const LimitInfo& limit : kLimits) {
    const int64_t value = LimitValue(index, limits);
    if (value < limit.min || value > limit.max || !LimitCheckPasses(index, limits)) {
      std::string allowed = std::to_string(limit.min) + ".." + std::to_string(limit.max);
      if (limit.check[0] != '\0') allowed += std::string(" and ") + limit.check;
      throw std::invalid_argument(std::string("DeviceLimits: ") + limit.member + " (" + limit.name +
                                  ") = " + std::to_string(value) +
                                  " is not supported by the instruction set; allowed: " + allowed);
    }
    ++index;
  }
}

}  // namespace tpu::isa
