// The hardware's field checks (docs/isa.md): every rule of every instruction at its boundary,
// the legal value and the first illegal one, the error code and the field it names; the order
// of the checks; device limits.
#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "isa/isa.h"
#include "random_instr.h"

namespace tpu::isa {
namespace {

// A small device: N = 8 (TILE_BYTES 64, PARAM_SET_BYTES 72), 512 UB rows, 256 accumulator rows,
// 1 MiB of weight DRAM, 4 parameter sets (PARAM_BYTES 288).
DeviceLimits Small() {
  DeviceLimits l;
  l.n = 8;
  l.ub_rows = 512;
  l.acc_rows = 256;
  l.dram_bytes = 1 << 20;
  l.param_sets = 4;
  return l;
}

// One instruction written in assembly (not checked by the assembler), decoded as the hardware
// decodes it.
Instr Parse(const std::string& text) {
  AssembleOptions options;
  options.validate = false;
  const std::vector<Words> words = Assemble(text, options);
  EXPECT_EQ(words.size(), 1u);
  const Decoded decoded = Decode(words.at(0));
  EXPECT_EQ(decoded.error, Error::kOk) << text;
  return decoded.instr;
}

struct Boundary {
  const char* legal;    // passes every check
  const char* illegal;  // the same instruction one step over the boundary
  Error error;
  const char* field;   // the field the failing check names
  bool small = false;  // on Small() instead of the default device
};

// Default device: N = 16 (TILE_BYTES 256, PARAM_SET_BYTES 144), UB_ROWS 4096, ACC_ROWS 1024,
// DRAM_BYTES 64 MiB = 67108864 (262144 tiles), PARAM_SETS 64 (PARAM_BYTES 9216),
// HOST_SPACE 2^48.
const Boundary kBoundaries[] = {
    // READ_HOST
    {"READ_HOST target=ub host=0 dest=0 length=1", "READ_HOST target=ub host=0 dest=0 length=0",
     Error::kLengthZero, "length"},
    {"READ_HOST target=dram host=0xffffffffff00 dest=0 length=256",
     "READ_HOST target=dram host=0xffffffffff01 dest=0 length=256", Error::kHostRange, "host"},
    {"READ_HOST target=ub host=0 dest=4095 length=16",
     "READ_HOST target=ub host=0 dest=4095 length=17", Error::kUbRange, "dest"},
    {"READ_HOST target=ub host=0 dest=0 length=65536",
     "READ_HOST target=ub host=0 dest=0 length=65537", Error::kUbRange, "dest"},
    {"READ_HOST target=ub host=0 dest=4095 length=1",
     "READ_HOST target=ub host=0 dest=4096 length=1", Error::kUbRange, "dest"},
    {"READ_HOST target=ub host=0 dest=511 length=8", "READ_HOST target=ub host=0 dest=511 length=9",
     Error::kUbRange, "dest", true},
    {"READ_HOST target=dram host=0 dest=67108764 length=100",
     "READ_HOST target=dram host=0 dest=67108764 length=101", Error::kDramRange, "dest"},
    {"READ_HOST target=dram host=0 dest=1048575 length=1",
     "READ_HOST target=dram host=0 dest=1048576 length=1", Error::kDramRange, "dest", true},
    {"READ_HOST target=param host=0 dest=9215 length=1",
     "READ_HOST target=param host=0 dest=9215 length=2", Error::kParamRange, "dest"},
    {"READ_HOST target=param host=0 dest=0 length=288",
     "READ_HOST target=param host=0 dest=0 length=289", Error::kParamRange, "dest", true},
    {"READ_HOST target=lut host=0 dest=0 length=256",
     "READ_HOST target=lut host=0 dest=1 length=256", Error::kLutRange, "dest"},
    {"READ_HOST target=lut host=0 dest=255 length=1",
     "READ_HOST target=lut host=0 dest=256 length=1", Error::kLutRange, "dest"},
    // WRITE_HOST
    {"WRITE_HOST ub=0 host=0 length=1", "WRITE_HOST ub=0 host=0 length=0", Error::kLengthZero,
     "length"},
    {"WRITE_HOST ub=0 host=0xfffffffffc00 length=1024",
     "WRITE_HOST ub=0 host=0xfffffffffc01 length=1024", Error::kHostRange, "host"},
    {"WRITE_HOST ub=4095 host=0 length=16", "WRITE_HOST ub=4095 host=0 length=17", Error::kUbRange,
     "ub"},
    {"WRITE_HOST ub=4064 host=0 length=512", "WRITE_HOST ub=4065 host=0 length=512",
     Error::kUbRange, "ub"},
    {"WRITE_HOST ub=511 host=0 length=8", "WRITE_HOST ub=512 host=0 length=8", Error::kUbRange,
     "ub", true},
    // READ_WEIGHTS
    {"READ_WEIGHTS dram_tile=0 tiles=1", "READ_WEIGHTS dram_tile=0 tiles=0", Error::kLengthZero,
     "tiles"},
    {"READ_WEIGHTS dram_tile=262143 tiles=1", "READ_WEIGHTS dram_tile=262144 tiles=1",
     Error::kDramRange, "dram_tile"},
    {"READ_WEIGHTS dram_tile=262140 tiles=4", "READ_WEIGHTS dram_tile=262140 tiles=5",
     Error::kDramRange, "dram_tile"},
    {"READ_WEIGHTS dram_tile=0 tiles=4", "READ_WEIGHTS dram_tile=0xffffffff tiles=65535",
     Error::kDramRange, "dram_tile"},
    {"READ_WEIGHTS dram_tile=16383 tiles=1", "READ_WEIGHTS dram_tile=16384 tiles=1",
     Error::kDramRange, "dram_tile", true},
    // MATMUL
    {"MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=0",
     "MATMUL ub=0 acc=0 rows=0 acc_mode=overwrite new_tile=0", Error::kLengthZero, "rows"},
    {"MATMUL ub=4032 acc=0 rows=64 acc_mode=accumulate new_tile=1",
     "MATMUL ub=4033 acc=0 rows=64 acc_mode=accumulate new_tile=1", Error::kUbRange, "ub"},
    // MATMUL window fields: 0 without window, image / out_w / strides >= 1 with it; the
    // window reads its whole image (ub + image_h * image_w <= UB_ROWS), whatever `rows` is.
    {"MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0",
     "MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0 stride_h=1", Error::kConvConfig, "stride_h"},
    {"MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0",
     "MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0 stride_w=1", Error::kConvConfig, "stride_w"},
    {"MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0",
     "MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0 image_w=1", Error::kConvConfig, "image_w"},
    {"MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0",
     "MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0 image_h=1", Error::kConvConfig, "image_h"},
    {"MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0",
     "MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0 out_w=1", Error::kConvConfig, "out_w"},
    {"MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0",
     "MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0 pad_value=-1", Error::kConvConfig, "pad_value"},
    {"MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0",
     "MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0 y0=-1", Error::kConvConfig, "y0"},
    {"MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0",
     "MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 window=0 x0=1", Error::kConvConfig, "x0"},
    {"MATMUL ub=0 acc=0 rows=9 acc_mode=overwrite new_tile=1 window=1 stride_h=1 stride_w=1 image_w=3 image_h=3 out_w=3",
     "MATMUL ub=0 acc=0 rows=9 acc_mode=overwrite new_tile=1 window=1 stride_h=0 stride_w=1 image_w=3 image_h=3 out_w=3", Error::kConvConfig, "stride_h"},
    {"MATMUL ub=0 acc=0 rows=9 acc_mode=overwrite new_tile=1 window=1 stride_h=1 stride_w=1 image_w=3 image_h=3 out_w=3",
     "MATMUL ub=0 acc=0 rows=9 acc_mode=overwrite new_tile=1 window=1 stride_h=1 stride_w=0 image_w=3 image_h=3 out_w=3", Error::kConvConfig, "stride_w"},
    {"MATMUL ub=0 acc=0 rows=9 acc_mode=overwrite new_tile=1 window=1 stride_h=1 stride_w=1 image_w=3 image_h=3 out_w=3",
     "MATMUL ub=0 acc=0 rows=9 acc_mode=overwrite new_tile=1 window=1 stride_h=1 stride_w=1 image_w=0 image_h=3 out_w=3", Error::kConvConfig, "image_w"},
    {"MATMUL ub=0 acc=0 rows=9 acc_mode=overwrite new_tile=1 window=1 stride_h=1 stride_w=1 image_w=3 image_h=3 out_w=3",
     "MATMUL ub=0 acc=0 rows=9 acc_mode=overwrite new_tile=1 window=1 stride_h=1 stride_w=1 image_w=3 image_h=0 out_w=3", Error::kConvConfig, "image_h"},
    {"MATMUL ub=0 acc=0 rows=9 acc_mode=overwrite new_tile=1 window=1 stride_h=1 stride_w=1 image_w=3 image_h=3 out_w=3",
     "MATMUL ub=0 acc=0 rows=9 acc_mode=overwrite new_tile=1 window=1 stride_h=1 stride_w=1 image_w=3 image_h=3 out_w=0", Error::kConvConfig, "out_w"},
    {"MATMUL ub=4087 acc=0 rows=9 acc_mode=overwrite new_tile=1 window=1 stride_h=1 stride_w=1 image_w=3 image_h=3 out_w=3",
     "MATMUL ub=4088 acc=0 rows=9 acc_mode=overwrite new_tile=1 window=1 stride_h=1 stride_w=1 image_w=3 image_h=3 out_w=3", Error::kUbRange, "ub"},
    {"MATMUL ub=0 acc=960 rows=64 acc_mode=overwrite new_tile=1",
     "MATMUL ub=0 acc=961 rows=64 acc_mode=overwrite new_tile=1", Error::kAccRange, "acc"},
    {"MATMUL ub=0 acc=0 rows=1024 acc_mode=overwrite new_tile=1",
     "MATMUL ub=0 acc=0 rows=1025 acc_mode=overwrite new_tile=1", Error::kAccRange, "acc"},
    {"MATMUL ub=448 acc=0 rows=64 acc_mode=overwrite new_tile=1",
     "MATMUL ub=449 acc=0 rows=64 acc_mode=overwrite new_tile=1", Error::kUbRange, "ub", true},
    {"MATMUL ub=0 acc=192 rows=64 acc_mode=overwrite new_tile=1",
     "MATMUL ub=0 acc=193 rows=64 acc_mode=overwrite new_tile=1", Error::kAccRange, "acc", true},
    // ACTIVATE without pooling
    {"ACTIVATE acc=0 ub=0 rows=1 param_set=0", "ACTIVATE acc=0 ub=0 rows=0 param_set=0",
     Error::kLengthZero, "rows"},
    {"ACTIVATE acc=960 ub=0 rows=64 param_set=0", "ACTIVATE acc=961 ub=0 rows=64 param_set=0",
     Error::kAccRange, "acc"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=3", "ACTIVATE acc=0 ub=0 rows=64 param_set=4",
     Error::kParamRange, "param_set", true},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=63 clamp_min=5 clamp_max=5",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=63 clamp_min=6 clamp_max=5", Error::kClampOrder,
     "clamp_min"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0 clamp_max=-128",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=0 clamp_min=-127 clamp_max=-128", Error::kClampOrder,
     "clamp_min"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0", "ACTIVATE acc=0 ub=0 rows=64 param_set=0 win_h=1",
     Error::kPoolConfig, "win_h"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0", "ACTIVATE acc=0 ub=0 rows=64 param_set=0 win_w=1",
     Error::kPoolConfig, "win_w"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=0 stride_h=1", Error::kPoolConfig, "stride_h"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=0 stride_w=1", Error::kPoolConfig, "stride_w"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=0 padding=same", Error::kPoolConfig, "padding"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0", "ACTIVATE acc=0 ub=0 rows=64 param_set=0 image_h=1",
     Error::kPoolConfig, "image_h"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0", "ACTIVATE acc=0 ub=0 rows=64 param_set=0 image_w=1",
     Error::kPoolConfig, "image_w"},
    {"ACTIVATE acc=0 ub=4032 rows=64 param_set=0", "ACTIVATE acc=0 ub=4033 rows=64 param_set=0",
     Error::kUbRange, "ub"},
    // ACTIVATE with pooling: 2x2 windows, stride 2, on 8x8 images (16 output rows per image)
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=1 win_w=2 stride_h=2 stride_w=2 "
     "image_h=8 image_w=8",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=0 win_w=2 stride_h=2 stride_w=2 "
     "image_h=8 image_w=8",
     Error::kPoolConfig, "win_h"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=2 win_w=1 stride_h=2 stride_w=2 "
     "image_h=8 image_w=8",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=2 win_w=0 stride_h=2 stride_w=2 "
     "image_h=8 image_w=8",
     Error::kPoolConfig, "win_w"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=avg win_h=2 win_w=2 stride_h=1 stride_w=2 "
     "image_h=8 image_w=8",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=avg win_h=2 win_w=2 stride_h=0 stride_w=2 "
     "image_h=8 image_w=8",
     Error::kPoolConfig, "stride_h"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=avg win_h=2 win_w=2 stride_h=2 stride_w=1 "
     "image_h=8 image_w=8",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=avg win_h=2 win_w=2 stride_h=2 stride_w=0 "
     "image_h=8 image_w=8",
     Error::kPoolConfig, "stride_w"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=1 win_w=2 stride_h=2 stride_w=2 "
     "image_h=1 image_w=64",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=1 win_w=2 stride_h=2 stride_w=2 "
     "image_h=0 image_w=64",
     Error::kPoolConfig, "image_h"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=2 win_w=1 stride_h=2 stride_w=2 "
     "image_h=64 image_w=1",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=2 win_w=1 stride_h=2 stride_w=2 "
     "image_h=64 image_w=0",
     Error::kPoolConfig, "image_w"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=8 win_w=2 stride_h=2 stride_w=2 "
     "image_h=8 image_w=8",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=9 win_w=2 stride_h=2 stride_w=2 "
     "image_h=8 image_w=8",
     Error::kPoolConfig, "win_h"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=2 win_w=8 stride_h=2 stride_w=2 "
     "image_h=8 image_w=8",
     "ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=2 win_w=9 stride_h=2 stride_w=2 "
     "image_h=8 image_w=8",
     Error::kPoolConfig, "win_w"},
    {"ACTIVATE acc=0 ub=0 rows=64 param_set=0 pool=max win_h=9 win_w=9 stride_h=2 stride_w=2 "
     "padding=same image_h=8 image_w=8",
     "ACTIVATE acc=0 ub=0 rows=65 param_set=0 pool=max win_h=9 win_w=9 stride_h=2 stride_w=2 "
     "padding=same image_h=8 image_w=8",
     Error::kPoolConfig, "rows"},
    {"ACTIVATE acc=0 ub=0 rows=128 param_set=0 pool=max win_h=2 win_w=2 stride_h=2 stride_w=2 "
     "image_h=8 image_w=8",
     "ACTIVATE acc=0 ub=0 rows=127 param_set=0 pool=max win_h=2 win_w=2 stride_h=2 stride_w=2 "
     "image_h=8 image_w=8",
     Error::kPoolConfig, "rows"},
    {"ACTIVATE acc=0 ub=4080 rows=64 param_set=0 pool=max win_h=2 win_w=2 stride_h=2 "
     "stride_w=2 image_h=8 image_w=8",
     "ACTIVATE acc=0 ub=4081 rows=64 param_set=0 pool=max win_h=2 win_w=2 stride_h=2 "
     "stride_w=2 image_h=8 image_w=8",
     Error::kUbRange, "ub"},
    {"ACTIVATE acc=0 ub=4064 rows=128 param_set=0 pool=max win_h=2 win_w=2 stride_h=2 "
     "stride_w=2 image_h=8 image_w=8",
     "ACTIVATE acc=0 ub=4065 rows=128 param_set=0 pool=max win_h=2 win_w=2 stride_h=2 "
     "stride_w=2 image_h=8 image_w=8",
     Error::kUbRange, "ub"},
    // SAME 3x3 stride 2 on 7x7: ceil(7 / 2) = 4 -> 16 rows; VALID: (7 - 3) / 2 + 1 = 3 -> 9.
    {"ACTIVATE acc=0 ub=4080 rows=49 param_set=0 pool=avg win_h=3 win_w=3 stride_h=2 "
     "stride_w=2 padding=same image_h=7 image_w=7",
     "ACTIVATE acc=0 ub=4081 rows=49 param_set=0 pool=avg win_h=3 win_w=3 stride_h=2 "
     "stride_w=2 padding=same image_h=7 image_w=7",
     Error::kUbRange, "ub"},
    {"ACTIVATE acc=0 ub=4087 rows=49 param_set=0 pool=avg win_h=3 win_w=3 stride_h=2 "
     "stride_w=2 image_h=7 image_w=7",
     "ACTIVATE acc=0 ub=4088 rows=49 param_set=0 pool=avg win_h=3 win_w=3 stride_h=2 "
     "stride_w=2 image_h=7 image_w=7",
     Error::kUbRange, "ub"},
    // Non-square: 2x3 window, strides 1 and 3, VALID on 4 x 9: 3 x 3 = 9 rows per image.
    {"ACTIVATE acc=0 ub=4069 rows=108 param_set=0 pool=max win_h=2 win_w=3 stride_h=1 "
     "stride_w=3 image_h=4 image_w=9",
     "ACTIVATE acc=0 ub=4070 rows=108 param_set=0 pool=max win_h=2 win_w=3 stride_h=1 "
     "stride_w=3 image_h=4 image_w=9",
     Error::kUbRange, "ub"},
};

