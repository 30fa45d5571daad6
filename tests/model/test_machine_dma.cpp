// The reference machine's DMA instructions on assembled programs: READ_HOST into every target
// (UB, weight DRAM, parameter memory, LUT) from unaligned host addresses with lengths that end
// mid-row, and WRITE_HOST to unaligned host addresses, leaving every other byte alone.
#include <gtest/gtest.h>

#include "tests/model/model_testing.h"

namespace tpu::model {
namespace {

class MachineDma : public ::testing::TestWithParam<int64_t> {
 protected:
  isa::DeviceLimits Limits() const { return {GetParam(), 64, 16, 4096, 4}; }
};

TEST_P(MachineDma, ReadHostToUbKeepsTheRestOfThePartialLastRow) {
  std::mt19937_64 rng(TestSeed());
  Machine machine(Limits());
  const int64_t n = machine.n();
  for (int64_t r = 0; r < 64; ++r) std::fill_n(machine.ub_row(r), n, uint8_t{0xaa});
  for (int trial = 0; trial < 20; ++trial) {
    const uint64_t host = 0x123456789000 + static_cast<uint64_t>(Uniform(rng, 0, 4 * n));
    const int64_t length = Uniform(rng, 1, 5 * n);
    const int64_t dest = Uniform(rng, 0, 64 - (length + n - 1) / n);
    const std::vector<uint8_t> bytes = RandomBytes(rng, static_cast<std::size_t>(length));
    machine.host().Write(host, bytes);
    std::vector<uint8_t> before(machine.ub_row(0), machine.ub_row(0) + 64 * n);
    const RunResult r =
        RunAsm(machine, "READ_HOST target=ub host=" + Hex(host) + " dest=" + std::to_string(dest) +
                            " length=" + std::to_string(length) + "\nHALT\n");
    ASSERT_TRUE(r.halted()) << ToString(r);
    for (int64_t i = 0; i < 64 * n; ++i) {
      const int64_t offset = i - dest * n;
      const uint8_t expected = offset >= 0 && offset < length
                                   ? bytes[static_cast<std::size_t>(offset)]
                                   : before[static_cast<std::size_t>(i)];
      ASSERT_EQ(machine.ub_row(0)[i], expected)
          << "UB byte " << i << ", dest " << dest << ", length " << length;
    }
  }
}

TEST_P(MachineDma, ReadHostToDramParamAndLutAtByteAddresses) {
  std::mt19937_64 rng(TestSeed());
  Machine machine(Limits());
  const int64_t n = machine.n();
  const std::vector<uint8_t> bytes = RandomBytes(rng, 300);
  const uint64_t host = 0x7000000003;  // unaligned
  machine.host().Write(host, bytes);
  const int64_t param_bytes = 4 * 9 * n;
  const RunResult r =
      RunAsm(machine, "READ_HOST target=dram host=" + Hex(host + 1) +
                          " dest=77 length=200\n"
                          "READ_HOST target=param host=" +
                          Hex(host + 5) + " dest=" + std::to_string(param_bytes - 33) +
                          " length=33\n"
                          "READ_HOST target=lut host=" +
                          Hex(host + 7) +
                          " dest=250 length=6\n"
                          "READ_HOST target=lut host=" +
                          Hex(host + 20) +
                          " dest=0 length=1\n"
                          "HALT\n");
  ASSERT_TRUE(r.halted()) << ToString(r);
  const std::vector<uint8_t> dram = machine.dram().Read(0, 4096);
  for (int64_t i = 0; i < 4096; ++i) {
    const uint8_t expected = i >= 77 && i < 277 ? bytes[static_cast<std::size_t>(i - 77 + 1)] : 0;
    ASSERT_EQ(dram[static_cast<std::size_t>(i)], expected) << "DRAM byte " << i;
  }
  for (int64_t i = 0; i < param_bytes; ++i) {
    const int64_t offset = i - (param_bytes - 33);
    const uint8_t expected = offset >= 0 ? bytes[static_cast<std::size_t>(5 + offset)] : 0;
    ASSERT_EQ(machine.param_memory()[static_cast<std::size_t>(i)], expected) << "param " << i;
  }
  for (int i = 0; i < 256; ++i) {
    int8_t expected = 0;
    if (i >= 250) expected = static_cast<int8_t>(bytes[static_cast<std::size_t>(7 + i - 250)]);
    if (i == 0) expected = static_cast<int8_t>(bytes[20]);
    ASSERT_EQ(machine.lut()[static_cast<std::size_t>(i)], expected) << "LUT entry " << i;
  }
}

TEST_P(MachineDma, WriteHostSendsRowsToUnalignedAddresses) {
  std::mt19937_64 rng(TestSeed());
  Machine machine(Limits());
  const int64_t n = machine.n();
  for (int64_t r = 0; r < 64; ++r) {
    for (int64_t c = 0; c < n; ++c) machine.ub_row(r)[c] = static_cast<uint8_t>(r * 7 + c);
  }
  for (int trial = 0; trial < 20; ++trial) {
    const uint64_t host = 0xfffffff000 + static_cast<uint64_t>(Uniform(rng, 0, 2 * n));
    const int64_t length = Uniform(rng, 1, 4 * n);
    const int64_t ub = Uniform(rng, 0, 64 - (length + n - 1) / n);
    const std::vector<uint8_t> fill = RandomBytes(rng, static_cast<std::size_t>(length + 40));
    machine.host().Write(host - 20, fill);
    const RunResult r =
        RunAsm(machine, "WRITE_HOST ub=" + std::to_string(ub) + " host=" + Hex(host) +
                            " length=" + std::to_string(length) + "\nHALT\n");
    ASSERT_TRUE(r.halted()) << ToString(r);
    const std::vector<uint8_t> got =
        machine.host().Read(host - 20, static_cast<uint64_t>(length + 40));
    for (int64_t i = 0; i < length + 40; ++i) {
      const int64_t offset = i - 20;
      const uint8_t expected = offset >= 0 && offset < length ? machine.ub_row(ub)[offset]
                                                              : fill[static_cast<std::size_t>(i)];
      ASSERT_EQ(got[static_cast<std::size_t>(i)], expected) << "host byte " << i - 20;
    }
  }
}

TEST_P(MachineDma, HostRoundTripThroughTheUb) {
  // A WRITE_HOST result read back by a later READ_HOST of the same unit sees the new bytes.
  Machine machine(Limits());
  const int64_t n = machine.n();
  std::fill_n(machine.ub_row(5), n, uint8_t{0x42});
  const RunResult r =
      RunAsm(machine, "WRITE_HOST ub=5 host=0x1001 length=" + std::to_string(n) +
                          "\nREAD_HOST target=ub host=0x1001 dest=9 length=" + std::to_string(n) +
                          "\nHALT\n");
  ASSERT_TRUE(r.halted()) << ToString(r);
  for (int64_t c = 0; c < n; ++c) EXPECT_EQ(machine.ub_row(9)[c], 0x42);
}

INSTANTIATE_TEST_SUITE_P(N, MachineDma, ::testing::Values(8, 16),
                         [](const auto& info) { return "N" + std::to_string(info.param); });

TEST(SparseMemory, ReadsZerosAndWritesAcrossPages) {
  SparseMemory memory(uint64_t{1} << 40);
  EXPECT_EQ(memory.Read(123456789, 3), (std::vector<uint8_t>{0, 0, 0}));
  std::vector<uint8_t> bytes(10000);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 31);
  memory.Write(4090, bytes);
  EXPECT_EQ(memory.Read(4090, bytes.size()), bytes);
  EXPECT_EQ(memory.Read(4089, 1)[0], 0);
  EXPECT_THROW(memory.Write((uint64_t{1} << 40) - 2, bytes), std::out_of_range);
  memory.Clear();
  EXPECT_EQ(memory.Read(5000, 1)[0], 0);
}

}  // namespace
}  // namespace tpu::model
