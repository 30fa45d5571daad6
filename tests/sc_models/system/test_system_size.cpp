// The system model with a device whose MXU is not 16 x 16 (isa/devices.json configuration
// TPU_TEST_DEVICE, e.g. n8 or n32: the host interface's beat adapter between the core's N-byte
// host-memory beats and the DMA engines' beats of the device's TLP stream width,
// rtl/host_if/tpu_host_beat_adapter.sv), driven
// by tpu::device::Device, which takes N and the memories from the capability registers:
//   - random dense layers lowered by the compiler, bit-exact with tpu::golden::Dense;
//   - READ_HOST / WRITE_HOST of many lengths at odd host offsets through the UB, guard bytes
//     around the destination intact;
//   - a large READ_HOST streams at the device's bound: the least of N bytes per cycle (the
//     core moves one beat per cycle), the receive stream's B bytes per cycle less one beat
//     per completion for its header (B = 16 on a 128-bit stream: one beat in 17 with 256-byte
//     completions; 32 on n32's 256-bit one: one in 9) and the link's payload limit.
// One SystemC elaboration per process: CMake builds this file once per device.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compiler/dense_lowering.h"
#include "dense_case.h"
#include "device/device.h"
#include "golden/dense.h"
#include "host_if/top_model.h"
#include "isa/isa.h"
#include "runtime/executor.h"
#include "sc_models/pcie/pcie_link_config.h"
#include "sc_models/system/tpu_system.h"
#include "system_testing.h"

#ifndef TPU_TEST_DEVICE
#error "build with -DTPU_TEST_DEVICE=<index of the device in isa/devices.json>"
#endif

namespace tpu::sys {
namespace {

TpuSystem* g_system = nullptr;

using sys::testing::ReadHostNs;
using sys::testing::ReadToUb;
using sys::testing::WriteFromUb;
int64_t g_n = 0;  // the device's N

// ---- dense layers ----------------------------------------------------------------------------

struct Shape {
  int64_t m, k, n;
};

// Runs one layer through the driver and compares with golden; returns the device's cycles.
uint64_t RunDense(const Shape& s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const tpu::testing::DenseCase c = tpu::testing::RandomDense(rng, s.m, s.k, s.n);
  golden::Tensor<int8_t> y;
  uint64_t cycles = 0;
  const uint64_t clocked = g_system->device().stats().cycles;
  const auto wall_start = std::chrono::steady_clock::now();
  g_system->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus);
    EXPECT_EQ(dev.info().limits.n, g_n) << "the device reports another N than it was built with";
    const device::DmaBuffer region = dev.dma_region();
    const compiler::DenseProgram p =
        compiler::LowerDense(c.x, c.layer, dev.info().limits, {region.address, region.size});
    // Stale output bytes must not pass for results.
    dev.host_memory().Write(p.output.address, std::vector<uint8_t>(p.output.bytes(), 0x5A));
    const runtime::Execution e = runtime::Execute(dev, p, s.m * s.k * s.n);
    y = e.output;
    cycles = e.result.perf[regs::kPerfCycles];
    std::printf("M %lld K %lld N %lld: %zu instructions, %llu cycles, MXU utilization %.3f\n",
                static_cast<long long>(s.m), static_cast<long long>(s.k),
                static_cast<long long>(s.n), p.instrs.size(),
                static_cast<unsigned long long>(cycles), *e.stats.mxu_utilization);
  });
  // The whole system's simulation speed (driver, link model, RTL), for the record.
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const uint64_t simulated = g_system->device().stats().cycles - clocked;
  std::printf("  simulated %llu device cycles in %.2f s: %.0f cycles/s\n",
              static_cast<unsigned long long>(simulated), wall, simulated / wall);
  const golden::Tensor<int8_t> want =
      golden::Dense(c.x, c.layer.weights, c.layer.bias, c.layer.input_zero_point, c.layer.requant);
  EXPECT_EQ(y.shape, want.shape);
  size_t wrong = 0;
  for (size_t i = 0; i < want.data.size() && i < y.data.size(); ++i) {
    wrong += y.data[i] != want.data[i];
  }
  EXPECT_EQ(wrong, 0u) << "of " << want.data.size() << " outputs";
  return cycles;
}

// Shapes around N: partial tiles on every edge, one tile exactly, several tiles each way, and
// a row count that is not a multiple of 16 / N or of N / 16.
TEST(SystemSize, DenseLayersMatchGolden) {
  const uint64_t seed = sys::testing::TestSeed(20261125);
  const int64_t n = g_n;
  const std::vector<Shape> shapes = {{1, 1, 1},
                                     {n, n, n},
                                     {n + 3, n - 1, n + 5},
                                     {3 * n + 1, 2 * n + 7, n / 2 + 1},
                                     {37, 2 * n + 1, 3 * n - 2},
                                     {4 * n, 2 * n, 2 * n},
                                     {4 * n, 8 * n, 8 * n}};
  for (size_t i = 0; i < shapes.size(); ++i) {
    SCOPED_TRACE("shape " + std::to_string(i));
    RunDense(shapes[i], seed + i);
    if (HasFailure()) return;
  }
}

// ---- host DMA through the UB -----------------------------------------------------------------

