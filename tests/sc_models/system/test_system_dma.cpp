// Host DMA through the whole system: READ_HOST and WRITE_HOST (docs/isa.md; lengths are bytes,
// UB destinations rows of N bytes) of many lengths at odd host offsets, above and below 4 GiB
// and across it, between host memory (the root complex), the unified buffer and the weight
// DRAM, driven by tpu::device::Device. Destinations are surrounded by guard bytes that must
// stay intact; UB rows partly written keep their other bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "device/device.h"
#include "host_if/top_model.h"
#include "isa/isa.h"
#include "sc_models/system/tpu_system.h"
#include "system_testing.h"

namespace tpu::sys {
namespace {

TpuSystem* g_system = nullptr;

using sys::testing::ReadToUb;
using sys::testing::WriteFromUb;

constexpr uint32_t kN = 16;
constexpr uint32_t kUbRows = 4096;
constexpr uint64_t kGuard = 80;    // guard bytes on each side of a destination
constexpr uint8_t kGuardByte = 0xA5;

// The driver's ring and buffers far from every address the cases use (some cross 4 GiB, where
// the driver's region starts by default).
device::DeviceOptions Options() {
  device::DeviceOptions o;
  o.host_base = 0x5'0000'0000ull;
  return o;
}

struct DmaCase {
  uint32_t length;  // bytes
  uint64_t src;     // host addresses
  uint64_t dst;
  uint32_t row;  // first UB row
};

std::string CaseName(const ::testing::TestParamInfo<DmaCase>& info) {
  char name[96];
  std::snprintf(name, sizeof(name), "Len%u_Src%llx_Dst%llx_Row%u", info.param.length,
                static_cast<unsigned long long>(info.param.src),
                static_cast<unsigned long long>(info.param.dst), info.param.row);
  return name;
}

void PrintTo(const DmaCase& c, std::ostream* os) {
  *os << c.length << " bytes, host 0x" << std::hex << c.src << " -> UB row " << std::dec << c.row
      << " -> host 0x" << std::hex << c.dst << std::dec;
}

uint32_t RowsOf(uint32_t length) { return (length + kN - 1) / kN; }

// Fills [address - kGuard, address + length + kGuard) with guard bytes.
void Guard(device::HostMemory& m, uint64_t address, uint64_t length) {
  m.Write(address - kGuard, std::vector<uint8_t>(length + 2 * kGuard, kGuardByte));
}

// Counts the guard bytes around [address, address + length) that were overwritten.
int BrokenGuards(const model::HostMemory& m, uint64_t address, uint64_t length) {
  int broken = 0;
  for (uint8_t b : m.Read(address - kGuard, kGuard)) broken += b != kGuardByte;
  for (uint8_t b : m.Read(address + length, kGuard)) broken += b != kGuardByte;
  return broken;
}

// Index of the first difference, or -1.
int64_t FirstDiff(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  if (got.size() != want.size()) return 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) return static_cast<int64_t>(i);
  }
  return -1;
}

class SystemDma : public ::testing::TestWithParam<DmaCase> {};

// host src -> UB (over rows pre-filled with a pattern) -> host dst (exactly `length` bytes) and
// -> host dst2 (the whole rows): dst equals src, the guards around both are intact, and the
// last row's bytes beyond `length` still hold the pattern (byte-masked UB write).
TEST_P(SystemDma, HostToUbToHost) {
  const DmaCase c = GetParam();
  const uint32_t rows = RowsOf(c.length);
  ASSERT_LE(c.row + rows, kUbRows);
  std::mt19937_64 rng(c.length * 7919 + c.src);
  const std::vector<uint8_t> data = testing::RandomBytes(rng, c.length);
  const std::vector<uint8_t> pattern = testing::RandomBytes(rng, rows * kN);
  const uint64_t pattern_at = 0x3'0000'0000ull;          // 16-byte aligned, whole rows
  const uint64_t dst2 = c.dst + c.length + 4 * kGuard + 5;  // odd, after dst's guard

  device::RunResult result;
  g_system->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus, Options());
    model::HostMemory& m = g_system->root_complex().memory();
    m.Write(c.src, data);
    m.Write(pattern_at, pattern);
    Guard(m, c.dst, c.length);
    Guard(m, dst2, rows * kN);
    result = dev.Run({ReadToUb(pattern_at, c.row, rows * kN), ReadToUb(c.src, c.row, c.length),
                      WriteFromUb(c.row, c.dst, c.length),
                      WriteFromUb(c.row, dst2, rows * kN), isa::Halt{}});

    const std::vector<uint8_t> got = m.Read(c.dst, c.length);
    EXPECT_EQ(FirstDiff(got, data), -1) << "first wrong byte of dst";
    EXPECT_EQ(BrokenGuards(m, c.dst, c.length), 0) << "guard bytes around dst overwritten";
    std::vector<uint8_t> want2 = pattern;
    std::copy(data.begin(), data.end(), want2.begin());
    EXPECT_EQ(FirstDiff(m.Read(dst2, rows * kN), want2), -1)
        << "first wrong byte of the whole rows (bytes from " << c.length
        << " on must keep the pattern)";
    EXPECT_EQ(BrokenGuards(m, dst2, rows * kN), 0) << "guard bytes around dst2 overwritten";
  });
  EXPECT_EQ(result.perf[regs::kPerfRowsDma], 4u * rows);
  std::printf("%u bytes: %.2f us, %llu cycles\n", c.length, (result.end_ns - result.start_ns) / 1e3,
              static_cast<unsigned long long>(result.perf[regs::kPerfCycles]));
}

