// The system model end to end (sc_models/system): the Verilated device on the modeled PCIe
// link, driven by tpu::device::Device through the root complex. One elaboration per process
// (tests/sc_models/sc_testing.h explains why): sc_main builds the system, the tests run in it.
// Random dense layers are checked bit-exact against tpu::golden::Dense (TPU_SEED varies them),
// and device errors (a host fault range) come back as DeviceError with the next run correct.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "compiler/dense_lowering.h"
#include "device/device.h"
#include "golden/activation.h"
#include "golden/dense.h"
#include "host_if/top_model.h"
#include "regs/regs.h"
#include "runtime/executor.h"
#include "sc_models/system/tpu_system.h"
#include "system_testing.h"

namespace tpu::sys {
namespace {

TpuSystem* g_system = nullptr;

using sys::testing::ReadToUb;
using sys::testing::WriteFromUb;

TEST(System, ReadsIdOverTheLink) {
  uint32_t id = 0;
  g_system->Run([&](device::DeviceBus& bus) { id = bus.ReadRegister(regs::kId); });
  EXPECT_EQ(id, regs::kIdReset);
}

TEST(System, DenseLayerThroughTheDriver) {
  std::mt19937_64 rng(7);
  const int64_t m = 40, k = 50, n = 30;
  golden::Tensor<int8_t> x({m, k});
  compiler::DenseLayer layer;
  layer.weights = golden::Tensor<int8_t>({k, n});
  for (auto& v : x.data) v = static_cast<int8_t>(rng());
  for (auto& v : layer.weights.data) v = static_cast<int8_t>(rng());
  layer.bias.resize(n);
  for (auto& v : layer.bias) v = static_cast<int32_t>(rng() % 20001) - 10000;
  layer.input_zero_point = 3;
  layer.requant.multipliers = {golden::QuantizeMultiplier(0.003)};
  layer.requant.out_zero_point = -5;
  golden::Tensor<int8_t> y;
  g_system->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus);
    const device::DmaBuffer region = dev.dma_region();
    const compiler::DenseProgram p =
        compiler::LowerDense(x, layer, dev.info().limits, {region.address, region.size});
    const runtime::Execution e = runtime::Execute(dev, p, m * k * n);
    y = e.output;
    std::printf("cycles %lld, %.1f us, MXU utilization %.3f\n",
                static_cast<long long>(*e.stats.cycles), *e.stats.device_seconds * 1e6,
                *e.stats.mxu_utilization);
  });
  const golden::Tensor<int8_t> want =
      golden::Dense(x, layer.weights, layer.bias, layer.input_zero_point, layer.requant);
  EXPECT_EQ(y.data, want.data);
}


// ---- Random dense layers vs golden ----------------------------------------------------------

struct RandomDense {
  golden::Tensor<int8_t> x;
  compiler::DenseLayer layer;
  std::string description;
};

// A dimension from 1 to `max`, never a multiple of 16 (N): every tile has a partial edge.
int64_t Dim(std::mt19937_64& rng, int64_t max) {
  for (;;) {
    const int64_t d = 1 + static_cast<int64_t>(rng() % max);
    if (d % 16 != 0) return d;
  }
}

