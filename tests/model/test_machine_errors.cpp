// Every error the reference machine reports: the device's decode errors (isa::Check) at the
// failing instruction's index with the effects of the earlier instructions and none of the
// failing one or later ones, the run-time errors NO_TILE, TOKEN_OVERFLOW and DMA_ERROR, and the
// model errors for programs that rely on a later producer (tokens, weight FIFO) or use a shift
// the hardware does not support.
#include <gtest/gtest.h>

#include "tests/model/model_testing.h"

namespace tpu::model {
namespace {

constexpr isa::DeviceLimits kLimits{8, 64, 16, 4096, 4};

struct DecodeCase {
  isa::Error error;
  std::string line;
};

TEST(MachineErrors, DecodeErrorsStopAtTheFailingInstruction) {
  const std::vector<DecodeCase> cases = {
      {isa::Error::kIllegalOpcode, ".words 0 0 0 0"},
      {isa::Error::kIllegalOpcode, ".words 0x50 0 0 0"},
      {isa::Error::kReservedNonzero, ".words 0x102 0 0 0"},
      {isa::Error::kReservedNonzero, ".words 0x40000030 0 1 0"},
      {isa::Error::kLengthZero, "READ_HOST target=ub host=0 dest=0 length=0"},
      {isa::Error::kLengthZero, "READ_WEIGHTS dram_tile=0 tiles=0"},
      {isa::Error::kUbRange, "READ_HOST target=ub host=0 dest=63 length=9"},
      {isa::Error::kUbRange, "WRITE_HOST ub=60 host=0 length=33"},
      {isa::Error::kUbRange, "MATMUL ub=60 acc=0 rows=5 acc_mode=overwrite new_tile=0"},
      {isa::Error::kAccRange, "MATMUL ub=0 acc=12 rows=5 acc_mode=overwrite new_tile=0"},
      {isa::Error::kAccRange, "ACTIVATE acc=16 ub=0 rows=1 param_set=0"},
      {isa::Error::kDramRange, "READ_HOST target=dram host=0 dest=4000 length=97"},
      {isa::Error::kDramRange, "READ_WEIGHTS dram_tile=63 tiles=2"},
      {isa::Error::kHostRange, "READ_HOST target=lut host=0xffffffffffff dest=0 length=2"},
      {isa::Error::kHostRange, "WRITE_HOST ub=0 host=0xfffffffffff0 length=17"},
      {isa::Error::kParamRange, "READ_HOST target=param host=0 dest=280 length=9"},
      {isa::Error::kParamRange, "ACTIVATE acc=0 ub=0 rows=1 param_set=4"},
      {isa::Error::kLutRange, "READ_HOST target=lut host=0 dest=200 length=57"},
      {isa::Error::kPoolConfig, "ACTIVATE acc=0 ub=0 rows=4 param_set=0 win_h=1"},
      {isa::Error::kPoolConfig,
       "ACTIVATE acc=0 ub=0 rows=5 param_set=0 pool=max win_h=1 win_w=1 stride_h=1 stride_w=1 "
       "image_h=2 image_w=2"},
      {isa::Error::kPoolConfig,
       "ACTIVATE acc=0 ub=0 rows=4 param_set=0 pool=avg win_h=3 win_w=1 stride_h=1 stride_w=1 "
       "image_h=2 image_w=2"},
      {isa::Error::kPoolConfig, ".words 0x40 0x00100000 0 0xc"},  // pool (bits 99:98) = 3
      {isa::Error::kClampOrder, "ACTIVATE acc=0 ub=0 rows=1 param_set=0 clamp_min=5 clamp_max=4"},
  };
  std::mt19937_64 rng(TestSeed());
  for (const DecodeCase& c : cases) {
    SCOPED_TRACE(c.line);
    Machine machine(kLimits);
    machine.host().Write(0x100, std::vector<uint8_t>{7, 8});
    // A few good instructions (the first writes LUT entry 0), the bad one, one more good one.
    const int64_t before = Uniform(rng, 1, 5);
    std::string text = "READ_HOST target=lut host=0x100 dest=0 length=1\n";
    for (int64_t i = 1; i < before; ++i) text += "NOP\n";
    text += c.line + "\nREAD_HOST target=lut host=0x101 dest=1 length=1\nHALT\n";
    const RunResult r = RunAsm(machine, text, false);
    EXPECT_EQ(r.status, RunStatus::kDeviceError) << ToString(r);
    EXPECT_EQ(r.error, c.error) << ToString(r);
    EXPECT_EQ(r.index, before);
    EXPECT_FALSE(r.message.empty());
    EXPECT_EQ(machine.lut()[0], 7);
    EXPECT_EQ(machine.lut()[1], 0);
  }
}

TEST(MachineErrors, NoTile) {
  Machine machine(kLimits);
  const RunResult r = RunAsm(machine,
                             "NOP\nMATMUL ub=0 acc=0 rows=1 acc_mode=accumulate new_tile=0\n"
                             "HALT\n");
  EXPECT_EQ(r.status, RunStatus::kDeviceError);
  EXPECT_EQ(r.error, isa::Error::kNoTile);
  EXPECT_EQ(r.index, 1);
  EXPECT_EQ(machine.acc_row(0)[0], 0);
}

TEST(MachineErrors, TokenOverflowAfterTheInstructionsEffects) {
  Machine machine(kLimits);
  machine.host().Write(0, std::vector<uint8_t>{9});
  std::string text;
  for (int i = 0; i < 255; ++i) text += "SYNC signal=t6\n";
  text += "READ_HOST target=lut host=0 dest=3 length=1 signal=t5,t6\nHALT\n";
  const RunResult r = RunAsm(machine, text);
  EXPECT_EQ(r.status, RunStatus::kDeviceError) << ToString(r);
  EXPECT_EQ(r.error, isa::Error::kTokenOverflow);
  EXPECT_EQ(r.index, 255);
  EXPECT_EQ(r.tokens[6], 255);
  EXPECT_EQ(r.tokens[5], 1);
  EXPECT_EQ(machine.lut()[3], 9);
}

TEST(MachineErrors, DmaErrorOnAFaultingHostRange) {
  Machine machine(kLimits);
  machine.host().AddFault(0x2000, 16);
  RunResult r = RunAsm(machine,
                       "READ_HOST target=lut host=0x1ff0 dest=0 length=16\n"
                       "READ_HOST target=lut host=0x1ff1 dest=0 length=16\nHALT\n");
  EXPECT_EQ(r.error, isa::Error::kDmaError) << ToString(r);
  EXPECT_EQ(r.index, 1);
  r = RunAsm(machine, "WRITE_HOST ub=0 host=0x200f length=1 signal=t0\nHALT\n");
  EXPECT_EQ(r.error, isa::Error::kDmaError) << ToString(r);
  EXPECT_EQ(r.index, 0);
  EXPECT_EQ(r.tokens[0], 0);  // a failed transfer signals nothing
}

TEST(MachineErrors, TokenOrderIsAModelError) {
  Machine machine(kLimits);
  const RunResult r = RunAsm(machine,
                             "SYNC signal=t1\n"
                             "READ_WEIGHTS dram_tile=0 tiles=1 wait=t0,t1\n"
                             "READ_HOST target=dram host=0 dest=0 length=64 signal=t0\nHALT\n");
  EXPECT_EQ(r.status, RunStatus::kModelError);
  EXPECT_EQ(r.model_error, ModelError::kTokenOrder);
  EXPECT_EQ(r.index, 1);
  EXPECT_EQ(r.tokens[1], 1);  // nothing taken: all tokens of a wait are taken at once
  EXPECT_NE(ToString(r).find("t0"), std::string::npos) << ToString(r);
}

TEST(MachineErrors, EmptyFifoIsAModelError) {
  Machine machine(kLimits);
  const RunResult r = RunAsm(machine,
                             "READ_WEIGHTS dram_tile=0 tiles=1\n"
                             "MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=1\n"
                             "MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=1\n"
                             "READ_WEIGHTS dram_tile=0 tiles=1\nHALT\n");
  EXPECT_EQ(r.status, RunStatus::kModelError);
  EXPECT_EQ(r.model_error, ModelError::kEmptyFifo);
  EXPECT_EQ(r.index, 2);
}

TEST(MachineErrors, UnsupportedShiftIsAModelError) {
  Machine machine(kLimits);
  ParamSet set{std::vector<int32_t>(8, 0), std::vector<int32_t>(8, 1 << 30),
               std::vector<int8_t>(8, -3)};
  set.shift[5] = 31;
  machine.host().Write(0x10, EncodeParamSet(set));
  const RunResult r = RunAsm(machine,
                             "READ_HOST target=param host=0x10 dest=72 length=72\n"
                             "ACTIVATE acc=0 ub=0 rows=1 param_set=0\n"
                             "ACTIVATE acc=0 ub=0 rows=1 param_set=1\nHALT\n");
  EXPECT_EQ(r.status, RunStatus::kModelError) << ToString(r);
  EXPECT_EQ(r.model_error, ModelError::kShiftRange);
  EXPECT_EQ(r.index, 2);
}

}  // namespace
}  // namespace tpu::model
