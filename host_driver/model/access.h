// Which device memory an instruction reads and writes (docs/isa.md, "Dependencies", rule 2):
// the basis for checking that tokens order every conflicting pair of instructions.
#ifndef TPU_MODEL_ACCESS_H_
#define TPU_MODEL_ACCESS_H_

#include <cstdint>
#include <vector>

#include "isa/isa_gen.h"

namespace tpu::model {

// Device memories shared between units. Host memory is left out: only the dma unit touches it.
enum class Memory { kUb, kAcc, kDram, kParam, kLut };

const char* MemoryName(Memory memory);

// [begin, end) in rows (UB, accumulators) or bytes (weight DRAM, parameter memory, LUT).
struct Access {
  Memory memory;
  int64_t begin;
  int64_t end;
  bool write;
};

// Two accesses conflict if they touch a common location and at least one writes.
inline bool Conflict(const Access& a, const Access& b) {
  return a.memory == b.memory && (a.write || b.write) && a.begin < b.end && b.begin < a.end;
}

// The accesses of a valid instruction (isa::Validate passed): READ_HOST writes its target;
// WRITE_HOST reads UB rows; READ_WEIGHTS reads DRAM tiles; MATMUL reads UB rows and writes
// accumulator rows (accumulate also reads them); ACTIVATE reads accumulator rows, its parameter
// set and (lut=1) the LUT, and writes out_rows UB rows. NOP, HALT and SYNC touch no memory.
std::vector<Access> AccessesOf(const isa::Instr& instr, const isa::DeviceLimits& limits);

}  // namespace tpu::model

#endif  // TPU_MODEL_ACCESS_H_