// Layer `index` of a seeded series: shapes up to ~100, per-tensor or per-channel requant, with
// or without bias, no activation / ReLU / ReLU6, input and output zero points. The cases
// rotate through the options so that six layers cover each of them.
RandomDense MakeRandomDense(uint64_t seed, int index) {
  std::mt19937_64 rng(seed * 1000003 + index);
  RandomDense d;
  const int64_t m = Dim(rng, 100), k = Dim(rng, 100), n = Dim(rng, 100);
  d.x = golden::Tensor<int8_t>({m, k});
  d.layer.weights = golden::Tensor<int8_t>({k, n});
  for (auto& v : d.x.data) v = static_cast<int8_t>(rng());
  for (auto& v : d.layer.weights.data) v = static_cast<int8_t>(rng());
  const bool per_channel = index % 2 == 1;
  const bool bias = index % 3 != 2;
  const golden::Activation act = static_cast<golden::Activation>(index % 3);  // none/relu/relu6
  if (bias) {
    d.layer.bias.resize(n);
    for (auto& v : d.layer.bias) v = static_cast<int32_t>(rng() % 40001) - 20000;
  }
  d.layer.input_zero_point = static_cast<int32_t>(rng() % 256) - 128;
  // Scales that spread the accumulators (|acc| ~ 128 * 128 * sqrt(k)) over the int8 range.
  std::uniform_real_distribution<double> spread(0.3, 3.0);
  const double base = 1.0 / (128.0 * std::sqrt(static_cast<double>(k)));
  const int count = per_channel ? static_cast<int>(n) : 1;
  for (int c = 0; c < count; ++c) {
    d.layer.requant.multipliers.push_back(golden::QuantizeMultiplier(base * spread(rng)));
  }
  d.layer.requant.out_zero_point = static_cast<int32_t>(rng() % 41) - 20;
  const golden::ActivationRange range =
      golden::QuantizedActivationRange(act, 0.05f, d.layer.requant.out_zero_point);
  d.layer.requant.act_min = range.min;
  d.layer.requant.act_max = range.max;
  const char* act_names[] = {"none", "relu", "relu6"};
  d.description = "M " + std::to_string(m) + ", K " + std::to_string(k) + ", N " +
                  std::to_string(n) + (per_channel ? ", per-channel" : ", per-tensor") +
                  (bias ? ", bias" : ", no bias") + ", activation " + act_names[index % 3] +
                  ", input zero point " + std::to_string(d.layer.input_zero_point) +
                  ", output zero point " + std::to_string(d.layer.requant.out_zero_point) +
                  ", clamp [" + std::to_string(range.min) + ", " + std::to_string(range.max) +
                  "]";
  return d;
}

class SystemRandomDense : public ::testing::TestWithParam<int> {};

TEST_P(SystemRandomDense, MatchesGolden) {
  const uint64_t seed = sys::testing::TestSeed(20240611);
  const RandomDense d = MakeRandomDense(seed, GetParam());
  std::printf("layer %d: %s\n", GetParam(), d.description.c_str());
  golden::Tensor<int8_t> y;
  g_system->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus);
    const device::DmaBuffer region = dev.dma_region();
    const compiler::DenseProgram p =
        compiler::LowerDense(d.x, d.layer, dev.info().limits, {region.address, region.size});
    // Stale output bytes must not pass for results.
    dev.host_memory().Write(p.output.address, std::vector<uint8_t>(p.output.bytes(), 0x5A));
    const runtime::Execution e = runtime::Execute(dev, p, 0);
    y = e.output;
    std::printf("%zu instructions, %llu cycles, %.1f us\n", p.instrs.size(),
                static_cast<unsigned long long>(e.result.perf[regs::kPerfCycles]),
                (e.result.end_ns - e.result.start_ns) / 1e3);
  });
  const golden::Tensor<int8_t> want = golden::Dense(d.x, d.layer.weights, d.layer.bias,
                                                    d.layer.input_zero_point, d.layer.requant);
  ASSERT_EQ(y.shape, want.shape);
  size_t wrong = 0, first = want.data.size();
  for (size_t i = 0; i < want.data.size(); ++i) {
    if (y.data[i] != want.data[i]) {
      ++wrong;
      first = std::min(first, i);
    }
  }
  // The scales must spread the results: mostly clamped outputs would check little (ReLU clamps
  // about half at its lower bound by design).
  size_t inside = 0;
  for (int8_t v : want.data) {
    inside += v > d.layer.requant.act_min && v < d.layer.requant.act_max;
  }
  std::printf("%zu of %zu outputs strictly inside the clamp range\n", inside, want.data.size());
  EXPECT_GE(inside * 5, want.data.size()) << "the layer's scales clamp over 80% of the outputs";
  const int64_t n = want.shape[1];
  EXPECT_EQ(wrong, 0u) << "of " << want.data.size() << " outputs; first at row "
                       << (first / n) << ", column " << (first % n)
                       << (wrong ? ": got " + std::to_string(y.data[first]) + ", golden " +
                                       std::to_string(want.data[first])
                                 : std::string());
}

INSTANTIATE_TEST_SUITE_P(Seeded, SystemRandomDense, ::testing::Range(0, 6));

// ---- Device errors ---------------------------------------------------------------------------

