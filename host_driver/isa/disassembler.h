// Instructions as assembly text, in the canonical form the assembler reads back (docs/isa.md,
// "Assembly language").
#ifndef TPU_ISA_DISASSEMBLER_H_
#define TPU_ISA_DISASSEMBLER_H_

#include <string>
#include <vector>

#include "isa/isa_gen.h"

namespace tpu::isa {

// One line without newline: mnemonic, then the fields in syntax order, those equal to their
// default left out, e.g. "MATMUL ub=0 acc=512 rows=64 acc_mode=overwrite new_tile=1 signal=t3".
std::string Disassemble(const Instr& instr);

// Decodes and disassembles; words that do not decode (illegal opcode, reserved bits set,
// unlisted enum encoding) become ".words 0x... 0x... 0x... 0x...  # <ERROR>".
std::string Disassemble(const Words& words);

// One line per instruction, each ending in a newline.
std::string DisassembleProgram(const std::vector<Words>& program);

}  // namespace tpu::isa

#endif  // TPU_ISA_DISASSEMBLER_H_
