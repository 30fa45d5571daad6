// The device bench of the tpu_top tests (tests/rtl/host_if/test_tpu_top.cpp and
// test_tpu_top_stress.cpp): a TopBench with MSIs and the instruction ring set up, dense layers
// lowered by the compiler run through the ring and checked against golden bit for bit, and the
// root complex's protocol checks.
#ifndef TPU_TESTS_RTL_HOST_IF_TOP_TESTING_H_
#define TPU_TESTS_RTL_HOST_IF_TOP_TESTING_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "compiler/dense_lowering.h"
#include "core/core_harness.h"
#include "dense_case.h"
#include "golden/dense.h"
#include "golden/requant.h"
#include "host_if/top_bench.h"
#include "host_if/top_model.h"
#include "regs/regs.h"

// The device under test: configuration K of isa/devices.json (CMake builds the tests once per
// device it names; n16_small, K = 0, by default).
#ifndef TPU_TOP_DEVICE
#define TPU_TOP_DEVICE 0
#endif

namespace tpu::tb {

inline constexpr uint64_t kRing = 0x80000000;        // instruction ring (3-DW headers)
inline constexpr uint32_t kRingSlots = 512;          // holds a lowered 150 x 70 x 40 layer at N = 8
inline constexpr uint64_t kData = 0x1'0000'0000ull;  // images and results (4-DW headers)
inline constexpr uint64_t kDataBytes = 16ull << 20;
inline constexpr uint64_t kMsi = 0xfee00000;
inline constexpr uint16_t kMsiData = 0x4a31;
inline constexpr uint64_t kBudget = 3'000'000;  // cycles for one program

// The test's seed, or TPU_SEED from the environment (added to it) to try others.
inline uint64_t Seed(uint64_t base) {
  const char* env = std::getenv("TPU_SEED");
  const uint64_t seed = base + (env != nullptr ? std::strtoull(env, nullptr, 0) : 0);
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  return seed;
}

inline RcConfig Rc(const TopConfig& c, bool stressed, uint64_t seed) {
  RcConfig rc = DeviceRc(c, seed);
  if (stressed) {
    rc.min_latency = 5;
    rc.max_latency = 150;
    rc.merge_completions = true;
    rc.reorder = true;
    rc.rx_gap = 0.2;
    rc.tx_ready = 0.75;
  }
  return rc;
}

inline std::unique_ptr<TopBench> MakeBench(bool stressed, uint64_t base, const std::string& name) {
  const uint64_t seed = Seed(base);
  auto model = MakeTopModel<TPU_TOP_DEVICE>(TestHarnessOptions(name));
  const TopConfig c = model->config();
  auto b = std::make_unique<TopBench>(std::move(model), Rc(c, stressed, seed), seed);
  if (stressed) {
    PortTiming t;
    t.ready_prob = 0.7;
    t.min_latency = 1;
    t.max_latency = 12;
    t.rsp_prob = 0.7;
    b->dram().set_timing(t);
  }
  b->EnableMsi(kMsi, kMsiData);
  b->SetupRing(kRing, kRingSlots);
  return b;
}

using testing::DenseCase;
using testing::RandomDense;

inline compiler::DenseProgram Lower(TopBench& b, const DenseCase& c) {
  compiler::DenseProgram p =
      compiler::LowerDense(c.x, c.layer, b.config().limits, {kData, kDataBytes});
  for (const auto& image : p.images) b.host().Write(image.address, image.bytes);
  b.host().Write(p.output.address, std::vector<uint8_t>(p.output.bytes(), 0xa5));
  return p;
}

inline void ExpectResult(TopBench& b, const DenseCase& c, const compiler::DenseProgram& p) {
  const golden::Tensor<int8_t> want =
      golden::Dense(c.x, c.layer.weights, c.layer.bias, c.layer.input_zero_point, c.layer.requant);
  const golden::Tensor<int8_t> got = compiler::ExtractDenseOutput(
      p.output, [&](uint64_t a, uint64_t n) { return b.host().Read(a, n); });
  ASSERT_EQ(got.data.size(), want.data.size());
  for (size_t i = 0; i < want.data.size(); ++i) {
    ASSERT_EQ(got.data[i], want.data[i]) << "element " << i;
  }
}

inline void ExpectNoViolations(TopBench& b) {
  for (const auto& v : b.rc().violations()) ADD_FAILURE() << v;
  EXPECT_EQ(b.out().rx_drop_count, 0u);
  EXPECT_EQ(b.out().cpl_drop_count, 0u);
}

// Runs a dense layer through the ring: one MSI more, done, the ring drained, the result exact.
inline void RunDense(TopBench& b, const DenseCase& c, size_t msis_before) {
  const compiler::DenseProgram p = Lower(b, c);
  const uint64_t start = b.cycle();
  b.Submit(p.instrs.words());
  ASSERT_TRUE(b.WaitMsi(msis_before + 1, kBudget)) << "no MSI";
  std::printf("dense %lldx%lldx%lld: %zu instructions, MSI after %llu cycles\n",
              static_cast<long long>(c.x.shape[0]), static_cast<long long>(c.x.shape[1]),
              static_cast<long long>(c.layer.nout()), p.instrs.size(),
              static_cast<unsigned long long>(b.cycle() - start));
  EXPECT_EQ(b.rc().msis().back().data, kMsiData);
  EXPECT_EQ(b.ReadReg(regs::kIrqStatus), regs::kIrqStatusDoneMask);
  const uint32_t status = b.ReadReg(regs::kStatus);
  EXPECT_EQ(status & (regs::kStatusRunningMask | regs::kStatusDoneMask | regs::kStatusErrorMask |
                      regs::kStatusRingEmptyMask),
            regs::kStatusDoneMask | regs::kStatusRingEmptyMask);
  EXPECT_EQ(b.ReadReg(regs::kErrorCode), 0u);
  EXPECT_EQ(b.ReadReg(regs::kRingHead), b.tail());
  EXPECT_GT(b.ReadReg(regs::PerfLo(0)), 0u);  // cycles of the run
  ExpectResult(b, c, p);
  b.WriteReg(regs::kIrqStatus, regs::kIrqStatusDoneMask | regs::kIrqStatusErrorMask);
}

}  // namespace tpu::tb

#endif  // TPU_TESTS_RTL_HOST_IF_TOP_TESTING_H_
