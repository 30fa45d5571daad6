// Fuzz test of the instruction decoder and the assembler's text parser (host_driver/isa), from
// fixed seeds: every single- and double-bit flip of every instruction's encodings and random
// words are decoded and checked (a word that decodes re-encodes to the same words and
// disassembles to text that assembles back to them; one that does not is an error code, never an
// exception; the decoded fields, the error and the checks equal the table-walking definitions'),
// and seeded mutations of assembly text (docs/isa.md's example program, random
// instructions) either assemble, and then disassemble and reassemble to the same words, or are
// rejected with an AsmError whose every message names its line.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "isa/isa.h"
#include "mutation_testing.h"
#include "random_instr.h"

namespace tpu::isa {
namespace {

using tpu::testing::AcceptedOrRejected;
using tpu::testing::Mutator;

AssembleOptions Unchecked() {
  AssembleOptions options;
  options.validate = false;
  return options;
}

// The codec's and validator's per-instruction code (static_fields.h) against the tables they
// are made from: the fields read one by one with GetBits, the reserved bits, the enum
// encodings and the rules as validate.h's table walk checks them.
void CheckAgainstTables(const Words& words, const Decoded& d, const std::string& what) {
  const InstrInfo* info = FindInstr(static_cast<uint8_t>(words[0] & 0xFF));
  if (info == nullptr) {
    ASSERT_EQ(d.error, Error::kIllegalOpcode) << what;
    return;
  }
  FieldValues values{};
  for (int i = 0; i < info->num_fields; ++i) {
    const FieldInfo& f = info->fields[i];
    uint64_t raw = GetBits(words, f.lsb, f.width);
    if (f.kind == FieldKind::kSint && ((raw >> (f.width - 1)) & 1)) {
      raw |= ~((uint64_t{1} << f.width) - 1);
    }
    values[size_t(i)] = static_cast<int64_t>(raw);
  }
  ASSERT_EQ(d.values, values) << what;
  bool reserved = false;
  for (int w = 0; w < kInstrWords; ++w) {
    reserved |= (words[size_t(w)] & info->reserved_mask[w]) != 0;
  }
  const int unlisted = FirstIllegalEncoding(*info, values);
  ASSERT_EQ(d.error, reserved         ? Error::kReservedNonzero
                     : unlisted >= 0 ? info->fields[unlisted].error
                                     : Error::kOk)
      << what;
  if (d.error != Error::kOk) return;
  const DeviceLimits small{8, 1 << 16, 1 << 11, 1 << 22, 8};
  for (const DeviceLimits& limits : {DeviceLimits{}, small}) {
    const Error want = ValidateValues(*info, values, limits);
    ASSERT_EQ(Check(words, limits), want) << what;
    ASSERT_EQ(Validate(d.instr, limits), want) << what;
  }
}

// The decoder's contract for any four words.
void CheckDecode(const Words& words, const std::string& what) {
  Decoded d;
  ASSERT_NO_THROW(d = Decode(words)) << what;
  Error checked = Error::kOk;
  ASSERT_NO_THROW(checked = Check(words, DeviceLimits{})) << what;
  CheckAgainstTables(words, d, what);
  const std::string text = Disassemble(words);
  ASSERT_FALSE(text.empty()) << what;
  // Any words survive disassembly and assembly, as .words when they do not decode.
  ASSERT_EQ(Assemble(text, Unchecked()), std::vector<Words>{words}) << what << ": " << text;
  if (d.error == Error::kOk) {
    ASSERT_EQ(Encode(d.instr), words) << what;
    ASSERT_EQ(OpcodeOf(d.instr), static_cast<Opcode>(words[0] & 0xFF)) << what;
    if (checked == Error::kOk) {
      // Issued by the hardware: the checked assembler takes its text too.
      ASSERT_EQ(Assemble(text), std::vector<Words>{words}) << what << ": " << text;
    }
  } else {
    ASSERT_NE(checked, Error::kOk) << what;
    ASSERT_NE(text.find(".words"), std::string::npos) << what;
  }
}

TEST(IsaFuzz, BitFlipsOfEveryInstruction) {
  std::mt19937_64 rng(41);
  int cases = 0, decoded = 0;
  for (const InstrInfo& info : kInstrs) {
    for (int n = 0; n < 8; ++n) {
      const Words legal = Encode(RandomInstr(info, rng));
      for (int bit = 0; bit < 32 * kInstrWords; ++bit) {
        Words w = legal;
        w[size_t(bit / 32)] ^= 1u << (bit % 32);
        // A second flip somewhere else half of the time.
        if (bit % 2) {
          const int other = std::uniform_int_distribution<int>(0, 32 * kInstrWords - 1)(rng);
          w[size_t(other / 32)] ^= 1u << (other % 32);
        }
        CheckDecode(w, std::string(info.name) + " flip " + std::to_string(bit));
        decoded += Decode(w).error == Error::kOk;
        ++cases;
      }
    }
  }
  EXPECT_GT(decoded, 0);
  std::cout << cases << " flipped instructions, " << decoded << " decode\n";
}

TEST(IsaFuzz, RandomWords) {
  std::mt19937_64 rng(42);
  for (int n = 0; n < 5000; ++n) {
    Words w{uint32_t(rng()), uint32_t(rng()), uint32_t(rng()), uint32_t(rng())};
    if (n % 2) w[0] = (w[0] & ~0xFFu) | uint32_t(kInstrs[size_t(n) % std::size(kInstrs)].opcode);
    if (n % 4 == 1) {  // the reserved bits clear, so that most decode
      const InstrInfo& info = kInstrs[size_t(n) % std::size(kInstrs)];
      for (int i = 0; i < kInstrWords; ++i) w[size_t(i)] &= ~info.reserved_mask[i];
    }
    CheckDecode(w, "random words " + std::to_string(n));
  }
}

// Assembles `text`: true if accepted (and then the program round-trips through the
// disassembler), false if rejected with an AsmError naming a line in every message.
bool Assembles(const std::string& text, const AssembleOptions& options, const std::string& what) {
  return AcceptedOrRejected<AsmError>(what, [&] {
    try {
      const std::vector<Words> program = Assemble(text, options);
      const std::string again = DisassembleProgram(program);
      EXPECT_EQ(Assemble(again, Unchecked()), program) << what << "\n" << again;
    } catch (const AsmError& e) {
      EXPECT_FALSE(e.diagnostics().empty()) << what;
      for (const AsmDiagnostic& d : e.diagnostics()) {
        EXPECT_GE(d.line, 1) << what;
        EXPECT_EQ(d.message.rfind("fuzz.tasm:" + std::to_string(d.line) + ": ", 0), 0u)
            << what << ": " << d.message;
      }
      throw;
    }
  });
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(IsaFuzz, MutatedAssembly) {
  // Seeds: the example program and random instructions in canonical form.
  std::vector<std::string> seeds = {
      ReadText(std::string(TPU_ISA_EXAMPLES_DIR) + "/dense_double_buffer.tasm")};
  ASSERT_FALSE(seeds[0].empty());
  std::mt19937_64 rng(43);
  for (int s = 0; s < 8; ++s) {
    std::string text = "# random program\n";
    for (const InstrInfo& info : kInstrs) {
      text += Disassemble(RandomInstr(info, rng)) + "  # " + info.name + "\n";
    }
    seeds.push_back(text);
  }
  AssembleOptions checked;
  checked.source = "fuzz.tasm";
  AssembleOptions unchecked = Unchecked();
  unchecked.source = "fuzz.tasm";
  for (const std::string& seed : seeds) ASSERT_TRUE(Assembles(seed, unchecked, "seed"));

  Mutator mutator(44);
  int accepted = 0;
  const int kCases = 4000;
  mutator.ForEachMutant(seeds, kCases, [&](const std::string& m, const std::string& what) {
    accepted += Assembles(m, unchecked, what + " unchecked");
    Assembles(m, checked, what);
  });
  std::cout << kCases << " mutated programs, " << accepted << " assemble unchecked\n";
}

}  // namespace
}  // namespace tpu::isa