// The legal instruction passes, the illegal one fails with the expected error naming the
// expected field, in the explaining validator, the decoder's Check and Validate alike. Returns
// (opcode, rule index) of the failed rule, rule -1 if no rule failed.
std::pair<int, int> CheckBoundary(const Boundary& b, const DeviceLimits& limits) {
  const Instr legal = Parse(b.legal);
  const Violation ok = Explain(legal, limits);
  EXPECT_EQ(ok.error, Error::kOk) << b.legal << ": " << ok.message;
  EXPECT_EQ(Check(Encode(legal), limits), Error::kOk);

  const Instr illegal = Parse(b.illegal);
  const Violation v = Explain(illegal, limits);
  EXPECT_EQ(ErrorName(v.error), ErrorName(b.error)) << v.message;
  EXPECT_GE(v.field, 0);
  if (v.field >= 0) {
    EXPECT_STREQ(InfoOf(illegal).fields[v.field].name, b.field) << v.message;
  }
  EXPECT_EQ(Check(Encode(illegal), limits), b.error);
  EXPECT_EQ(Validate(illegal, limits), b.error);
  return {static_cast<int>(OpcodeOf(illegal)), v.rule};
}

TEST(Validate, EveryRuleAtItsBoundary) {
  std::set<std::pair<int, int>> rules_hit;  // (opcode, rule index)
  for (const Boundary& b : kBoundaries) {
    SCOPED_TRACE(b.illegal);
    const std::pair<int, int> hit = CheckBoundary(b, b.small ? Small() : DeviceLimits{});
    if (hit.second >= 0) rules_hit.insert(hit);
  }
  // Every rule of the description is exercised at a boundary.
  for (const InstrInfo& info : kInstrs) {
    for (int r = 0; r < info.num_rules; ++r) {
      EXPECT_TRUE(rules_hit.count({static_cast<int>(info.opcode), r}))
          << info.name << " rule " << r << " (" << info.rules[r].check << ") has no boundary case";
    }
  }
}

