// The TPU instruction set (docs/isa.md), namespace tpu::isa:
//   isa/isa_gen.h       generated from isa/isa.json: Opcode, Error, enums, DeviceLimits, one
//                       struct per instruction (Matmul, Activate, ...), Instr, field tables
//   isa/instr.h         generic access: OpcodeOf, InfoOf, ValuesOf, names
//   isa/codec.h         Encode, Decode, Check (what the dispatcher raises)
//   isa/validate.h      Validate, Explain, CheckLimits
//   isa/program.h       Program (a program's instructions, encoded)
//   isa/assembler.h     Assemble (text -> words)
//   isa/disassembler.h  Disassemble (words or Instr -> text)
//
//   tpu::isa::Matmul m;
//   m.ub = 0; m.acc = 512; m.rows = 64; m.new_tile = true; m.signal = tpu::isa::kTokensT3;
//   tpu::isa::Words words = tpu::isa::Encode(m);
#ifndef TPU_ISA_ISA_H_
#define TPU_ISA_ISA_H_

#include "isa/assembler.h"
#include "isa/codec.h"
#include "isa/disassembler.h"
#include "isa/instr.h"
#include "isa/isa_gen.h"
#include "isa/program.h"
#include "isa/validate.h"

#endif  // TPU_ISA_ISA_H_
