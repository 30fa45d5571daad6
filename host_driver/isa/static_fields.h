// The generated tables of one instruction type (isa_gen.h: kInstrs, its fields and rules) at
// compile time: what the codec and the validator run for every instruction of every program
// (the compiler checks each one, the driver encodes it, the machine decodes and checks it).
// Each field's bits, range and legal encodings, and each rule, become constants of the
// instruction's own code, unrolled over its fields; the order of the checks, and so every
// result, is that of the table-walking definitions in validate.h and codec.h, which the
// isa tests hold them to.
//
// Internal to host_driver/isa (codec.cpp, validate.cpp).
#ifndef TPU_ISA_STATIC_FIELDS_H_
#define TPU_ISA_STATIC_FIELDS_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "isa/isa_gen.h"

namespace tpu::isa::detail {

// The instruction as one 128-bit number (bit i of the instruction at bit i): a field is one
// shift and one mask, whichever words it spans.
__extension__ typedef unsigned __int128 Bits;

constexpr Bits Join(const Words& words) {
  Bits bits = 0;
  for (int w = kInstrWords - 1; w >= 0; --w) bits = bits << 32 | words[static_cast<size_t>(w)];
  return bits;
}

constexpr Words Split(Bits bits) {
  Words words{};
  for (uint32_t& word : words) {
    word = static_cast<uint32_t>(bits);
    bits >>= 32;
  }
  return words;
}

constexpr int IndexOf(Opcode op) {
  for (int i = 0; i < static_cast<int>(sizeof(kInstrs) / sizeof(kInstrs[0])); ++i) {
    if (kInstrs[i].opcode == op) return i;
  }
  return -1;
}

// Instruction type T's table entry and field I of it.
template <typename T>
constexpr const InstrInfo& kInfo = kInstrs[IndexOf(T::kOpcode)];

template <typename T, std::size_t I>
struct StaticField {
  static constexpr const FieldInfo& kField = kInfo<T>.fields[I];
  static constexpr int kLsb = kField.lsb;
  static constexpr int kWidth = kField.width;
  static constexpr bool kSigned = kField.kind == FieldKind::kSint;
  static constexpr uint64_t kMask = kWidth >= 64 ? ~uint64_t{0} : (uint64_t{1} << kWidth) - 1;
  static constexpr int64_t kMin = kSigned ? -(int64_t{1} << (kWidth - 1)) : 0;
  static constexpr int64_t kMax =
      kSigned ? (int64_t{1} << (kWidth - 1)) - 1 : static_cast<int64_t>(kMask);
  // An enum field whose unlisted encodings raise an error (FirstIllegalEncoding's fields).
  static constexpr bool kChecked = kField.kind == FieldKind::kEnum && kField.error != Error::kOk;

  static bool Fits(int64_t v) { return v >= kMin && v <= kMax; }
  static bool Listed(int64_t v) { return Listed(v, std::make_index_sequence<Names()>{}); }
  static constexpr std::size_t Names() {
    return kChecked ? static_cast<std::size_t>(kField.num_names) : 0;
  }
  template <std::size_t... N>
  static bool Listed([[maybe_unused]] int64_t v, std::index_sequence<N...>) {
    return ((v == kField.names[N].value) || ...);
  }
  static int64_t Get(Bits bits) {
    uint64_t raw = static_cast<uint64_t>(bits >> kLsb) & kMask;
    if constexpr (kSigned) {
      if ((raw >> (kWidth - 1)) & 1u) raw |= ~kMask;  // sign-extend
    }
    return static_cast<int64_t>(raw);
  }
  static Bits Put(int64_t v) { return Bits{static_cast<uint64_t>(v) & kMask} << kLsb; }
};

template <typename T>
using FieldIndexes = std::make_index_sequence<static_cast<std::size_t>(kInfo<T>.num_fields)>;
template <typename T>
using RuleIndexes = std::make_index_sequence<static_cast<std::size_t>(kInfo<T>.num_rules)>;

// Every value fits its field's bits (CheckFieldsFit's condition).
template <typename T, std::size_t... I>
bool FieldsFit([[maybe_unused]] const FieldValues& v, std::index_sequence<I...>) {
  return (StaticField<T, I>::Fits(v[I]) && ...);
}

// FirstIllegalEncoding: the first checked enum field whose value is not listed, or -1.
template <typename T, std::size_t... I>
int FirstUnlisted([[maybe_unused]] const FieldValues& v, std::index_sequence<I...>) {
  int first = -1;
  // Fields in order; the fold stops at the first unlisted one.
  (void)((StaticField<T, I>::kChecked && !StaticField<T, I>::Listed(v[I])
              ? (first = static_cast<int>(I), true)
              : false) ||
         ...);
  return first;
}

// The first failing rule (index into kInfo<T>.rules), or -1: RulePasses with constant
// arguments, each rule's expression inline (flatten: the generated switch is too large for the
// inliner's estimate, and only one case of it remains once inlined).
template <typename T, std::size_t... R>
[[gnu::flatten]] int FirstFailing([[maybe_unused]] const FieldValues& v,
                                  [[maybe_unused]] const DeviceLimits& lim,
                                  std::index_sequence<R...>) {
  int first = -1;
  (void)((!RulePasses(T::kOpcode, static_cast<int>(R), v, lim) ? (first = static_cast<int>(R), true)
                                                                : false) ||
         ...);
  return first;
}

// The error of type T's first failing rule, kOk if none fails.
template <typename T>
Error RulesError(const FieldValues& v, const DeviceLimits& lim) {
  const int rule = FirstFailing<T>(v, lim, RuleIndexes<T>{});
  return rule >= 0 ? kInfo<T>.rules[rule].error : Error::kOk;
}

// ValidateValues for type T: the enum encodings, then the rules.
template <typename T>
Error ValidateValuesOf(const FieldValues& v, const DeviceLimits& lim) {
  const int field = FirstUnlisted<T>(v, FieldIndexes<T>{});
  if (field >= 0) return kInfo<T>.fields[field].error;
  return RulesError<T>(v, lim);
}

// The fields ORed into place (each known to fit), and read back.
template <typename T, std::size_t... I>
Bits PutFields([[maybe_unused]] const FieldValues& v, std::index_sequence<I...>) {
  return (Bits{0} | ... | (StaticField<T, I>::Put(v[I])));
}
template <typename T, std::size_t... I>
void GetFields([[maybe_unused]] Bits bits, [[maybe_unused]] FieldValues* v,
               std::index_sequence<I...>) {
  (((*v)[I] = StaticField<T, I>::Get(bits)), ...);
}

}  // namespace tpu::isa::detail

#endif  // TPU_ISA_STATIC_FIELDS_H_