// A READ_HOST that touches a host fault range (the root complex answers UR) stops the device
// with DMA_ERROR at that instruction's index; once the fault is gone, the next run through the
// same Device (which resets it) is correct.
TEST(SystemErrors, ReadHostFromFaultRangeIsDmaErrorThenRecovers) {
  constexpr uint64_t kSrc = 0x2'0000'0001ull, kFault = 0x2'0001'0000ull;
  constexpr uint64_t kDst = 0x2'0002'0003ull;
  std::mt19937_64 rng(3);
  const std::vector<uint8_t> ok = sys::testing::RandomBytes(rng, 700);
  const std::vector<uint8_t> data = sys::testing::RandomBytes(rng, 1000);
  g_system->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus);
    model::HostMemory& m = g_system->root_complex().memory();
    m.Write(kSrc, ok);
    m.Write(kFault - 500, data);
    m.AddFault(kFault + 100, 8);  // inside the second READ_HOST's range
    const std::vector<isa::Instr> program = {
        ReadToUb(kSrc, 0, 700), ReadToUb(kFault - 500, 100, 1000),
        WriteFromUb(100, kDst, 1000), isa::Halt{}};
    try {
      dev.Run(program);
      ADD_FAILURE() << "no DeviceError for a READ_HOST from a fault range";
    } catch (const device::DeviceError& e) {
      std::printf("DeviceError: %s\n", e.what());
      EXPECT_FALSE(e.hung());
      EXPECT_EQ(e.code(), static_cast<uint32_t>(isa::Error::kDmaError));
      EXPECT_EQ(e.index(), 1u);
      EXPECT_NE(std::string(e.what()).find("DMA_ERROR"), std::string::npos);
    }
    // The WRITE_HOST after the failed instruction never ran.
    EXPECT_EQ(m.Read(kDst, 1000), std::vector<uint8_t>(1000, 0));

    m.ClearFaults();
    dev.Run(program);
    EXPECT_EQ(m.Read(kDst, 1000), data);
  });
}

// A fault under the instruction ring: RING_FETCH_ERROR (0x20), then the next run is correct.
TEST(SystemErrors, RingFetchFaultThenRecovers) {
  g_system->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus);
    const uint64_t ring = dev.options().host_base;
    const uint64_t dst = dev.dma_region().address + 0x101;
    std::mt19937_64 rng(4);
    const std::vector<uint8_t> data = sys::testing::RandomBytes(rng, 50);
    const uint64_t src = dev.dma_region().address + 0x1000;
    dev.host_memory().Write(src, data);
    const std::vector<isa::Instr> program = {ReadToUb(src, 0, 50), WriteFromUb(0, dst, 50),
                                             isa::Halt{}};
    g_system->root_complex().memory().AddFault(ring + 16, 1);  // slot 1
    try {
      dev.Run(program);
      ADD_FAILURE() << "no DeviceError for a ring fetch from a fault range";
    } catch (const device::DeviceError& e) {
      std::printf("DeviceError: %s\n", e.what());
      EXPECT_FALSE(e.hung());
      EXPECT_EQ(e.code(), regs::kErrRingFetchError);
    }
    g_system->root_complex().memory().ClearFaults();
    dev.Run(program);
    EXPECT_EQ(dev.host_memory().Read(dst, 50), data);
  });
}

// A WRITE_HOST into a fault range: posted writes cannot fail on PCIe, so the device completes
// (no error, no hang) and the root complex drops the writes; the bytes around stay untouched.
TEST(SystemErrors, WriteHostIntoFaultRangeIsDroppedNotHung) {
  g_system->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus);
    const uint64_t src = dev.dma_region().address + 0x2000;
    const uint64_t dst = dev.dma_region().address + 0x8000;
    dev.host_memory().Write(src, std::vector<uint8_t>(512, 0x11));
    const uint64_t dropped = g_system->root_complex().stats().dropped_writes;
    g_system->root_complex().memory().AddFault(dst, 512);
    dev.Run({ReadToUb(src, 0, 512), WriteFromUb(0, dst, 512), isa::Halt{}});
    g_system->root_complex().memory().ClearFaults();
    EXPECT_GE(g_system->root_complex().stats().dropped_writes, dropped + 2);  // MPS 256
    EXPECT_EQ(dev.host_memory().Read(dst, 512), std::vector<uint8_t>(512, 0));
  });
}

}  // namespace
}  // namespace tpu::sys

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  tpu::sys::TpuSystem system(tpu::sys::SystemConfig{}, tpu::tb::MakeTopModel<1>());
  tpu::sys::g_system = &system;
  return RUN_ALL_TESTS();
}
