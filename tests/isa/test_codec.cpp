// Encoding and decoding: round trips for every opcode, the exact bit positions of a few
// hand-encoded instructions, and the decode stage's errors (illegal opcode, reserved bits,
// unlisted enum encodings), which must be reported, never thrown; isa::Program, a program held
// encoded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "isa/isa.h"
#include "random_instr.h"

namespace tpu::isa {
namespace {

bool SameInstr(const Instr& a, const Instr& b) {
  return OpcodeOf(a) == OpcodeOf(b) && ValuesOf(a) == ValuesOf(b);
}

TEST(Codec, RoundTripEveryOpcodeWithRandomFields) {
  std::mt19937_64 rng(TestSeed());
  for (const InstrInfo& info : kInstrs) {
    SCOPED_TRACE(info.name);
    for (int n = 0; n < 2000; ++n) {
      const Instr instr = RandomInstr(info, rng);
      const Words words = Encode(instr);
      EXPECT_EQ(words[0] & 0xFFu, static_cast<uint32_t>(info.opcode));
      for (int w = 0; w < kInstrWords; ++w) EXPECT_EQ(words[w] & info.reserved_mask[w], 0u);
      const Decoded decoded = Decode(words);
      ASSERT_EQ(decoded.error, Error::kOk) << Disassemble(instr);
      ASSERT_TRUE(SameInstr(decoded.instr, instr)) << Disassemble(instr);
      ASSERT_EQ(Encode(decoded.instr), words);
    }
  }
}

TEST(Codec, MatmulBitPositions) {
  Matmul m;
  m.ub = 0x31234;  // 18 bits (ISA version 3)
  m.acc = 0x567;
  m.rows = 0x19ab;  // 13 bits
  m.acc_mode = AccMode::kAccumulate;
  m.new_tile = true;
  m.wait = kTokensT1 | kTokensT7;
  m.signal = kTokensT0;
  // w0: opcode 0x30, wait [15:8] = 0x82, signal [23:16] = 0x01, acc_mode [24], new_tile [25].
  // w1: ub [17:0], acc [29:18]. w2: rows [12:0].
  EXPECT_EQ(Encode(m), (Words{0x03018230u, 0x159f1234u, 0x000019abu, 0u}));
}

TEST(Codec, ReadHostFieldsSpanWords) {
  ReadHost r;
  r.target = Target::kParam;  // [25:24] = 2
  r.dest = 0x1FFFFFFFF;       // [58:26], 33 bits: a DRAM byte address up to 8 GiB
  r.length = 0x1BCDEF;        // [79:59], 21 bits
  r.host = 0xFEDCBA987654;    // [127:80]
  const Words words = Encode(r);
  EXPECT_EQ(words[0], 0xFE000010u | (2u << 24));
  EXPECT_EQ(words[1], 0x7FFFFFFFu);
  EXPECT_EQ(words[2], 0x7654DE6Fu);
  EXPECT_EQ(words[3], 0xFEDCBA98u);
  EXPECT_EQ(GetBits(words, 26, 33), 0x1FFFFFFFFu);
  EXPECT_EQ(GetBits(words, 59, 21), 0x1BCDEFu);
  EXPECT_EQ(GetBits(words, 80, 48), 0xFEDCBA987654u);
}

TEST(Codec, ActivateSignedFieldsSignExtend) {
  Activate a;
  a.rows = 1;
  a.zero_point = -128;
  a.clamp_min = -1;
  a.clamp_max = 127;
  const Words words = Encode(a);
  EXPECT_EQ(GetBits(words, 56, 8), 0x80u);
  EXPECT_EQ(GetBits(words, 82, 8), 0xFFu);
  const Decoded decoded = Decode(words);
  ASSERT_EQ(decoded.error, Error::kOk);
  const auto& back = std::get<Activate>(decoded.instr);
  EXPECT_EQ(back.zero_point, -128);
  EXPECT_EQ(back.clamp_min, -1);
  EXPECT_EQ(back.clamp_max, 127);
}

TEST(Codec, EncodeRejectsValuesThatDoNotFitTheirBits) {
  Matmul m;
  m.ub = 300000;
  try {
    Encode(m);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "MATMUL: field 'ub' = 300000 does not fit in 18 bits (0..262143)");
  }
  Activate a;
  a.zero_point = 128;
  EXPECT_THROW(Encode(a), std::invalid_argument);
  a.zero_point = -129;
  EXPECT_THROW(Encode(a), std::invalid_argument);
  ReadHost r;
  r.host = uint64_t{1} << 48;
  EXPECT_THROW(Encode(r), std::invalid_argument);
}

// isa::Program holds a program encoded: reading it back gives the instructions added, in order,
// whatever their fields; its words are Encode's.
TEST(Program, GivesBackWhatWasAddedAndItsWords) {
  std::mt19937_64 rng(TestSeed());
  std::vector<Instr> instrs;
  for (int n = 0; n < 200; ++n) {
    for (const InstrInfo& info : kInstrs) instrs.push_back(RandomInstr(info, rng));
  }
  std::shuffle(instrs.begin(), instrs.end(), rng);
  Program program;
  for (const Instr& instr : instrs) program.Add(instr);
  ASSERT_EQ(program.size(), instrs.size());
  EXPECT_EQ(Program(instrs).words(), program.words());
  const std::vector<Instr> back = program.Instrs();
  ASSERT_EQ(back.size(), instrs.size());
  size_t i = 0;
  for (const Instr instr : program) {  // the iterator, as range-for uses it
    ASSERT_LT(i, instrs.size());
    SCOPED_TRACE(i);
    EXPECT_EQ(program.OpcodeAt(i), OpcodeOf(instrs[i]));
    EXPECT_EQ(program.words()[i], Encode(instrs[i]));
    EXPECT_TRUE(SameInstr(program[i], instrs[i])) << Disassemble(instrs[i]);
    EXPECT_TRUE(SameInstr(back[i], instrs[i]));
    EXPECT_TRUE(SameInstr(instr, instrs[i]));
    ++i;
  }
  EXPECT_EQ(i, instrs.size());
  EXPECT_TRUE(SameInstr(program.back(), instrs.back()));
}

TEST(Program, AppendAndPopBack) {
  Program a(std::vector<Instr>{Nop{}, Halt{}});
  Matmul m;
  m.rows = 7;
  Program b(std::vector<Instr>{m, Halt{}});
  a.PopBack();
  a.Append(b);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a.OpcodeAt(0), Opcode::kNop);
  EXPECT_EQ(std::get<Matmul>(a[1]).rows, 7u);
  EXPECT_EQ(a.OpcodeAt(2), Opcode::kHalt);
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(Program().empty());
}