constexpr uint64_t kGuard = 48;
constexpr uint8_t kGuardByte = 0xA5;

// host src -> UB -> host dst at offsets that are not multiples of N or 16, each transfer in two
// instructions split at a row (the second READ_HOST starts where the first ended, the second
// WRITE_HOST continues the first one's last 16 bytes): the bytes arrive exactly and the guards
// around the destination stay.
TEST(SystemSize, HostToUbToHostAtOddOffsets) {
  const uint64_t seed = sys::testing::TestSeed(77);
  std::mt19937_64 rng(seed);
  const uint32_t n = static_cast<uint32_t>(g_n);
  const std::vector<uint32_t> lengths = {1,  3,  n - 1,     n,   n + 1, 15,  16,   17,
                                         31, 33, 2 * n + 5, 255, 256,   257, 1000, 4099};
  g_system->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus);
    const uint64_t base = dev.dma_region().address + 0x10000;
    for (size_t i = 0; i < lengths.size(); ++i) {
      const uint32_t len = lengths[i];
      const uint64_t src = base + 0x4000 * i + rng() % 64;
      const uint64_t dst = base + 0x4000 * i + 0x2000 + rng() % 64;
      const std::vector<uint8_t> data = sys::testing::RandomBytes(rng, len);
      dev.host_memory().Write(src, data);
      dev.host_memory().Write(dst - kGuard, std::vector<uint8_t>(len + 2 * kGuard, kGuardByte));
      const uint32_t first = len / 2 / n * n, row = 5;
      std::vector<isa::Instr> program;
      if (first > 0) {
        program.push_back(ReadToUb(src, row, first));
        program.push_back(ReadToUb(src + first, row + first / n, len - first));
        program.push_back(WriteFromUb(row, dst, first));
        program.push_back(WriteFromUb(row + first / n, dst + first, len - first));
      } else {
        program.push_back(ReadToUb(src, row, len));
        program.push_back(WriteFromUb(row, dst, len));
      }
      program.push_back(isa::Halt{});
      dev.Run(program);
      EXPECT_EQ(dev.host_memory().Read(dst, len), data) << "length " << len;
      int broken = 0;
      for (uint8_t b : dev.host_memory().Read(dst - kGuard, kGuard)) broken += b != kGuardByte;
      for (uint8_t b : dev.host_memory().Read(dst + len, kGuard)) broken += b != kGuardByte;
      EXPECT_EQ(broken, 0) << "guard bytes overwritten around length " << len;
    }
  });
}

// ---- READ_HOST rate ----------------------------------------------------------------------------

// The streaming rate (difference of two sizes: fixed costs cancel) is at least 90% of the
// device's bound and does not exceed it.
TEST(SystemSize, ReadHostStreamsAtTheDeviceBound) {
  constexpr uint32_t kSmall = 64 * 1024, kBig = 320 * 1024;
  const sc::LinkTiming timing(g_system->config().link);
  const double link_limit = timing.payload_limit_bytes_per_s(12);  // CplD: 3-DW header
  const double clock_hz = g_system->config().clock_mhz * 1e6;
  // The receive stream: B = tlp_width_bits / 8 bytes a cycle, one beat in MPS / B + 1 a
  // completion's header (1 in 17 at 128 bits, 1 in 9 at 256); the core: N bytes a cycle.
  const double beat = g_system->device().top_config().tlp_width_bits / 8.0;
  const double mps = g_system->config().link.max_payload;
  const double device_limit = std::min(beat * clock_hz * mps / (mps + beat),
                                       static_cast<double>(g_n) * clock_hz);
  const double bound = std::min(link_limit, device_limit);
  double small_ns = 0, big_ns = 0;
  std::mt19937_64 rng(11);
  uint64_t src = 0;
  g_system->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus);
    src = dev.dma_region().address;
    dev.host_memory().Write(src, sys::testing::RandomBytes(rng, kBig));
    small_ns = ReadHostNs(dev, src, kSmall);
    big_ns = ReadHostNs(dev, src, kBig);
  });
  std::mt19937_64 again(11);
  EXPECT_EQ(g_system->dram().bytes().Read(0, kBig), sys::testing::RandomBytes(again, kBig));
  const double rate = (kBig - kSmall) / ((big_ns - small_ns) * 1e-9);
  std::printf(
      "N = %lld: link payload limit %.2f GB/s, device bound %.2f GB/s; READ_HOST "
      "streams at %.2f GB/s (%.1f%% of the bound, %.3f of the link limit)\n",
      static_cast<long long>(g_n), link_limit / 1e9, device_limit / 1e9, rate / 1e9,
      100 * rate / bound, rate / link_limit);
  EXPECT_GE(rate, 0.90 * bound);
  EXPECT_LE(rate, 1.01 * bound);
}

}  // namespace
}  // namespace tpu::sys

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::unique_ptr<tpu::sys::TopModel> model = tpu::tb::MakeTopModel<TPU_TEST_DEVICE>();
  tpu::sys::g_n = model->config().limits.n;
  tpu::sys::TpuSystem system(tpu::sys::SystemConfig{}, std::move(model));
  tpu::sys::g_system = &system;
  return RUN_ALL_TESTS();
}
