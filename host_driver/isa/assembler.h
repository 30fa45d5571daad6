// Assembler for the TPU instruction set: one instruction per line, `#` comments, fields as
// name=value (docs/isa.md, "Assembly language").
#ifndef TPU_ISA_ASSEMBLER_H_
#define TPU_ISA_ASSEMBLER_H_

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "isa/isa_gen.h"

namespace tpu::isa {

struct AssembleOptions {
  DeviceLimits limits;   // the device the program is for
  bool validate = true;  // reject instructions the hardware would reject (Validate)
  std::string source;    // file name for messages ("" -> "line 3: ...")
};

struct AsmDiagnostic {
  int line = 0;         // 1-based
  std::string message;  // complete, with the line: "prog.tasm:3: MATMUL: field 'ub' = ..."
};

// Every bad line of a program. what() is the messages, one per line.
class AsmError : public std::invalid_argument {
 public:
  explicit AsmError(std::vector<AsmDiagnostic> diagnostics);
  const std::vector<AsmDiagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<AsmDiagnostic> diagnostics_;
};

// The program's instructions, in order. Throws AsmError listing every bad line: syntax, unknown
// instruction or field, a value that does not fit its field, a missing required field, and (with
// options.validate) the first check the hardware would fail, each message naming the line, the
// instruction, the field and its legal range. Throws std::invalid_argument for unsupported
// options.limits (CheckLimits).
std::vector<Words> Assemble(std::string_view text, const AssembleOptions& options = {});

}  // namespace tpu::isa

#endif  // TPU_ISA_ASSEMBLER_H_