TEST(Program, RejectsAnInstructionThatCannotBeEncodedNamingIt) {
  Matmul m;
  m.ub = 300000;
  Program program;
  program.Add(Nop{});
  EXPECT_THROW(program.Add(m), std::invalid_argument);
  EXPECT_EQ(program.size(), 1u) << "a rejected instruction is not added";
  try {
    Program(std::vector<Instr>{Nop{}, Nop{}, m, Halt{}});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "instruction 2 cannot be encoded: MATMUL: field 'ub' = 300000 does not fit in "
                 "18 bits (0..262143)");
  }
}

TEST(Codec, EveryUnknownOpcodeIsIllegalWhateverTheOtherBits) {
  std::mt19937_64 rng(TestSeed());
  std::set<int> known;
  for (const InstrInfo& info : kInstrs) known.insert(static_cast<int>(info.opcode));
  EXPECT_EQ(known.count(0), 0u) << "opcode 0 must stay illegal (zeroed memory)";
  for (int op = 0; op < 256; ++op) {
    if (known.count(op)) continue;
    Words words{(static_cast<uint32_t>(rng()) & ~0xFFu) | static_cast<uint32_t>(op),
                static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()),
                static_cast<uint32_t>(rng())};
    EXPECT_EQ(Decode(words).error, Error::kIllegalOpcode) << op;
    EXPECT_EQ(Check(words, DeviceLimits{}), Error::kIllegalOpcode) << op;
    words[1] = words[2] = words[3] = 0;
    words[0] = static_cast<uint32_t>(op);
    EXPECT_EQ(Decode(words).error, Error::kIllegalOpcode) << op;
  }
}

TEST(Codec, EveryReservedBitOfEveryInstructionIsRejected) {
  std::mt19937_64 rng(TestSeed());
  for (const InstrInfo& info : kInstrs) {
    SCOPED_TRACE(info.name);
    const Words legal = Encode(RandomInstr(info, rng));
    int reserved_bits = 0;
    for (int bit = 0; bit < kInstrBits; ++bit) {
      if (((info.reserved_mask[bit / 32] >> (bit % 32)) & 1u) == 0) continue;
      ++reserved_bits;
      Words words = legal;
      words[bit / 32] |= 1u << (bit % 32);
      EXPECT_EQ(Decode(words).error, Error::kReservedNonzero) << "bit " << bit;
      EXPECT_EQ(Check(words, DeviceLimits{}), Error::kReservedNonzero) << "bit " << bit;
    }
    // Bits outside the mask are the opcode and the fields: exactly the 128 bits.
    int field_bits = kOpcodeWidth;
    for (int i = 0; i < info.num_fields; ++i) field_bits += info.fields[i].width;
    EXPECT_EQ(reserved_bits + field_bits, kInstrBits);
  }
}

TEST(Codec, MatmulBitsBesideTheWindowFieldsAreReserved) {
  Matmul m;
  m.rows = 1;
  m.new_tile = true;
  for (const int bit : {30, 31, 127}) {
    Words words = Encode(m);
    SetBits(&words, bit, 1, 1);
    EXPECT_EQ(Decode(words).error, Error::kReservedNonzero) << "bit " << bit;
  }
}

