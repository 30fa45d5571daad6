// Shared by the reference-machine tests: printed seeds and running assembly text.
#ifndef TPU_TESTS_MODEL_MODEL_TESTING_H_
#define TPU_TESTS_MODEL_MODEL_TESTING_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "isa/isa.h"
#include "model/model.h"

namespace tpu::model {

// TPU_SEED from the environment, else a fresh one; printed so a failure can be replayed.
inline uint64_t TestSeed() {
  const char* env = std::getenv("TPU_SEED");
  const uint64_t seed = env != nullptr ? std::strtoull(env, nullptr, 0) : std::random_device{}();
  std::cout << "[ seed     ] TPU_SEED=" << seed << "\n";
  return seed;
}

inline int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

inline std::vector<uint8_t> RandomBytes(std::mt19937_64& rng, std::size_t size) {
  std::vector<uint8_t> bytes(size);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(Uniform(rng, 0, 255));
  return bytes;
}

// Assembles `text` for the machine's device (checks off with validate = false, to feed it bad
// instructions) and runs it.
inline RunResult RunAsm(Machine& machine, const std::string& text, bool validate = true) {
  isa::AssembleOptions options;
  options.limits = machine.limits();
  options.validate = validate;
  return machine.Run(isa::Assemble(text, options));
}

inline std::vector<isa::Instr> AsmInstrs(const std::string& text, const isa::DeviceLimits& limits) {
  isa::AssembleOptions options;
  options.limits = limits;
  std::vector<isa::Instr> instrs;
  for (const isa::Words& words : isa::Assemble(text, options)) {
    instrs.push_back(isa::Decode(words).instr);
  }
  return instrs;
}

inline std::string Hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace tpu::model

#endif  // TPU_TESTS_MODEL_MODEL_TESTING_H_
