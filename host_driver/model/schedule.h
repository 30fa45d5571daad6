// An abstract concurrent schedule of a program: the dispatcher issuing in order into per-unit
// queues, the four units each executing in order, token counters and the weight FIFO with its
// capacity (docs/isa.md "Dependencies", docs/controller.md). No data moves; it answers what the
// reference machine (program order, model/machine.h) does not: does the program finish on the
// device or deadlock, and what do the token counters hold at HALT.
//
// Each step takes one enabled action, the first in a fixed order (seed 0: the dispatcher issues
// as far ahead as the queues allow) or one at random (seed != 0), so that several seeds explore
// different interleavings. Actions: the dispatcher issues the next instruction (NOP retires,
// SYNC/HALT hold it until their condition holds); a unit pops its queue head into its register;
// starts it once its wait tokens are > 0 (taking them); a READ_WEIGHTS pushes one tile while
// the FIFO has room; a MATMUL new_tile=1 takes one tile (the model frees FIFO space only when
// the consuming MATMUL runs, the latest the hardware does); an instruction completes and gives
// its signal tokens. The matrix unit runs one MATMUL at a time here (the hardware overlaps
// them, which only frees queue space sooner).
#ifndef TPU_MODEL_SCHEDULE_H_
#define TPU_MODEL_SCHEDULE_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/isa_gen.h"

namespace tpu::model {

struct ScheduleOptions {
  int queue_depth = 4;                     // instructions each unit's queue holds
  int fifo_tiles = isa::kWeightFifoTiles;  // weight FIFO capacity
  uint64_t seed = 0;                       // 0: fixed action order; else random choices
};

struct ScheduleResult {
  isa::Error error = isa::Error::kOk;  // a Validate error, kDeadlock, kTokenOverflow, kNoTile
  int64_t index = -1;                  // instruction that raised it (DEADLOCK: the one the
                                       // dispatcher holds)
  bool halted = false;                 // HALT completed
  std::array<int, isa::kNumTokens> tokens{};      // counters at the end
  std::array<int, isa::kNumTokens> max_tokens{};  // highest value each counter reached
  int max_fifo_tiles = 0;                         // most tiles the FIFO held
  int64_t steps = 0;                              // actions taken
  std::string message;
};

ScheduleResult SimulateSchedule(const std::vector<isa::Instr>& program,
                                const isa::DeviceLimits& limits,
                                const ScheduleOptions& options = {});

}  // namespace tpu::model

#endif  // TPU_MODEL_SCHEDULE_H_
