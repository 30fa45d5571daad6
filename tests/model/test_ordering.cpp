// FindUnorderedAccess (model/ordering.h): conflicting accesses of different units must be
// ordered by tokens or SYNC; same-unit order, transitive chains, credits and SYNC barriers
// count, the weight FIFO does not.
#include <gtest/gtest.h>

#include "tests/model/model_testing.h"

namespace tpu::model {
namespace {

const isa::DeviceLimits kLimits{8, 64, 16, 4096, 4};

std::optional<UnorderedAccess> Check(const std::string& text) {
  return FindUnorderedAccess(AsmInstrs(text, kLimits), kLimits);
}

constexpr const char* kLoadAndMultiply =
    "READ_HOST target=dram host=0 dest=0 length=64 signal=t1\n"
    "READ_HOST target=ub host=0 dest=0 length=32 signal=t0\n"
    "READ_WEIGHTS dram_tile=0 tiles=1 wait=t1\n";

TEST(Ordering, TokensOrderProducerAndConsumer) {
  EXPECT_FALSE(Check(std::string(kLoadAndMultiply) +
                     "MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 wait=t0\nHALT\n"));
}

TEST(Ordering, MissingWaitIsReportedWithBothInstructions) {
  const auto hazard = Check(std::string(kLoadAndMultiply) +
                            "MATMUL ub=2 acc=0 rows=4 acc_mode=overwrite new_tile=1\nHALT\n");
  ASSERT_TRUE(hazard);
  EXPECT_EQ(hazard->first, 1);
  EXPECT_EQ(hazard->second, 3);
  EXPECT_EQ(hazard->first_access.memory, Memory::kUb);
  EXPECT_TRUE(hazard->first_access.write);
  EXPECT_FALSE(hazard->second_access.write);
  EXPECT_NE(hazard->message.find("MATMUL"), std::string::npos) << hazard->message;
  // Rows the READ_HOST did not touch need no token.
  EXPECT_FALSE(Check(std::string(kLoadAndMultiply) +
                     "MATMUL ub=4 acc=0 rows=4 acc_mode=overwrite new_tile=1\nHALT\n"));
}

TEST(Ordering, TheWeightFifoOrdersNoMemoryAccess) {
  // The READ_WEIGHTS waited for the UB load, but the MATMUL may read the UB before its tile
  // arrives.
  const auto hazard = Check(
      "READ_HOST target=ub host=0 dest=0 length=32 signal=t1\n"
      "READ_WEIGHTS dram_tile=0 tiles=1 wait=t1\n"
      "MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1\nHALT\n");
  ASSERT_TRUE(hazard);
  EXPECT_EQ(hazard->first, 0);
  EXPECT_EQ(hazard->second, 2);
}

TEST(Ordering, ChainsAreTransitive) {
  // dma -> matrix -> activation: the ACTIVATE may overwrite the rows the READ_HOST wrote.
  EXPECT_FALSE(Check(std::string(kLoadAndMultiply) +
                     "MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 wait=t0 signal=t3\n"
                     "ACTIVATE acc=0 ub=0 rows=4 param_set=0 wait=t3\nHALT\n"));
  // Without the READ_HOST param being ordered, the ACTIVATE's parameter read races.
  EXPECT_TRUE(
      Check("READ_HOST target=param host=0 dest=0 length=72\n"
            "ACTIVATE acc=0 ub=8 rows=4 param_set=0\nHALT\n"));
}

TEST(Ordering, WriteAfterReadNeedsATokenBack) {
  // The second READ_HOST overwrites rows the MATMUL reads: it must wait for the MATMUL.
  const std::string prefix = std::string(kLoadAndMultiply) +
                             "MATMUL ub=0 acc=0 rows=4 acc_mode=overwrite new_tile=1 wait=t0";
  const auto hazard = Check(prefix + "\nREAD_HOST target=ub host=0 dest=3 length=8\nHALT\n");
  ASSERT_TRUE(hazard);
  EXPECT_EQ(hazard->first, 3);
  EXPECT_EQ(hazard->second, 4);
  EXPECT_FALSE(
      Check(prefix + " signal=t7\nREAD_HOST target=ub host=0 dest=3 length=8 wait=t7\nHALT\n"));
  EXPECT_FALSE(Check(prefix + "\nSYNC units=matrix\nREAD_HOST target=ub host=0 dest=3 length=8\n"
                              "HALT\n"));
  EXPECT_TRUE(Check(prefix + "\nSYNC units=activation,weights\n"
                             "READ_HOST target=ub host=0 dest=3 length=8\nHALT\n"));
}

TEST(Ordering, CountingPairsTheKthWaitWithTheKthSignal) {
  // Two loads signal t0 twice; the second MATMUL's wait pairs with the second load.
  const std::string loads =
      "READ_HOST target=ub host=0 dest=0 length=8 signal=t0\n"
      "READ_HOST target=ub host=0 dest=1 length=8 signal=t0\n";
  EXPECT_FALSE(Check(loads + "MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=0 wait=t0\n"
                             "MATMUL ub=1 acc=1 rows=1 acc_mode=overwrite new_tile=0 wait=t0\n"
                             "HALT\n"));
  const auto hazard = Check(loads +
                            "MATMUL ub=0 acc=0 rows=2 acc_mode=overwrite new_tile=0 wait=t0\n"
                            "HALT\n");
  ASSERT_TRUE(hazard);
  EXPECT_EQ(hazard->first, 1);
  // A credit from SYNC shifts the pairing: the credit's wait orders nothing.
  EXPECT_TRUE(Check("SYNC signal=t0\n" + loads.substr(0, loads.find('\n') + 1) +
                    "MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=0 wait=t0\nHALT\n"));
}

TEST(Ordering, SyncIsABarrierForTheUnitsInItsMask) {
  EXPECT_FALSE(
      Check("READ_HOST target=lut host=0 dest=0 length=256\n"
            "SYNC units=dma\n"
            "ACTIVATE acc=0 ub=8 rows=4 param_set=0 lut=1\nHALT\n"));
  EXPECT_TRUE(
      Check("READ_HOST target=lut host=0 dest=0 length=256\n"
            "SYNC units=matrix\n"
            "ACTIVATE acc=0 ub=8 rows=4 param_set=0 lut=1\nHALT\n"));
  // SYNC waiting on a token signalled by the producer also orders everything after it.
  EXPECT_FALSE(
      Check("READ_HOST target=lut host=0 dest=0 length=256 signal=t2\n"
            "SYNC wait=t2\n"
            "ACTIVATE acc=0 ub=8 rows=4 param_set=0 lut=1\nHALT\n"));
}

TEST(Ordering, ReadsDoNotConflictAndHaltEndsTheCheck) {
  EXPECT_FALSE(
      Check("WRITE_HOST ub=0 host=0 length=8\n"
            "MATMUL ub=0 acc=0 rows=1 acc_mode=overwrite new_tile=0\n"
            "HALT\n"
            "READ_HOST target=ub host=0 dest=0 length=8\n"));
}

}  // namespace
}  // namespace tpu::model
