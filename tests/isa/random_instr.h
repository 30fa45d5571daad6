// Shared by the ISA tests: a printed random seed and random instructions whose fields all fit
// their bits and use listed enum encodings (so they encode and decode), biased towards the small
// values and boundaries where the device checks live.
#ifndef TPU_TESTS_ISA_RANDOM_INSTR_H_
#define TPU_TESTS_ISA_RANDOM_INSTR_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>

#include "isa/isa.h"

namespace tpu::isa {

// TPU_SEED from the environment, else a fresh one; printed so a failure can be replayed.
inline uint64_t TestSeed() {
  const char* env = std::getenv("TPU_SEED");
  const uint64_t seed = env != nullptr ? std::strtoull(env, nullptr, 0) : std::random_device{}();
  std::cout << "[ seed     ] TPU_SEED=" << seed << "\n";
  return seed;
}

inline int64_t RandomFieldValue(const FieldInfo& field, std::mt19937_64& rng) {
  auto uniform = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  if (field.kind == FieldKind::kEnum) return field.names[uniform(0, field.num_names - 1)].value;
  const int64_t lo = FieldMin(field);
  const int64_t hi = FieldMax(field);
  switch (uniform(0, 7)) {
    case 0:
      return field.has_default ? field.default_value : lo;
    case 1:
      return field.has_default ? field.default_value : hi;
    case 2:
      return lo;
    case 3:
      return hi;
    case 4:
    case 5:
      return uniform(lo, hi);
    default:  // small
      return uniform(lo < 0 ? -4 : 0, hi < 80 ? hi : 80);
  }
}

// Fields of `info` drawn with RandomFieldValue; pooling-style fields with defaults are left at
// their default half of the time so that device-legal instructions are common.
inline Instr RandomInstr(const InstrInfo& info, std::mt19937_64& rng) {
  FieldValues values{};
  const bool keep_defaults = std::bernoulli_distribution(0.5)(rng);
  for (int i = 0; i < info.num_fields; ++i) {
    const FieldInfo& field = info.fields[i];
    values[i] =
        keep_defaults && field.has_default ? field.default_value : RandomFieldValue(field, rng);
  }
  return FromValues(info.opcode, values);
}

}  // namespace tpu::isa

#endif  // TPU_TESTS_ISA_RANDOM_INSTR_H_