TEST(Codec, MatmulWindowFieldsWithoutWindowAreConvConfig) {
  Matmul m;
  m.rows = 4;
  m.new_tile = true;
  EXPECT_EQ(Check(Encode(m), DeviceLimits{}), Error::kOk);
  m.x0 = -1;  // a window field set while window = 0
  EXPECT_EQ(Check(Encode(m), DeviceLimits{}), Error::kConvConfig);
  m.window = true;  // now a window with a zero image
  EXPECT_EQ(Check(Encode(m), DeviceLimits{}), Error::kConvConfig);
  m.image_h = 3;
  m.image_w = 5;
  m.out_w = 5;
  m.stride_h = 1;
  m.stride_w = 1;
  EXPECT_EQ(Check(Encode(m), DeviceLimits{}), Error::kOk);
  m.stride_w = 0;
  EXPECT_EQ(Check(Encode(m), DeviceLimits{}), Error::kConvConfig);
}

TEST(Codec, MatmulWindowRangeIsTheWholeImage) {
  DeviceLimits limits;
  limits.ub_rows = 100;
  Matmul m;
  m.new_tile = true;
  m.window = true;
  m.rows = 200;  // more rows than the UB: a window reads its image, not `rows` rows
  m.acc = 0;
  m.image_h = 10;
  m.image_w = 10;
  m.out_w = 10;
  m.stride_h = 1;
  m.stride_w = 1;
  EXPECT_EQ(Check(Encode(m), limits), Error::kOk);
  m.ub = 1;  // the image's last row is row 100
  EXPECT_EQ(Check(Encode(m), limits), Error::kUbRange);
}

TEST(Codec, ReservedBitsComeBeforeFieldChecks) {
  Matmul m;  // rows = 0: LENGTH_ZERO, but a reserved bit is checked first
  Words words = Encode(m);
  EXPECT_EQ(Check(words, DeviceLimits{}), Error::kLengthZero);
  words[3] |= 0x80000000u;
  EXPECT_EQ(Check(words, DeviceLimits{}), Error::kReservedNonzero);
}

TEST(Codec, UnlistedPoolEncodingIsPoolConfig) {
  Activate a;
  a.rows = 1;
  Words words = Encode(a);
  SetBits(&words, 98, 2, 3);
  const Decoded decoded = Decode(words);
  EXPECT_EQ(decoded.error, Error::kPoolConfig);
  EXPECT_EQ(decoded.field, 8);  // "pool"
  EXPECT_STREQ(InfoOf(Opcode::kActivate).fields[decoded.field].name, "pool");
  EXPECT_EQ(static_cast<int>(std::get<Activate>(decoded.instr).pool), 3);
  EXPECT_EQ(Check(words, DeviceLimits{}), Error::kPoolConfig);
  // The same value set through the struct encodes (it fits 2 bits) and validates as the
  // hardware would.
  a.pool = static_cast<Pool>(3);
  EXPECT_EQ(Encode(a), words);
  EXPECT_EQ(Validate(a, DeviceLimits{}), Error::kPoolConfig);
}

TEST(Codec, DecodeNeverThrowsOnRandomWords) {
  std::mt19937_64 rng(TestSeed());
  int decoded_ok = 0;
  for (int n = 0; n < 20000; ++n) {
    Words words{static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()),
                static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng())};
    if (n % 2 == 0) {  // a known opcode half of the time
      words[0] =
          (words[0] & ~0xFFu) | static_cast<uint32_t>(kInstrs[n / 2 % std::size(kInstrs)].opcode);
    }
    Decoded decoded;
    ASSERT_NO_THROW(decoded = Decode(words));
    ASSERT_NO_THROW(Check(words, DeviceLimits{}));
    if (decoded.error == Error::kOk) {
      ++decoded_ok;
      EXPECT_EQ(Encode(decoded.instr), words);
    }
  }
  EXPECT_GT(decoded_ok, 0);
}

// A slot's bytes are its words in order, each little-endian (docs/isa.md), on any host.
TEST(Codec, SlotBytesAreTheWordsLittleEndianAndReadBack) {
  const Words slots[2] = {{0x03020100u, 0x07060504u, 0x0B0A0908u, 0x0F0E0D0Cu},
                          {0x13121110u, 0x17161514u, 0x1B1A1918u, 0x1F1E1D1Cu}};
  std::vector<uint8_t> scratch;
  const uint8_t* bytes = SlotBytes(slots, 2, &scratch);
  for (size_t b = 0; b < 2 * kSlotBytes; ++b) EXPECT_EQ(bytes[b], b) << "byte " << b;

  Words read[2];
  std::memcpy(read, bytes, sizeof(read));  // what a device reads from its ring
  SlotBytesToWords(read, 2);
  EXPECT_EQ(read[0], slots[0]);
  EXPECT_EQ(read[1], slots[1]);
}

}  // namespace
}  // namespace tpu::isa