// TPU v1 (isa/devices.json `v1`): N = 256 (TILE_BYTES 65536), 98,304 UB rows, 4096 accumulator
// rows, 8 GiB of weight DRAM (131072 tiles), 64 parameter sets. Its sizes need the widths of
// ISA version 2 and later: UB rows above 65535 (17 bits; 18 since version 3), DRAM bytes above
// 4 GiB (33 bits), MATMUL over all 4096 accumulator rows (13 bits).
DeviceLimits V1() { return {256, 98304, 4096, int64_t{8} << 30, 64}; }

const Boundary kV1Boundaries[] = {
    {"READ_HOST target=ub host=0 dest=98303 length=256",
     "READ_HOST target=ub host=0 dest=98303 length=257", Error::kUbRange, "dest"},
    {"READ_HOST target=ub host=0 dest=98303 length=1",
     "READ_HOST target=ub host=0 dest=98304 length=1", Error::kUbRange, "dest"},
    {"READ_HOST target=dram host=0 dest=0x100000000 length=65536",
     "READ_HOST target=dram host=0 dest=0x1ffff0001 length=65536", Error::kDramRange, "dest"},
    {"READ_HOST target=dram host=0 dest=0x1ffffffff length=1",
     "READ_HOST target=dram host=0 dest=0x1ffffffff length=2", Error::kDramRange, "dest"},
    {"READ_HOST target=param host=0 dest=147455 length=1",
     "READ_HOST target=param host=0 dest=147456 length=1", Error::kParamRange, "dest"},
    {"WRITE_HOST ub=98303 host=0 length=256", "WRITE_HOST ub=98304 host=0 length=256",
     Error::kUbRange, "ub"},
    {"READ_WEIGHTS dram_tile=131068 tiles=4", "READ_WEIGHTS dram_tile=131069 tiles=4",
     Error::kDramRange, "dram_tile"},
    {"MATMUL ub=98303 acc=4095 rows=1 acc_mode=overwrite new_tile=1",
     "MATMUL ub=98304 acc=4095 rows=1 acc_mode=overwrite new_tile=1", Error::kUbRange, "ub"},
    {"MATMUL ub=0 acc=0 rows=4096 acc_mode=overwrite new_tile=1",
     "MATMUL ub=0 acc=1 rows=4096 acc_mode=overwrite new_tile=1", Error::kAccRange, "acc"},
    {"ACTIVATE acc=1 ub=94209 rows=4095 param_set=63",
     "ACTIVATE acc=1 ub=94210 rows=4095 param_set=63", Error::kUbRange, "ub"},
    {"ACTIVATE acc=1 ub=0 rows=4095 param_set=0", "ACTIVATE acc=2 ub=0 rows=4095 param_set=0",
     Error::kAccRange, "acc"},
};

