// The reference machine's control flow: tokens (SYNC, waits and signals on every instruction),
// NOP, HALT ending the run, a program without HALT, what a queue start resets and what it keeps,
// and the example program of docs/isa.md.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/model/model_testing.h"

namespace tpu::model {
namespace {

TEST(MachineControl, TokensCountSignalsAndWaits) {
  Machine machine(isa::DeviceLimits{});
  const RunResult r = RunAsm(machine,
                             "SYNC signal=t4\n"
                             "SYNC signal=t4,t7\n"
                             "NOP\n"
                             "SYNC units=all wait=t4 signal=t0\n"
                             "READ_HOST target=lut host=0 dest=0 length=1 wait=t0 signal=t1,t2\n"
                             "READ_WEIGHTS dram_tile=0 tiles=1 wait=t1 signal=t3\n"
                             "HALT\n");
  ASSERT_TRUE(r.halted()) << ToString(r);
  EXPECT_EQ(r.index, 6);
  EXPECT_EQ(r.executed, 7);
  EXPECT_EQ(r.tokens, (std::array<int, 8>{0, 0, 1, 1, 1, 0, 0, 1}));
  EXPECT_EQ(r.fifo_tiles, 1);
}

TEST(MachineControl, HaltEndsTheRunAndNothingAfterItIsChecked) {
  Machine machine(isa::DeviceLimits{});
  machine.host().Write(0x100, std::vector<uint8_t>{1, 2, 3});
  const RunResult r = RunAsm(machine,
                             "READ_HOST target=lut host=0x100 dest=0 length=1\n"
                             "HALT\n"
                             "READ_HOST target=lut host=0x101 dest=1 length=1\n"
                             ".words 0 0 0 0\n",
                             false);
  ASSERT_TRUE(r.halted()) << ToString(r);
  EXPECT_EQ(r.index, 1);
  EXPECT_EQ(machine.lut()[0], 1);
  EXPECT_EQ(machine.lut()[1], 0);
}

TEST(MachineControl, ProgramWithoutHaltEnds) {
  Machine machine(isa::DeviceLimits{});
  const RunResult r = RunAsm(machine, "NOP\nSYNC signal=t2\n");
  EXPECT_EQ(r.status, RunStatus::kEndOfProgram);
  EXPECT_EQ(r.executed, 2);
  EXPECT_EQ(r.tokens[2], 1);
}

TEST(MachineControl, StartClearsTokensAndTheFifoButKeepsMemories) {
  Machine machine({8, 64, 16, 4096, 4});
  machine.host().Write(0x0, std::vector<uint8_t>(128, 3));  // tiles 0 and 1: all 3
  RunResult r = RunAsm(machine,
                       "READ_HOST target=dram host=0 dest=0 length=128 signal=t0\n"
                       "READ_HOST target=ub host=0 dest=0 length=8 signal=t5\n"
                       "READ_WEIGHTS dram_tile=0 tiles=2 wait=t0\n"
                       "MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=1 wait=t5\n"
                       "HALT\n");
  ASSERT_TRUE(r.halted()) << ToString(r);
  EXPECT_EQ(r.fifo_tiles, 1);
  EXPECT_EQ(machine.acc_row(0)[0], 8 * 9);
  // The next run starts with no tile (NO_TILE), an empty FIFO and cleared tokens, but the UB,
  // the accumulators and the DRAM keep their contents.
  r = RunAsm(machine, "MATMUL ub=0 acc=1 rows=1 acc_mode=overwrite new_tile=0\nHALT\n");
  EXPECT_EQ(r.status, RunStatus::kDeviceError);
  EXPECT_EQ(r.error, isa::Error::kNoTile);
  EXPECT_EQ(r.tokens[5], 0);
  r = RunAsm(machine,
             "READ_WEIGHTS dram_tile=1 tiles=1\n"
             "MATMUL ub=0 acc=1 rows=1 acc_mode=overwrite new_tile=1\nHALT\n");
  ASSERT_TRUE(r.halted()) << ToString(r);
  EXPECT_EQ(machine.acc_row(1)[7], 8 * 9);
  EXPECT_EQ(machine.acc_row(0)[0], 8 * 9);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// docs/isa.md's double-buffered dense layer: halts with every counter at 0, and its tokens order
// every conflicting access; it finishes in every schedule.
TEST(MachineControl, DocumentationExampleRuns) {
  const std::string text =
      ReadFile(std::string(TPU_ISA_EXAMPLES_DIR) + "/dense_double_buffer.tasm");
  const isa::DeviceLimits limits;
  Machine machine(limits);
  const RunResult r = RunAsm(machine, text);
  ASSERT_TRUE(r.halted()) << ToString(r);
  EXPECT_EQ(r.tokens, (std::array<int, 8>{}));
  const std::vector<isa::Instr> program = AsmInstrs(text, limits);
  const auto hazard = FindUnorderedAccess(program, limits);
  EXPECT_FALSE(hazard) << hazard->message;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    ScheduleOptions options;
    options.seed = seed;
    const ScheduleResult s = SimulateSchedule(program, limits, options);
    EXPECT_TRUE(s.halted) << "seed " << seed << ": " << s.message;
    EXPECT_EQ(s.tokens, (std::array<int, 8>{}));
  }
}

}  // namespace
}  // namespace tpu::model
