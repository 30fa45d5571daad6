// A program as the device reads it: each instruction's 128-bit encoding (a ring slot, 16
// bytes), in order. Lowerings build one; the driver writes its words to the ring as they are.
//
// Held encoded, not as isa::Instr (a 72-byte variant), because a large layer is hundreds of
// thousands of instructions: a 1024^3 dense layer at N = 16 is 145,892 of them, 10.5 MB as
// Instr, which the driver then encoded into 2.3 MB of words. Encoded once, where the lowering
// makes them, they are 2.3 MB in all, and a value that does not fit its field is reported
// there. Reading an instruction back decodes it (by value).
#ifndef TPU_ISA_PROGRAM_H_
#define TPU_ISA_PROGRAM_H_

#include <cstddef>
#include <iterator>
#include <vector>

#include "isa/isa_gen.h"

namespace tpu::isa {

class Program {
 public:
  // Yields each instruction decoded, by value (an input iterator: there is no Instr in memory
  // to refer to).
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Instr;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Instr;

    Iterator(const Program* program, std::size_t index) : program_(program), index_(index) {}
    Instr operator*() const { return (*program_)[index_]; }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++index_;
      return before;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }
    bool operator!=(const Iterator& other) const { return index_ != other.index_; }

   private:
    const Program* program_;
    std::size_t index_;
  };

  Program() = default;
  // Encodes `instrs` in order. Throws std::invalid_argument naming the first instruction (its
  // index) with a value that does not fit its field.
  explicit Program(const std::vector<Instr>& instrs);

  // Appends `instr`, encoded. Throws std::invalid_argument (isa::Encode) if a value does not fit
  // its field; the program is then unchanged.
  void Add(const Instr& instr);
  void Append(const Program& other);
  void PopBack() { words_.pop_back(); }
  // Room for `count` more instructions (a lowering that knows its size: no regrowth).
  void Reserve(std::size_t count) { words_.reserve(words_.size() + count); }

  std::size_t size() const { return words_.size(); }
  bool empty() const { return words_.empty(); }
  // Instruction `i`, decoded (i < size()).
  Instr operator[](std::size_t i) const;
  Instr back() const { return (*this)[words_.size() - 1]; }
  // Instruction `i`'s opcode, without decoding its fields.
  Opcode OpcodeAt(std::size_t i) const;
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, words_.size()); }

  // The encoded instructions: what the ring's slots hold.
  const std::vector<Words>& words() const { return words_; }
  // Every instruction decoded (tests and tools that edit or inspect a whole program).
  std::vector<Instr> Instrs() const;

 private:
  std::vector<Words> words_;
};

}  // namespace tpu::isa

#endif  // TPU_ISA_PROGRAM_H_
