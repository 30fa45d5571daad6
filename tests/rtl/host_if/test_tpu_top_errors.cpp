// Every check of the decode stage (rtl/ctrl/tpu_ctrl_decode.sv, docs/isa.md "Error codes") and
// every run-time error of the controller, on the device (n16_small) through the instruction
// ring: each bad program stops with the error's code and the failing instruction's index in
// ERROR_CODE / ERROR_INDEX and one MSI, and after a soft reset a dense layer runs bit-exact.
// The core's own tests (tests/rtl/core/test_core_errors) send one bad instruction per error
// code; this one sends one per check, so that each check of the decoder is reached in the
// device the coverage run measures (docs/coverage.md), and puts each unit in turn in its wait
// for tokens when DEADLOCK aborts it.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "isa/codec.h"
#include "isa/instr.h"
#include "top_testing.h"

namespace tpu::tb {
namespace {

using isa::Error;

// One bad program: instructions as words (a bad one may not be encodable from isa::Instr),
// the error and the index it must report.
struct BadProgram {
  std::string name;
  std::vector<isa::Words> words;
  Error error;
  uint32_t index;
};

// `instr` with the highest of its opcode's reserved bits set.
isa::Words WithReservedBit(const isa::Instr& instr) {
  isa::Words w = isa::Encode(instr);
  const isa::Words& mask = isa::InfoOf(instr).reserved_mask;
  for (int word = 3; word >= 0; --word) {
    for (int bit = 31; bit >= 0; --bit) {
      if ((mask[word] >> bit) & 1u) {
        w[word] |= 1u << bit;
        return w;
      }
    }
  }
  throw std::logic_error("instruction without reserved bits");
}

// `instr` changed by `edit`, encoded.
template <typename T, typename Edit>
isa::Words Edited(T instr, Edit edit) {
  edit(instr);
  return isa::Encode(instr);
}

// A NOP, `bad`, HALT: the error is at index 1 (decode errors stop before `bad` runs).
BadProgram AtIndexOne(const std::string& name, const isa::Words& bad, Error error) {
  return {name, {isa::Encode(isa::Nop{}), bad, isa::Encode(isa::Halt{})}, error, 1};
}

// One program per check of the decoder, in the order tpu_ctrl_decode.sv makes them.
std::vector<BadProgram> DecodeErrors(const isa::DeviceLimits& l) {
  using namespace isa;
  const uint32_t n = static_cast<uint32_t>(l.n);
  const uint32_t ub_rows = static_cast<uint32_t>(l.ub_rows);
  const uint32_t acc_rows = static_cast<uint32_t>(l.acc_rows);
  const uint64_t host_end = 1ull << 48;
  std::vector<BadProgram> out;
  auto add = [&](const std::string& name, const Words& bad, Error e) {
    out.push_back(AtIndexOne(name, bad, e));
  };
  add("illegal opcode", Words{0x55, 0, 0, 0}, Error::kIllegalOpcode);
  add("NOP reserved", WithReservedBit(Nop{}), Error::kReservedNonzero);
  add("HALT reserved", WithReservedBit(Halt{}), Error::kReservedNonzero);
  add("SYNC reserved", WithReservedBit(Sync{}), Error::kReservedNonzero);

  // READ_HOST uses all 128 bits: no reserved bit to set.
  add("READ_HOST length 0", Encode(ReadHost{Target::kUb, 0x1000, 0, 0, 0, 0}),
      Error::kLengthZero);
  add("READ_HOST past the host space", Encode(ReadHost{Target::kUb, host_end - 1, 0, 2, 0, 0}),
      Error::kHostRange);
  add("READ_HOST past the UB", Encode(ReadHost{Target::kUb, 0x1000, ub_rows - 1, n + 1, 0, 0}),
      Error::kUbRange);
  add("READ_HOST past the DRAM",
      Encode(ReadHost{Target::kDram, 0x1000, static_cast<uint64_t>(l.dram_bytes) - 1, 2, 0, 0}),
      Error::kDramRange);
  add("READ_HOST past the parameters",
      Encode(ReadHost{Target::kParam, 0x1000, static_cast<uint64_t>(l.param_sets * 9 * n - 1),
                      2, 0, 0}),
      Error::kParamRange);
  add("READ_HOST past the LUT", Encode(ReadHost{Target::kLut, 0x1000, 255, 2, 0, 0}),
      Error::kLutRange);

  add("WRITE_HOST reserved", WithReservedBit(WriteHost{0, 0x1000, 64, 0, 0}),
      Error::kReservedNonzero);
  add("WRITE_HOST length 0", Encode(WriteHost{0, 0x1000, 0, 0, 0}), Error::kLengthZero);
  add("WRITE_HOST past the host space", Encode(WriteHost{0, host_end - 1, 2, 0, 0}),
      Error::kHostRange);
  add("WRITE_HOST past the UB", Encode(WriteHost{ub_rows - 1, 0x1000, n + 1, 0, 0}),
      Error::kUbRange);

  add("READ_WEIGHTS reserved", WithReservedBit(ReadWeights{0, 1, 0, 0}), Error::kReservedNonzero);
  add("READ_WEIGHTS no tiles", Encode(ReadWeights{0, 0, 0, 0}), Error::kLengthZero);
  add("READ_WEIGHTS past the DRAM",
      Encode(ReadWeights{static_cast<uint32_t>(l.dram_bytes / (n * n)) - 1, 2, 0, 0}),
      Error::kDramRange);

  Matmul mm;
  mm.rows = 2;
  mm.new_tile = true;
  add("MATMUL reserved", WithReservedBit(mm), Error::kReservedNonzero);
  add("MATMUL rows 0", Edited(mm, [](Matmul& m) { m.rows = 0; }), Error::kLengthZero);
  add("MATMUL window field without window", Edited(mm, [](Matmul& m) { m.stride_h = 1; }),
      Error::kConvConfig);
  add("MATMUL window without its fields", Edited(mm, [](Matmul& m) { m.window = true; }),
      Error::kConvConfig);
  add("MATMUL past the UB", Edited(mm, [&](Matmul& m) { m.ub = ub_rows - 1; }), Error::kUbRange);
  add("MATMUL window image past the UB", Edited(mm, [&](Matmul& m) {
        m.window = true;
        m.stride_h = m.stride_w = 1;
        m.image_h = m.image_w = 8;
        m.out_w = 8;
        m.ub = ub_rows - 63;  // the 8 x 8 image needs 64 rows
      }),
      Error::kUbRange);
  add("MATMUL past the accumulators", Edited(mm, [&](Matmul& m) { m.acc = acc_rows - 1; }),
      Error::kAccRange);

  Activate ac;
  ac.rows = 4;
  // ACTIVATE uses all 128 bits: no reserved bit to set.
  Words pool3 = Encode(ac);  // pool = 3, an unlisted encoding
  const InstrInfo& info = InfoOf(Opcode::kActivate);
  for (int i = 0; i < info.num_fields; ++i) {
    if (std::string(info.fields[i].name) == "pool") SetBits(&pool3, info.fields[i].lsb, 2, 3);
  }
  add("ACTIVATE pool 3", pool3, Error::kPoolConfig);
  add("ACTIVATE rows 0", Edited(ac, [](Activate& a) { a.rows = 0; }), Error::kLengthZero);
  add("ACTIVATE past the accumulators", Edited(ac, [&](Activate& a) { a.acc = acc_rows - 1; }),
      Error::kAccRange);
  add("ACTIVATE parameter set",
      Edited(ac, [&](Activate& a) { a.param_set = static_cast<uint32_t>(l.param_sets); }),
      Error::kParamRange);
  add("ACTIVATE clamp order", Edited(ac, [](Activate& a) {
        a.clamp_min = 5;
        a.clamp_max = 4;
      }),
      Error::kClampOrder);
  add("ACTIVATE pooling field without pooling", Edited(ac, [](Activate& a) { a.win_h = 2; }),
      Error::kPoolConfig);
  add("ACTIVATE past the UB", Edited(ac, [&](Activate& a) { a.ub = ub_rows - 1; }),
      Error::kUbRange);
  Activate pool = ac;  // 2x2 max pooling of one 2 x 2 image
  pool.pool = Pool::kMax;
  pool.win_h = pool.win_w = 2;
  pool.stride_h = pool.stride_w = 2;
  pool.image_h = pool.image_w = 2;
  add("ACTIVATE pooling field zero", Edited(pool, [](Activate& a) { a.stride_w = 0; }),
      Error::kPoolConfig);
  // VALID padding: the window is taller than the image.
  add("ACTIVATE pooling window larger than the image",
      Edited(pool, [](Activate& a) { a.win_h = 3; }), Error::kPoolConfig);
  add("ACTIVATE pooling rows not whole images", Edited(pool, [](Activate& a) { a.rows = 6; }),
      Error::kPoolConfig);
  // Two images of one output row each, at rows ub_rows - 1 and ub_rows.
  add("ACTIVATE pooled rows past the UB", Edited(pool, [&](Activate& a) {
        a.rows = 8;
        a.ub = ub_rows - 1;
      }),
      Error::kUbRange);
  return out;
}

// A program whose HALT can never complete: `instr` waits for token 7, which nothing signals;
// DEADLOCK at the HALT, with the instruction's unit waiting for its tokens.
BadProgram Deadlock(const std::string& unit, const isa::Instr& instr) {
  return {"DEADLOCK, " + unit + " waiting for a token",
          {isa::Encode(isa::Nop{}), isa::Encode(instr), isa::Encode(isa::Halt{})},
          Error::kDeadlock,
          2};
}

std::vector<BadProgram> RunTimeErrors() {
  using namespace isa;
  std::vector<BadProgram> out;
  out.push_back(Deadlock("the DMA unit", ReadHost{Target::kUb, 0x1000, 0, 64, kTokensT7, 0}));
  out.push_back(Deadlock("the weight unit", ReadWeights{0, 1, kTokensT7, 0}));
  Matmul m;
  m.rows = 2;
  m.new_tile = true;
  m.wait = kTokensT7;
  out.push_back(Deadlock("the matrix unit", m));
  Activate a;
  a.rows = 2;
  a.wait = kTokensT7;
  out.push_back(Deadlock("the activation unit", a));
  // The second MATMUL switches to a tile that no READ_WEIGHTS pushes: it stays in the middle
  // of issuing its rows (more than the matrix unit's side FIFO holds) when DEADLOCK aborts it.
  Matmul rows = m;
  rows.rows = 64;
  rows.wait = 0;
  out.push_back({"DEADLOCK, the matrix unit issuing rows for a missing tile",
                 {Encode(ReadWeights{0, 1, 0, 0}), Encode(rows), Encode(rows), Encode(Halt{})},
                 Error::kDeadlock,
                 3});
  Matmul no_tile;  // the first MATMUL of a run must load a tile
  no_tile.rows = 2;
  out.push_back({"NO_TILE",
                 {Encode(Nop{}), Encode(Nop{}), Encode(no_tile), Encode(Halt{})},
                 Error::kNoTile,
                 2});
  // Token 5's counter holds 255 (TOKEN_MAX); the 256th signal overflows it.
  BadProgram overflow{"TOKEN_OVERFLOW", {}, Error::kTokenOverflow, 255};
  overflow.words.assign(256, Encode(Sync{0, 0, kTokensT5}));
  overflow.words.push_back(Encode(Halt{}));
  out.push_back(overflow);
  return out;
}

void ExpectStopsWith(TopBench& b, const BadProgram& p, size_t msis_before) {
  SCOPED_TRACE(p.name);
  ASSERT_TRUE(b.WaitMsi(msis_before + 1, kBudget)) << "no MSI";
  EXPECT_EQ(b.ReadReg(regs::kIrqStatus), regs::kIrqStatusErrorMask);
  EXPECT_EQ(b.ReadReg(regs::kStatus) & (regs::kStatusErrorMask | regs::kStatusRunningMask),
            regs::kStatusErrorMask);
  EXPECT_EQ(b.ReadReg(regs::kErrorCode), static_cast<uint32_t>(p.error))
      << "want " << isa::ErrorName(p.error);
  EXPECT_EQ(b.ReadReg(regs::kErrorIndex), p.index);
}

void RunBadPrograms(TopBench& b, const std::vector<BadProgram>& programs, uint64_t seed) {
  size_t msis = 0;
  for (const BadProgram& p : programs) {
    b.Submit(p.words);
    ExpectStopsWith(b, p, msis++);
    b.SoftReset();
    b.WriteReg(regs::kIrqStatus, regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask);
  }
  std::mt19937_64 rng(Seed(seed));
  RunDense(b, RandomDense(rng, 21, 35, 18), msis);
  ExpectNoViolations(b);
}

TEST(TpuTopErrors, EveryDecodeCheck) {
  auto b = MakeBench(false, 43, "tpu_top_decode_errors");
  const std::vector<BadProgram> programs = DecodeErrors(b->config().limits);
  for (const BadProgram& p : programs) {
    ASSERT_EQ(isa::Check(p.words[1], b->config().limits), p.error)
        << p.name << ": the test's bad instruction raises another error in the reference";
  }
  RunBadPrograms(*b, programs, 47);
}

TEST(TpuTopErrors, RunTimeErrors) {
  auto b = MakeBench(false, 53, "tpu_top_runtime_errors");
  b->SetupRing(kRing + 0x40000, 512);  // the 257 slots of TOKEN_OVERFLOW
  RunBadPrograms(*b, RunTimeErrors(), 59);
}

}  // namespace
}  // namespace tpu::tb
