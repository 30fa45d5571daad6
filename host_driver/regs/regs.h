// The TPU's BAR0 register map (docs/registers.md), namespace tpu::regs:
//   regs/regs_gen.h  generated from regs/regs.json: offsets (kRingTail), reset values, field
//                    shifts and masks (kControlIrqEnableMask), arrays (PerfLo(i)), error codes
//                    beyond tpu::isa::Error, and kRegisters, every register by offset
//   regs/regs.h      lookups by offset or name, field values, and a formatter for dumps
//
//   const tpu::regs::RegisterInfo* r = tpu::regs::FindRegister(tpu::regs::kStatus);
//   std::cout << tpu::regs::FormatRegister(*r, value) << "\n";
//   // STATUS       0x044 = 0x0000000a  running=0 done=1 error=0 ring_empty=1 dma_busy=0
#ifndef TPU_REGS_REGS_H_
#define TPU_REGS_REGS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "regs/regs_gen.h"

namespace tpu::regs {

// The register at a byte offset (bits 1:0 ignored), or nullptr if the offset is unmapped.
const RegisterInfo* FindRegister(uint32_t offset);
// The register by name (exact, upper case: "RING_TAIL", "PERF_3_LO"), or nullptr.
const RegisterInfo* FindRegister(std::string_view name);
// A field of a register by name, or nullptr.
const FieldInfo* FindField(const RegisterInfo& reg, std::string_view name);

// The field's bits of a register value: shifted down to bit 0, or left in place for
// address fields (FieldInfo::in_place).
uint32_t FieldValue(const FieldInfo& field, uint32_t reg_value);
// A register value with `field` set to `value` (given as FieldValue returns it; bits that do
// not fit are dropped).
uint32_t WithField(const FieldInfo& field, uint32_t reg_value, uint32_t value);

// "RO", "RW", "RW1C", "W1P".
const char* AccessName(Access access);
// Name of an ERROR_CODE value: this map's own codes (RING_FETCH_ERROR), then the instruction
// set's (tpu::isa::ErrorName: "DMA_ERROR", "ERROR_<n>" for a code with no name).
std::string ErrorCodeName(uint32_t code);

// "irq_enable=1", "addr=0x12345670", "code=0x13 (DMA_ERROR)".
std::string FormatField(const FieldInfo& field, uint32_t reg_value);
// One dump line: name, offset, value, then every field; reserved bits that are set (which
// the device never returns) are shown as "reserved=0x...".
//   "CONTROL      0x040 = 0x00000002  soft_reset=0 irq_enable=1"
std::string FormatRegister(const RegisterInfo& reg, uint32_t value);

}  // namespace tpu::regs

#endif  // TPU_REGS_REGS_H_
