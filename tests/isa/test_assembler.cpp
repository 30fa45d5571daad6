// Assembler and disassembler: syntax, the canonical form, round trips, and error messages that
// name the line, the instruction, the field and its legal range.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "isa/isa.h"
#include "random_instr.h"

namespace tpu::isa {
namespace {

AssembleOptions Unchecked() {
  AssembleOptions options;
  options.validate = false;
  return options;
}

// The messages Assemble() reports for `text`, or a failure if it assembles.
std::vector<std::string> Errors(const std::string& text, const AssembleOptions& options = {}) {
  try {
    Assemble(text, options);
  } catch (const AsmError& e) {
    std::vector<std::string> messages;
    for (const AsmDiagnostic& d : e.diagnostics()) messages.push_back(d.message);
    return messages;
  }
  ADD_FAILURE() << "assembled without error: " << text;
  return {};
}

std::string OnlyError(const std::string& text, const AssembleOptions& options = {}) {
  const std::vector<std::string> errors = Errors(text, options);
  EXPECT_EQ(errors.size(), 1u);
  return errors.empty() ? "" : errors[0];
}

TEST(Assembler, ReadsFieldsInAnyOrderWithCommentsAndBlankLines) {
  const std::vector<Words> program = Assemble(
      "# a comment line\n"
      "\n"
      "  matmul  new_tile=1 rows=64 acc=512 ub=0 acc_mode=overwrite signal=t3,t4 wait=t1 # tail\n"
      "HALT\r\n");
  ASSERT_EQ(program.size(), 2u);
  Matmul m;
  m.ub = 0;
  m.acc = 512;
  m.rows = 64;
  m.new_tile = true;
  m.wait = kTokensT1;
  m.signal = kTokensT3 | kTokensT4;
  EXPECT_EQ(program[0], Encode(m));
  EXPECT_EQ(program[1], Encode(Halt{}));
}

TEST(Assembler, ValueSyntax) {
  const auto one = [](const std::string& text) { return Assemble(text, Unchecked()).at(0); };
  Sync s;
  s.units = kUnitsDma | kUnitsMatrix;
  EXPECT_EQ(one("SYNC units=dma,matrix"), Encode(s));
  EXPECT_EQ(one("SYNC units=0x5"), Encode(s));
  EXPECT_EQ(one("SYNC units=5 wait=none signal=0"), Encode(s));
  s = Sync{kUnitsAll, kTokensAll, 0};
  EXPECT_EQ(one("SYNC units=all wait=all"), Encode(s));
  EXPECT_EQ(one("SYNC units=activation,weights,dma,matrix wait=255"), Encode(s));
  Activate a;
  a.rows = 1;
  a.zero_point = -128;
  a.clamp_max = -0x10;
  EXPECT_EQ(one("ACTIVATE acc=0 ub=0 rows=1 param_set=0 zero_point=-128 clamp_max=-0x10"),
            Encode(a));
  ReadHost r;
  r.target = Target::kLut;
  r.host = 0xFFFFFFFFFFFF;
  r.length = 256;
  EXPECT_EQ(one("READ_HOST target=lut host=0xFFFFFFFFFFFF dest=0 length=256"), Encode(r));
  // Enum fields also take their encoding as a number (so that bad encodings can be written).
  EXPECT_EQ(one("READ_HOST target=3 host=281474976710655 dest=0 length=256"), Encode(r));
}

TEST(Assembler, RawWords) {
  const std::vector<Words> program =
      Assemble(".words 0x00000000 0x1 2 0xffffffff\n.words 0x30 0 0 0\n");
  ASSERT_EQ(program.size(), 2u);
  EXPECT_EQ(program[0], (Words{0u, 1u, 2u, 0xFFFFFFFFu}));
  EXPECT_EQ(Check(program[0], DeviceLimits{}), Error::kIllegalOpcode);
  EXPECT_EQ(Check(program[1], DeviceLimits{}), Error::kLengthZero);  // MATMUL rows = 0
}

TEST(Assembler, ErrorsNameLineInstructionFieldAndRange) {
  EXPECT_EQ(OnlyError("NOP\n\nMATMUL ub=4090 acc=0 rows=64 acc_mode=overwrite new_tile=0\n"),
            "line 3: MATMUL: field 'ub' = 4090 out of range: need ub + rows <= UB_ROWS when "
            "window == 0 (ub = 4090, rows = 64, UB_ROWS = 4096, window = 0) -> UB_RANGE");
  EXPECT_EQ(OnlyError("MATMUL ub=300000 acc=0 rows=64 acc_mode=overwrite new_tile=0"),
            "line 1: MATMUL: field 'ub' = 300000 does not fit in 18 bits (legal 0..262143)");
  EXPECT_EQ(OnlyError("MATMUL ub=-1 acc=0 rows=64 acc_mode=overwrite new_tile=0"),
            "line 1: MATMUL: field 'ub' = -1 does not fit in 18 bits (legal 0..262143)");
  EXPECT_EQ(OnlyError("ACTIVATE acc=0 ub=0 rows=1 param_set=0 zero_point=128"),
            "line 1: ACTIVATE: field 'zero_point' = 128 does not fit in 8 bits (legal -128..127)");
  EXPECT_EQ(OnlyError("MATMUL ub=0 acc=0 rows=0 acc_mode=overwrite new_tile=0"),
            "line 1: MATMUL: field 'rows' = 0 out of range: need rows >= 1 -> LENGTH_ZERO");
  EXPECT_EQ(OnlyError("MATMUL ub=0 acc=0 acc_mode=overwrite new_tile=0"),
            "line 1: MATMUL: missing field 'rows' (required, 0..8191)");
  EXPECT_EQ(OnlyError("MATMUL ub=0 acc=0 rows=1 new_tile=0"),
            "line 1: MATMUL: missing field 'acc_mode' (required, one of overwrite, accumulate)");
  EXPECT_EQ(OnlyError("MATMUL ub=0 acc=0 rows=1 acc_mode=add new_tile=0"),
            "line 1: MATMUL: field 'acc_mode' = 'add' is not one of overwrite, accumulate");
  EXPECT_EQ(OnlyError("MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=yes"),
            "line 1: MATMUL: field 'new_tile' = 'yes' must be 0 or 1");
  EXPECT_EQ(OnlyError("MATMUL ub=zero acc=0 rows=1 acc_mode=overwrite new_tile=0"),
            "line 1: MATMUL: field 'ub': 'zero' is not a number (legal 0..262143)");
  EXPECT_EQ(OnlyError("MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=0 wait=t1,t8"),
            "line 1: MATMUL: field 'wait': 't8' is not one of t0, t1, t2, t3, t4, t5, t6, t7 "
            "(or none, all, a number)");
  EXPECT_EQ(OnlyError("MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=0 stride=2"),
            "line 1: MATMUL: no field 'stride' (fields: ub, acc, rows, acc_mode, new_tile, window, "
            "stride_h, stride_w, image_w, image_h, out_w, pad_value, y0, x0, wait, signal)");
  EXPECT_EQ(OnlyError("MATMUL ub=0 ub=1 acc=0 rows=1 acc_mode=overwrite new_tile=0"),
            "line 1: MATMUL: field 'ub' given twice");
  EXPECT_EQ(OnlyError("MATMUL ub 0"), "line 1: MATMUL: expected field=value, got 'ub'");
  EXPECT_EQ(OnlyError("NOP x=1"), "line 1: NOP: no field 'x' (fields: none)");
  EXPECT_EQ(OnlyError("MATMULL ub=0"),
            "line 1: unknown instruction 'MATMULL' (instructions: NOP, HALT, SYNC, READ_HOST, "
            "WRITE_HOST, READ_WEIGHTS, MATMUL, ACTIVATE, .words)");
  EXPECT_EQ(OnlyError(".words 1 2 3"), "line 1: .words takes 4 words, got 3");
  EXPECT_EQ(OnlyError(".words 1 2 3 0x100000000"),
            "line 1: .words: '0x100000000' is not a 32-bit number");
  EXPECT_EQ(OnlyError("ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=2 win_w=2 "
                      "stride_h=2 stride_w=2 image_h=8 image_w=7"),
            "line 1: ACTIVATE: field 'rows' = 64 out of range: need rows % (image_h * image_w) "
            "== 0 when pool != 'none' (rows = 64, image_h = 8, image_w = 7, pool = max) -> "
            "POOL_CONFIG");
}

TEST(Assembler, ReportsEveryBadLineAndUsesTheSourceName) {
  AssembleOptions options;
  options.source = "prog.tasm";
  try {
    Assemble("NOP\nFOO\nHALT\nMATMUL ub=0 acc=1024 rows=1 acc_mode=overwrite new_tile=0\n",
             options);
    FAIL() << "no exception";
  } catch (const AsmError& e) {
    ASSERT_EQ(e.diagnostics().size(), 2u);
    EXPECT_EQ(e.diagnostics()[0].line, 2);
    EXPECT_EQ(e.diagnostics()[1].line, 4);
    EXPECT_EQ(e.diagnostics()[1].message,
              "prog.tasm:4: MATMUL: field 'acc' = 1024 out of range: need acc + rows <= ACC_ROWS "
              "(acc = 1024, rows = 1, ACC_ROWS = 1024) -> ACC_RANGE");
    EXPECT_EQ(std::string(e.what()),
              e.diagnostics()[0].message + "\n" + e.diagnostics()[1].message);
  }
}

TEST(Assembler, ChecksAgainstTheGivenDevice) {
  const std::string text = "MATMUL ub=600 acc=0 rows=64 acc_mode=overwrite new_tile=0";
  EXPECT_NO_THROW(Assemble(text));
  AssembleOptions small;
  small.limits.ub_rows = 512;
  EXPECT_EQ(OnlyError(text, small),
            "line 1: MATMUL: field 'ub' = 600 out of range: need ub + rows <= UB_ROWS when "
            "window == 0 (ub = 600, rows = 64, UB_ROWS = 512, window = 0) -> UB_RANGE");
  small.validate = false;
  EXPECT_NO_THROW(Assemble(text, small));
  AssembleOptions bad;
  bad.limits.acc_rows = 3;
  EXPECT_THROW(Assemble(text, bad), std::invalid_argument);
}

TEST(Disassembler, CanonicalForm) {
  Matmul m;
  m.ub = 0;
  m.acc = 512;
  m.rows = 64;
  m.new_tile = true;
  m.signal = kTokensT3;
  EXPECT_EQ(Disassemble(m), "MATMUL ub=0 acc=512 rows=64 acc_mode=overwrite new_tile=1 signal=t3");
  ReadHost r;
  r.target = Target::kDram;
  r.host = 0x100000000;
  r.dest = 0x40;
  r.length = 1536;
  r.wait = kTokensT0 | kTokensT7;
  EXPECT_EQ(Disassemble(r),
            "READ_HOST target=dram host=0x100000000 dest=64 length=1536 wait=t0,t7");
  Activate a;
  a.rows = 9;
  a.clamp_min = 0;
  a.pool = Pool::kAvg;
  a.win_h = a.win_w = 3;
  a.stride_h = a.stride_w = 1;
  a.image_h = a.image_w = 3;
  EXPECT_EQ(Disassemble(a),
            "ACTIVATE acc=0 ub=0 rows=9 param_set=0 clamp_min=0 pool=avg win_h=3 win_w=3 "
            "stride_h=1 stride_w=1 image_h=3 image_w=3");
  EXPECT_EQ(Disassemble(Sync{}), "SYNC");
  EXPECT_EQ(Disassemble(Encode(Nop{})), "NOP");
  EXPECT_EQ(Disassemble(Words{0, 0, 0, 0}),
            ".words 0x00000000 0x00000000 0x00000000 0x00000000  # ILLEGAL_OPCODE");
  EXPECT_EQ(Disassemble(Words{0x01, 0, 0, 0x80000000u}),
            ".words 0x00000001 0x00000000 0x00000000 0x80000000  # RESERVED_NONZERO");
}

TEST(Disassembler, RoundTripsRandomInstructions) {
  std::mt19937_64 rng(TestSeed());
  for (const InstrInfo& info : kInstrs) {
    SCOPED_TRACE(info.name);
    for (int n = 0; n < 500; ++n) {
      const Instr instr = RandomInstr(info, rng);
      const Words words = Encode(instr);
      const std::string text = Disassemble(words);
      const std::vector<Words> again = Assemble(text, Unchecked());
      ASSERT_EQ(again.size(), 1u);
      ASSERT_EQ(again[0], words) << text;
      ASSERT_EQ(Disassemble(again[0]), text);
      if (Validate(instr, DeviceLimits{}) == Error::kOk) {
        ASSERT_EQ(Assemble(text).at(0), words) << text;  // checked assembly accepts it
      }
    }
  }
}

TEST(Disassembler, RoundTripsRandomWords) {
  // Any four words, legal or not, survive disassembly and assembly (as .words if need be).
  std::mt19937_64 rng(TestSeed());
  std::vector<Words> program;
  for (int n = 0; n < 2000; ++n) {
    Words words{static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()),
                static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng())};
    if (n % 2) words[0] = (words[0] & ~0xFFu) | static_cast<uint32_t>(kInstrs[n % 8].opcode);
    if (n % 4 == 1) {  // clear the reserved bits so that some decode
      for (int w = 0; w < kInstrWords; ++w) words[w] &= ~kInstrs[n % 8].reserved_mask[w];
    }
    program.push_back(words);
  }
  EXPECT_EQ(Assemble(DisassembleProgram(program), Unchecked()), program);
}

}  // namespace
}  // namespace tpu::isa
