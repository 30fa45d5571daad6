// The reference machine at TPU v1's sizes (isa/devices.json `v1`: N = 256, 98,304 UB rows, 4096
// accumulator rows, 8 GiB of weight DRAM, 64 parameter sets), which ISA version 2 and later can
// address: a program that loads a weight tile above 4 GiB of DRAM, multiplies the last two UB
// rows (98,302 and 98,303) into the last two accumulator rows, activates the upper 2048
// accumulator rows at once into the top of the UB and writes the last two UB rows back
// assembles, validates against the v1 limits and computes the golden result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/model/model_testing.h"

namespace tpu::model {
namespace {

constexpr int64_t kN = 256;
constexpr int64_t kUbRows = 98304;
constexpr int64_t kAccRows = 4096;
constexpr int64_t kDramBytes = int64_t{8} << 30;
constexpr int64_t kParamSets = 64;

isa::DeviceLimits V1() { return {kN, kUbRows, kAccRows, kDramBytes, kParamSets}; }

// Parameter set bytes (docs/isa.md, READ_HOST target param) for y = x: bias 0, M0 = 2^30
// (0.5 in Q0.31) with a left shift of 1.
std::vector<uint8_t> IdentityParams() {
  std::vector<uint8_t> p(static_cast<std::size_t>(9 * kN), 0);
  for (int64_t c = 0; c < kN; ++c) {
    const uint32_t m0 = uint32_t{1} << 30;
    for (int b = 0; b < 4; ++b) {
      p[static_cast<std::size_t>(4 * kN + 4 * c + b)] = static_cast<uint8_t>(m0 >> (8 * b));
    }
    p[static_cast<std::size_t>(8 * kN + c)] = 1;
  }
  return p;
}

TEST(MachineV1, AddressesTheWholeUbAndDramAbove4GiB) {
  std::mt19937_64 rng(TestSeed());
  Machine machine(V1());
  const uint64_t tile_host = 0x10000000, x_host = 0x20000003, param_host = 0x30000000,
                 out_host = 0x40000001;
  const std::vector<uint8_t> weights = RandomBytes(rng, static_cast<std::size_t>(kN * kN));
  const std::vector<uint8_t> x = RandomBytes(rng, static_cast<std::size_t>(2 * kN));
  machine.host().Write(tile_host, weights);
  machine.host().Write(x_host, x);
  machine.host().Write(param_host, IdentityParams());
  const int64_t tile = 65537;  // byte address 4 GiB + 64 KiB: beyond 32 bits
  const int64_t param_set = kParamSets - 1;
  const std::string program =
      "READ_HOST target=dram host=" + Hex(tile_host) + " dest=" + Hex(uint64_t(tile * kN * kN)) +
      " length=65536 signal=t0\n"
      "READ_HOST target=ub host=" + Hex(x_host) + " dest=98302 length=512 signal=t1\n"
      "READ_HOST target=param host=" + Hex(param_host) +
      " dest=" + std::to_string(param_set * 9 * kN) + " length=2304 signal=t2\n"
      "READ_WEIGHTS dram_tile=" + std::to_string(tile) + " tiles=1 wait=t0\n"
      "MATMUL ub=98302 acc=4094 rows=2 acc_mode=overwrite new_tile=1 wait=t1 signal=t3\n"
      "ACTIVATE acc=2048 ub=96256 rows=2048 param_set=" + std::to_string(param_set) +
      " wait=t2,t3 signal=t4\n"
      "WRITE_HOST ub=98302 host=" + Hex(out_host) + " length=512 wait=t4\n"
      "HALT\n";

  // The assembler checks every instruction against the v1 limits (RunAsm validates).
  const RunResult r = RunAsm(machine, program);
  ASSERT_TRUE(r.halted()) << ToString(r);

  // The tile landed above 4 GiB.
  EXPECT_EQ(machine.dram().Read(static_cast<uint64_t>(tile * kN * kN), 16),
            std::vector<uint8_t>(weights.begin(), weights.begin() + 16));
  for (int64_t row = 0; row < 2; ++row) {
    for (int64_t c = 0; c < kN; ++c) {
      int32_t sum = 0;
      for (int64_t k = 0; k < kN; ++k) {
        sum += int32_t{static_cast<int8_t>(x[static_cast<std::size_t>(row * kN + k)])} *
               int32_t{static_cast<int8_t>(weights[static_cast<std::size_t>(k * kN + c)])};
      }
      ASSERT_EQ(machine.acc_row(4094 + row)[c], sum) << "acc row " << 4094 + row << " lane " << c;
      const auto y = static_cast<uint8_t>(static_cast<int8_t>(std::clamp(sum, -128, 127)));
      ASSERT_EQ(machine.ub_row(98302 + row)[c], y) << "UB row " << 98302 + row << " byte " << c;
      ASSERT_EQ(machine.host().Read(out_host + static_cast<uint64_t>(row * kN + c), 1).at(0), y)
          << "host byte " << row * kN + c;
    }
  }
}

TEST(MachineV1, RejectsRowsAndBytesPastV1) {
  isa::AssembleOptions options;
  options.limits = V1();
  EXPECT_THROW(isa::Assemble("WRITE_HOST ub=98304 host=0 length=1\n", options),
               std::invalid_argument);
  EXPECT_THROW(isa::Assemble("READ_WEIGHTS dram_tile=131072 tiles=1\n", options),
               std::invalid_argument);
  EXPECT_THROW(isa::Assemble("ACTIVATE acc=1 ub=0 rows=4096 param_set=0\n", options),
               std::invalid_argument);
  // Sizes beyond the fields of this version are not a device the model accepts.
  isa::DeviceLimits too_big = V1();
  too_big.dram_bytes = kDramBytes + kN * kN;
  EXPECT_THROW(Machine{too_big}, std::invalid_argument);
  too_big = V1();
  too_big.ub_rows = 262145;
  EXPECT_THROW(Machine{too_big}, std::invalid_argument);
}

}  // namespace
}  // namespace tpu::model
