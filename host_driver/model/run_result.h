// How a run of the reference machine ended: like the device's status register (completion or
// error code plus the failing instruction's index), or a model error for programs whose result
// depends on concurrency the program-order model does not simulate.
#ifndef TPU_MODEL_RUN_RESULT_H_
#define TPU_MODEL_RUN_RESULT_H_

#include <array>
#include <cstdint>
#include <string>

#include "isa/isa_gen.h"

namespace tpu::model {

enum class RunStatus {
  kHalted,        // HALT reached (index = HALT's index)
  kEndOfProgram,  // ran out of instructions without HALT (the device would wait for the host)
  kDeviceError,   // the device raises `error` at `index`
  kModelError,    // the model cannot tell what the device does (`model_error`, at `index`)
};

enum class ModelError {
  kNone,
  // A wait on a counter that is 0 in program order: the program relies on a producer later in
  // program order (legal on the device if the queues let it through, or a DEADLOCK).
  kTokenOrder,
  // MATMUL new_tile=1 with an empty weight FIFO in program order: the program relies on a
  // READ_WEIGHTS later in program order (legal on the device if the queues let it through).
  kEmptyFifo,
  // ACTIVATE with a parameter shift outside [-31, 30], which the hardware does not support.
  kShiftRange,
};

struct RunResult {
  RunStatus status = RunStatus::kEndOfProgram;
  isa::Error error = isa::Error::kOk;          // kDeviceError
  ModelError model_error = ModelError::kNone;  // kModelError
  int64_t index = -1;                          // failing instruction, or HALT
  std::string message;                         // empty when halted
  std::array<int, isa::kNumTokens> tokens{};   // counters when the run stopped
  int64_t fifo_tiles = 0;                      // tiles left in the weight FIFO
  int64_t executed = 0;                        // instructions executed (HALT included)

  bool halted() const { return status == RunStatus::kHalted; }
};

const char* RunStatusName(RunStatus status);
const char* ModelErrorName(ModelError error);
// One line, e.g. "device error TOKEN_OVERFLOW at instruction 7: ...".
std::string ToString(const RunResult& result);

}  // namespace tpu::model

#endif  // TPU_MODEL_RUN_RESULT_H_