TEST(Validate, V1SizesAtTheirBoundaries) {
  for (const Boundary& b : kV1Boundaries) {
    SCOPED_TRACE(b.illegal);
    CheckBoundary(b, V1());
  }
}

TEST(Validate, V1LimitsAreInsideTheIsaRanges) {
  const DeviceLimits v1 = V1();
  for (int i = 0; i < static_cast<int>(std::size(kLimits)); ++i) {
    EXPECT_GE(LimitValue(i, v1), kLimits[i].min) << kLimits[i].name;
    EXPECT_LE(LimitValue(i, v1), kLimits[i].max) << kLimits[i].name;
    EXPECT_TRUE(LimitCheckPasses(i, v1)) << kLimits[i].name;
  }
}

TEST(Validate, ChecksRunInTheDocumentedOrder) {
  const DeviceLimits limits;
  // MATMUL: rows before ub before acc.
  EXPECT_EQ(Validate(Parse("MATMUL ub=5000 acc=2000 rows=0 acc_mode=overwrite new_tile=0"), limits),
            Error::kLengthZero);
  EXPECT_EQ(Validate(Parse("MATMUL ub=5000 acc=2000 rows=1 acc_mode=overwrite new_tile=0"), limits),
            Error::kUbRange);
  // READ_HOST: length, then host, then the destination.
  EXPECT_EQ(Validate(Parse("READ_HOST target=lut host=0xffffffffffff dest=300 length=2"), limits),
            Error::kHostRange);
  // ACTIVATE: an unlisted pool encoding is reported before any rule.
  Activate a;
  a.pool = static_cast<Pool>(3);
  a.clamp_min = 10;
  a.clamp_max = 0;
  EXPECT_EQ(Validate(a, limits), Error::kPoolConfig);
  a.pool = Pool::kNone;
  EXPECT_EQ(Validate(a, limits), Error::kLengthZero);  // rows = 0 before the clamp
  a.rows = 1;
  EXPECT_EQ(Validate(a, limits), Error::kClampOrder);
}

