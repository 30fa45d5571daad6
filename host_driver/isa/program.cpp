#include "isa/program.h"

#include <stdexcept>
#include <string>

#include "isa/codec.h"

namespace tpu::isa {

Program::Program(const std::vector<Instr>& instrs) {
  words_.reserve(instrs.size());
  for (std::size_t i = 0; i < instrs.size(); ++i) {
    try {
      words_.push_back(Encode(instrs[i]));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("instruction " + std::to_string(i) +
                                  " cannot be encoded: " + e.what());
    }
  }
}

void Program::Add(const Instr& instr) { words_.push_back(Encode(instr)); }

void Program::Append(const Program& other) {
  words_.insert(words_.end(), other.words_.begin(), other.words_.end());
}

Instr Program::operator[](std::size_t i) const { return Decode(words_[i]).instr; }

Opcode Program::OpcodeAt(std::size_t i) const {
  return static_cast<Opcode>(GetBits(words_[i], kOpcodeLsb, kOpcodeWidth));
}

std::vector<Instr> Program::Instrs() const {
  std::vector<Instr> instrs;
  instrs.reserve(words_.size());
  for (const Words& words : words_) instrs.push_back(Decode(words).instr);
  return instrs;
}

}  // namespace tpu::isa
