#include "compiler/program_builder.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include "isa/disassembler.h"
#include "isa/instr.h"
#include "isa/validate.h"

namespace tpu::compiler {

namespace {

// The largest READ_HOST length its field holds (21 bits in ISA version 2: 2 MiB - 1).
int64_t MaxReadHostLength() {
  const isa::InstrInfo& info = isa::InfoOf(isa::Opcode::kReadHost);
  for (int i = 0; i < info.num_fields; ++i) {
    if (std::string_view(info.fields[i].name) == "length") return isa::FieldMax(info.fields[i]);
  }
  throw std::logic_error("READ_HOST has no length field (isa/isa.json)");
}

}  // namespace

void ProgramBuilder::Add(const isa::Instr& instr) {
  // The cheap check first (every instruction of every program passes here); the explanation
  // only for an instruction that fails.
  isa::Error error;
  try {
    error = isa::Validate(instr, limits_);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("lowering produced an unencodable instruction: ") +
                                e.what());
  }
  if (error != isa::Error::kOk) {
    throw std::invalid_argument("lowering produced an instruction the device rejects: " +
                                isa::Disassemble(instr) + ": " +
                                isa::Explain(instr, limits_).message);
  }
  program_.Add(instr);
}

void ProgramBuilder::ReadHost(isa::Target target, uint64_t host, int64_t dest, int64_t length,
                              uint8_t wait, uint8_t signal) {
  const int64_t kMaxLength = MaxReadHostLength();
  const int64_t piece =
      target == isa::Target::kUb ? kMaxLength / limits_.n * limits_.n : kMaxLength;
  int64_t done = 0;
  while (done < length) {
    isa::ReadHost rh;
    rh.target = target;
    rh.host = host + static_cast<uint64_t>(done);
    rh.dest =
        static_cast<uint64_t>(target == isa::Target::kUb ? dest + done / limits_.n : dest + done);
    rh.length = static_cast<uint32_t>(std::min(piece, length - done));
    rh.wait = done == 0 ? wait : 0;
    done += rh.length;
    rh.signal = done == length ? signal : 0;
    Add(rh);
  }
}

}  // namespace tpu::compiler