TEST(Validate, ControlInstructionsHaveNoFieldErrors) {
  EXPECT_EQ(Validate(Nop{}, DeviceLimits{}), Error::kOk);
  EXPECT_EQ(Validate(Halt{}, DeviceLimits{}), Error::kOk);
  EXPECT_EQ(Validate(Sync{kUnitsAll, kTokensAll, kTokensAll}, DeviceLimits{}), Error::kOk);
}

TEST(Validate, MessagesNameTheFieldTheRuleAndTheValues) {
  const Violation v =
      Explain(Parse("MATMUL ub=4090 acc=0 rows=64 acc_mode=overwrite new_tile=0"), DeviceLimits{});
  EXPECT_EQ(v.message,
            "field 'ub' = 4090 out of range: need ub + rows <= UB_ROWS when window == 0 (ub = "
            "4090, rows = 64, UB_ROWS = 4096, window = 0) -> UB_RANGE");
  const Violation w =
      Explain(Parse("READ_HOST target=ub host=0x1000 dest=504 length=100"), Small());
  EXPECT_EQ(w.message,
            "field 'dest' = 504 out of range: need dest + ceil_div(length, N) <= "
            "UB_ROWS when target == 'ub' (dest = 504, length = 100, N = 8, "
            "UB_ROWS = 512, target = ub) -> UB_RANGE");
  const Violation p = Explain(Parse("ACTIVATE acc=0 ub=4090 rows=64 param_set=0 pool=max win_h=2 "
                                    "win_w=2 stride_h=2 stride_w=2 image_h=8 image_w=8"),
                              DeviceLimits{});
  EXPECT_EQ(p.message,
            "field 'ub' = 4090 out of range: need ub + out_rows <= UB_ROWS (ub = 4090, "
            "out_rows = 16, UB_ROWS = 4096) -> UB_RANGE");
  Activate bad_pool;
  bad_pool.pool = static_cast<Pool>(3);
  EXPECT_EQ(Explain(bad_pool, DeviceLimits{}).message,
            "field 'pool' = 3 is not a legal encoding (none (0), max (1), avg (2)) -> POOL_CONFIG");
}

