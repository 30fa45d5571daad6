// SimulateSchedule (model/schedule.h): programs finish or deadlock the way the dispatcher, the
// unit queues and the weight FIFO make them, in every interleaving tried.
#include <gtest/gtest.h>

#include "tests/model/model_testing.h"

namespace tpu::model {
namespace {

const isa::DeviceLimits kLimits{8, 64, 16, 4096, 4};

ScheduleResult Schedule(const std::string& text, uint64_t seed = 0) {
  ScheduleOptions options;
  options.seed = seed;
  return SimulateSchedule(AsmInstrs(text, kLimits), kLimits, options);
}

std::string Repeat(const std::string& line, int count) {
  std::string text;
  for (int i = 0; i < count; ++i) text += line;
  return text;
}

TEST(Schedule, ForwardTokensHalt) {
  for (uint64_t seed = 0; seed < 10; ++seed) {
    const ScheduleResult r = Schedule(
        "READ_HOST target=ub host=0 dest=0 length=8 signal=t0\n"
        "MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=0 wait=t0 signal=t3\n"
        "ACTIVATE acc=0 ub=1 rows=1 param_set=0 wait=t3\nHALT\n",
        seed);
    // NO_TILE: the matrix unit had no tile.
    EXPECT_EQ(r.error, isa::Error::kNoTile);
    EXPECT_EQ(r.index, 1);
  }
  const ScheduleResult r = Schedule(
      "READ_WEIGHTS dram_tile=0 tiles=1\n"
      "READ_HOST target=ub host=0 dest=0 length=8 signal=t0\n"
      "MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=1 wait=t0 signal=t3\n"
      "ACTIVATE acc=0 ub=1 rows=1 param_set=0 wait=t3\nHALT\n");
  EXPECT_TRUE(r.halted) << r.message;
  EXPECT_EQ(r.index, 4);
  EXPECT_EQ(r.tokens, (std::array<int, 8>{}));
  EXPECT_EQ(r.max_tokens[0], 1);
}

TEST(Schedule, AConsumerBeforeItsProducerRunsWhileTheQueuesAllowIt) {
  // Legal on the device (the matrix unit waits in its queue), a model error in program order.
  const std::string text =
      "READ_WEIGHTS dram_tile=0 tiles=1\n"
      "MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=1 wait=t0\n"
      "READ_HOST target=ub host=0 dest=0 length=8 signal=t0\nHALT\n";
  EXPECT_TRUE(Schedule(text).halted);
  Machine machine(kLimits);
  EXPECT_EQ(RunAsm(machine, text).model_error, ModelError::kTokenOrder);
}

TEST(Schedule, NeverSignalledTokenDeadlocksAtHalt) {
  const ScheduleResult r = Schedule(
      "NOP\nREAD_HOST target=lut host=0 dest=0 length=1 wait=t3\n"
      "HALT\n");
  EXPECT_EQ(r.error, isa::Error::kDeadlock);
  EXPECT_EQ(r.index, 2);
  const ScheduleResult sync = Schedule("SYNC wait=t1\nHALT\n");
  EXPECT_EQ(sync.error, isa::Error::kDeadlock);
  EXPECT_EQ(sync.index, 0);
}

TEST(Schedule, FullQueueBehindABlockedUnitDeadlocks) {
  // The FIFO holds 4 tiles, READ_WEIGHTS 5 waits for room, 6..9 fill the weights queue, and the
  // dispatcher cannot issue READ_WEIGHTS 10: the MATMULs that would make room never issue.
  const std::string consume =
      Repeat("MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=1\n", 10);
  for (uint64_t seed = 0; seed < 5; ++seed) {
    const ScheduleResult r =
        Schedule(Repeat("READ_WEIGHTS dram_tile=0 tiles=1\n", 10) + consume + "HALT\n", seed);
    EXPECT_EQ(r.error, isa::Error::kDeadlock) << r.message;
    EXPECT_EQ(r.index, 9);
    EXPECT_EQ(r.max_fifo_tiles, 4);
  }
  // Nine READ_WEIGHTS fit (4 tiles, 1 held, 4 queued), and one READ_WEIGHTS of many tiles
  // streams as the MATMULs drain the FIFO.
  const std::string consume9 =
      Repeat("MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=1\n", 9);
  EXPECT_TRUE(
      Schedule(Repeat("READ_WEIGHTS dram_tile=0 tiles=1\n", 9) + consume9 + "HALT\n").halted);
  // One MATMUL too many waits for a tile forever: DEADLOCK at HALT.
  EXPECT_EQ(Schedule(Repeat("READ_WEIGHTS dram_tile=0 tiles=1\n", 9) + consume + "HALT\n").index,
            19);
  EXPECT_TRUE(Schedule("READ_WEIGHTS dram_tile=0 tiles=10\n" + consume + "HALT\n").halted);
  // A SYNC on the weights unit before the consumers deadlocks.
  EXPECT_EQ(
      Schedule("READ_WEIGHTS dram_tile=0 tiles=5\nSYNC units=weights\n" + consume + "HALT\n").error,
      isa::Error::kDeadlock);
}

TEST(Schedule, OverflowAndDispatcherErrors) {
  const ScheduleResult r = Schedule(Repeat("SYNC signal=t2\n", 256) + "HALT\n");
  EXPECT_EQ(r.error, isa::Error::kTokenOverflow);
  EXPECT_EQ(r.index, 255);
  std::vector<isa::Instr> program = AsmInstrs("NOP\nHALT\n", kLimits);
  isa::Matmul bad;
  bad.rows = 0;
  program.insert(program.begin() + 1, bad);
  const ScheduleResult rejected = SimulateSchedule(program, kLimits);
  EXPECT_EQ(rejected.error, isa::Error::kLengthZero);
  EXPECT_EQ(rejected.index, 1);
  const ScheduleResult open = Schedule("SYNC signal=t0\n");
  EXPECT_FALSE(open.halted);
  EXPECT_EQ(open.error, isa::Error::kOk);
}

}  // namespace
}  // namespace tpu::model
