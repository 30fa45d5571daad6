// Binary encoding of instructions: 128 bits as four little-endian 32-bit words (docs/isa.md).
#ifndef TPU_ISA_CODEC_H_
#define TPU_ISA_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "isa/isa_gen.h"

namespace tpu::isa {

// Bits [lsb, lsb + width) of the instruction (width <= 64), field bit 0 at `lsb`.
uint64_t GetBits(const Words& words, int lsb, int width);
// Writes the low `width` bits of `value` into bits [lsb, lsb + width).
void SetBits(Words* words, int lsb, int width, uint64_t value);

// The instruction's encoding: opcode, every field, reserved bits 0. Values are not checked
// against the device (an out-of-range UB row encodes fine, so that tests can feed the hardware
// bad instructions), but a value that does not fit its bits throws std::invalid_argument naming
// the instruction, the field and its encodable range.
Words Encode(const Instr& instr);

// What decoding the words gives, and the first error of the hardware's decode stage.
struct Decoded {
  // kIllegalOpcode (then `instr` is a Nop), kReservedNonzero (then `instr` holds the fields,
  // the reserved bits dropped), an enum field's error for an unlisted encoding (then `instr`
  // holds the raw value), or kOk.
  Error error = Error::kOk;
  Instr instr;
  int field = -1;  // index of the enum field with the unlisted encoding, else -1
  Opcode opcode = Opcode::kNop;  // instr's opcode (kNop for kIllegalOpcode)
  FieldValues values{};          // instr's fields as numbers (ValuesOf), for Check
};

// Never throws: bad input is reported as the error code the hardware raises.
Decoded Decode(const Words& words);

// Everything the dispatcher checks before issuing, in its order: Decode(), then Validate()
// against the device. kOk if the instruction would be issued.
Error Check(const Words& words, const DeviceLimits& limits);
// The same for words already decoded (the decoded fields are validated as they are, without
// going through the Instr again): what the reference machine runs for every instruction.
Error Check(const Decoded& decoded, const DeviceLimits& limits);

// An instruction in memory (a slot of the instruction ring): its four words in order, each
// little-endian, 16 bytes.
inline constexpr size_t kSlotBytes = 16;
static_assert(sizeof(Words) == kSlotBytes, "a slot holds one instruction's words");

// The bytes of `count` slots holding `words`, kSlotBytes * count of them. On a little-endian
// host they are the words' own bytes (no copy: a large program's slots are megabytes); on a
// big-endian host they are converted into `*scratch`, which the result then points into.
const uint8_t* SlotBytes(const Words* words, size_t count, std::vector<uint8_t>* scratch);

// Turns `count` slots whose bytes were read into `words`' memory into the words they hold:
// nothing to do on a little-endian host, each word's bytes swapped on a big-endian one.
void SlotBytesToWords(Words* words, size_t count);

}  // namespace tpu::isa

#endif  // TPU_ISA_CODEC_H_