constexpr uint64_t kHigh = 0x1'2345'6000ull;  // above 4 GiB: 64-bit (4-DW header) requests
constexpr uint64_t kLow = 0x0800'0000ull;     // below 4 GiB: 32-bit (3-DW header) requests
constexpr uint64_t k4G = 0x1'0000'0000ull;

INSTANTIATE_TEST_SUITE_P(
    Lengths, SystemDma,
    ::testing::Values(
        DmaCase{1, kHigh + 1, kHigh + 0x10000 + 3, 0},
        DmaCase{2, kHigh + 3, kHigh + 0x10000 + 1, 5},
        DmaCase{3, kHigh + 2, kHigh + 0x10000 + 3, 17},
        DmaCase{15, kHigh + 5, kHigh + 0x10000 + 9, 100},
        DmaCase{16, kHigh + 7, kHigh + 0x10000 + 1, 101},
        DmaCase{17, kHigh + 9, kHigh + 0x10000 + 2, 4094},  // ends at the UB's last row
        DmaCase{255, kHigh + 11, kHigh + 0x10000 + 5, 33},
        DmaCase{256, kHigh + 13, kHigh + 0x10000 + 7, 300},
        DmaCase{257, kHigh + 0xFC1, kHigh + 0x10FC3, 7},  // both cross a 4 KiB page
        DmaCase{511, kHigh + 15, kHigh + 0x10000 + 11, 1000},
        DmaCase{4095, kHigh + 17, kHigh + 0x10000 + 13, 2000},
        DmaCase{4096, kHigh + 19, kHigh + 0x10000 + 15, 3},
        DmaCase{4097, kHigh + 21, kHigh + 0x10000 + 17, kUbRows - 257},  // to the last row
        DmaCase{10000, kHigh + 23, kHigh + 0x10000 + 19, 1234},
        DmaCase{4097, kLow + 0x7FF, kLow + 0x20000 + 1, 40},  // below 4 GiB
        DmaCase{4097, k4G - 0x801, k4G - 0x7FD + 0x100000, 9},  // src across 4 GiB
        DmaCase{3000, kLow + 0x101, k4G - 0x403, 50},  // 32-bit src, dst across 4 GiB
        DmaCase{60000, kHigh + 0x123, kHigh + 0x40001, 0}),  // most of the UB
    CaseName);

// host -> weight DRAM at odd DRAM byte addresses (checked in system.dram().bytes(), guards
// included), then a second transfer into the same region proves nothing else moved.
TEST(SystemDmaDram, HostToDramAtOddOffsets) {
  model::SparseMemory& dram = g_system->dram().bytes();
  ASSERT_EQ(dram.size(), 4194304u);
  std::mt19937_64 rng(99);
  struct DramCase {
    uint32_t length;
    uint32_t dest;
    uint64_t src;
  };
  const std::vector<DramCase> cases = {
      {1, 1, kHigh + 1},          {2, 33, kHigh + 0x103},      {3, 62, kHigh + 0x205},
      {31, 65, kHigh + 0x307},    {32, 96, kHigh + 0x400},     {33, 131, kHigh + 0x509},
      {257, 1001, kHigh + 0xFF1}, {4097, 12347, kLow + 0x7FF},
      {10000, 4194304 - 10000, k4G - 0x1001},  // the DRAM's last bytes, src across 4 GiB
  };
  for (const DramCase& c : cases) {
    SCOPED_TRACE("length " + std::to_string(c.length) + " to DRAM byte " +
                 std::to_string(c.dest));
    const std::vector<uint8_t> data = testing::RandomBytes(rng, c.length);
    const uint32_t lo = c.dest >= kGuard ? c.dest - kGuard : 0;
    const uint32_t hi = std::min<uint32_t>(c.dest + c.length + kGuard, dram.size());
    dram.Write(lo, std::vector<uint8_t>(hi - lo, kGuardByte));
    g_system->Run([&](device::DeviceBus& bus) {
      device::Device dev(bus, Options());
      dev.host_memory().Write(c.src, data);
      isa::ReadHost r;
      r.target = isa::Target::kDram;
      r.host = c.src;
      r.dest = c.dest;
      r.length = c.length;
      dev.Run({r, isa::Halt{}});
    });
    EXPECT_EQ(FirstDiff(dram.Read(c.dest, c.length), data), -1) << "first wrong DRAM byte";
    const std::vector<uint8_t> before = dram.Read(lo, c.dest - lo);
    const std::vector<uint8_t> after = dram.Read(c.dest + c.length, hi - c.dest - c.length);
    int broken = 0;
    for (uint8_t b : before) broken += b != kGuardByte;
    for (uint8_t b : after) broken += b != kGuardByte;
    EXPECT_EQ(broken, 0) << "guard bytes around the DRAM destination overwritten";
  }
}

}  // namespace
}  // namespace tpu::sys

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tpu::sys::TpuSystem system(tpu::sys::SystemConfig{}, tpu::tb::MakeTopModel<1>());
  tpu::sys::g_system = &system;
  return RUN_ALL_TESTS();
}
