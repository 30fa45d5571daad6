#include "model/run_result.h"

#include "isa/instr.h"

namespace tpu::model {

const char* RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kHalted:
      return "halted";
    case RunStatus::kEndOfProgram:
      return "end of program";
    case RunStatus::kDeviceError:
      return "device error";
    case RunStatus::kModelError:
      return "model error";
  }
  return "?";
}

const char* ModelErrorName(ModelError error) {
  switch (error) {
    case ModelError::kNone:
      return "none";
    case ModelError::kTokenOrder:
      return "token order";
    case ModelError::kEmptyFifo:
      return "empty weight FIFO";
    case ModelError::kShiftRange:
      return "shift range";
  }
  return "?";
}

std::string ToString(const RunResult& result) {
  std::string text = RunStatusName(result.status);
  if (result.status == RunStatus::kDeviceError) text += " " + isa::ErrorName(result.error);
  if (result.status == RunStatus::kModelError) {
    text += std::string(" (") + ModelErrorName(result.model_error) + ")";
  }
  if (result.index >= 0) text += " at instruction " + std::to_string(result.index);
  if (!result.message.empty()) text += ": " + result.message;
  return text;
}

}  // namespace tpu::model