TEST(Validate, ThrowsForValuesTheEncodingCannotHold) {
  Matmul m;
  m.rows = 1;
  m.ub = 262144;  // 2^18: one past the 18-bit field
  EXPECT_THROW(Validate(m, DeviceLimits{}), std::invalid_argument);
}

TEST(Validate, AgreesWithCheckOnRandomInstructions) {
  std::mt19937_64 rng(TestSeed());
  for (const DeviceLimits& limits : {DeviceLimits{}, Small(), V1()}) {
    for (const InstrInfo& info : kInstrs) {
      int legal = 0;
      for (int n = 0; n < 5000; ++n) {
        const Instr instr = RandomInstr(info, rng);
        const Error e = Validate(instr, limits);
        ASSERT_EQ(Check(Encode(instr), limits), e) << Disassemble(instr);
        if (e == Error::kOk) ++legal;
      }
      // About 40 are legal for ACTIVATE on Small() (pooling and 4 parameter sets), far more
      // elsewhere; fewer than 10 means the generator no longer reaches the legal space.
      EXPECT_GE(legal, 10) << info.name << ": too few legal random instructions to be useful";
    }
  }
}

TEST(CheckLimits, AcceptsTheDefaultsAndRejectsWhatTheEncodingCannotAddress) {
  EXPECT_NO_THROW(CheckLimits(DeviceLimits{}));
  EXPECT_NO_THROW(CheckLimits(Small()));
  auto expect_message = [](DeviceLimits limits, const std::string& expected) {
    try {
      CheckLimits(limits);
      ADD_FAILURE() << "no exception, expected: " << expected;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  DeviceLimits l;
  EXPECT_NO_THROW(CheckLimits(V1()));
  l.ub_rows = 262145;
  expect_message(l,
                 "ub_rows (UB_ROWS) = 262145 is not supported by the instruction set; "
                 "allowed: 1..262144");
  l = DeviceLimits{};
  l.acc_rows = 1023;
  expect_message(l, "acc_rows (ACC_ROWS) = 1023");
  expect_message(l, "ACC_ROWS % 2 == 0");
  l = DeviceLimits{};
  l.acc_rows = 8192;
  expect_message(l, "allowed: 2..4096");
  l = DeviceLimits{};
  l.n = 1;
  expect_message(l, "n (N) = 1");
  l = DeviceLimits{};
  l.param_sets = 65;
  expect_message(l, "param_sets (PARAM_SETS) = 65");
  l = DeviceLimits{};
  l.dram_bytes = (int64_t{1} << 33) + 1;
  expect_message(l, "dram_bytes (DRAM_BYTES) = 8589934593");
}

}  // namespace
}  // namespace tpu::isa
