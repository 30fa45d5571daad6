// Collects a program's instructions, checking each against the device as it is added, so that a
// lowering never hands the device an instruction it would reject.
#ifndef TPU_COMPILER_PROGRAM_BUILDER_H_
#define TPU_COMPILER_PROGRAM_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "isa/isa_gen.h"
#include "isa/program.h"

namespace tpu::compiler {

class ProgramBuilder {
 public:
  explicit ProgramBuilder(const isa::DeviceLimits& limits) : limits_(limits) {}

  const isa::DeviceLimits& limits() const { return limits_; }

  // Appends `instr`. Throws std::invalid_argument with the disassembly and the violated rule
  // (isa::Explain) if the device would reject it, or if it cannot be encoded.
  void Add(const isa::Instr& instr);

  // READ_HOST of any length, split into transfers the length field holds (whole UB rows for
  // target ub); the first waits on `wait`, the last signals `signal`. `dest` is the first UB row
  // or byte address.
  void ReadHost(isa::Target target, uint64_t host, int64_t dest, int64_t length, uint8_t wait,
                uint8_t signal);

  // Room for `count` more instructions (a lowering that knows its size: no regrowth).
  void Reserve(std::size_t count) { program_.Reserve(count); }

  const isa::Program& program() const { return program_; }
  isa::Program Take() { return std::move(program_); }

 private:
  isa::DeviceLimits limits_;
  isa::Program program_;
};

}  // namespace tpu::compiler

#endif  // TPU_COMPILER_PROGRAM_BUILDER_H_
