// A static check of docs/isa.md rule 2: two instructions of different units that touch the same
// memory, at least one writing, must be ordered by a chain of signal -> wait, by SYNC, or through
// the program order of one unit. Programs that pass run the same on the device in every
// schedule, so the reference machine's program-order result is the device's result.
//
// Happens-before is computed with vector clocks over the units, walking the program once:
// - same unit: an instruction starts after the earlier ones of its unit started and sees their
//   effects (rule 1), and completes after they completed;
// - tokens: the j-th wait on token t by a unit (in that unit's order) starts after at least j
//   signals of t have completed. Signals of one producer unit complete in its program order, so
//   with P_t signals of t by other units in the whole program, the (j - P_t)-th signal of each
//   producer is known complete. With one producer unit per token (docs/isa.md: one token per
//   producer -> consumer edge) this pairs the j-th wait with the j-th signal exactly; SYNC
//   (the control unit) counts as a producer and a consumer like any unit;
// - SYNC completes after every earlier instruction of the units in its mask, and everything
//   after it in program order starts after it;
// - the weight FIFO orders no memory access (the matrix unit may read UB rows before the tile
//   arrives), so it adds no edge.
// Only the part before HALT is checked. Edges the check cannot establish (a paired signal later
// in program order) are left out, so it may report a pair the device would in fact order, never
// the other way round.
#ifndef TPU_MODEL_ORDERING_H_
#define TPU_MODEL_ORDERING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/isa_gen.h"
#include "model/access.h"

namespace tpu::model {

struct UnorderedAccess {
  int64_t first = -1;   // the earlier instruction in program order
  int64_t second = -1;  // the later one, not known to start after `first` completed
  Access first_access{};
  Access second_access{};
  std::string message;  // both instructions disassembled and the memory range
};

// An unordered conflicting pair with the smallest `second`, or none.
// The instructions must pass isa::Validate for `limits`.
std::optional<UnorderedAccess> FindUnorderedAccess(const std::vector<isa::Instr>& program,
                                                   const isa::DeviceLimits& limits);

}  // namespace tpu::model

#endif  // TPU_MODEL_ORDERING_H_
