// The layer regression suite (issue 6, docs/regression.md): every layer type the runtime lowers
// (dense, conv2d, max pool, average pool, clamp activation, LUT activation) on seeded random
// shapes, lowered by the runtime (compiler/dense_lowering.h, compiler/layers.h) into the driver's
// DMA region, run on the RTL (the Verilated device on the modeled PCIe link, TpuSystem) through
// tpu::device::Device and compared bit for bit with the golden reference.
//
// Each test is (device, layer type, seed); the seed and the device's array size N alone
// determine the shape and the data, so a failure is reproduced by running that one test (the
// failure message prints the command). The devices are the suites' (tests/suite_devices.h: one
// per array size built, TPU_BUILD_DEVICES):
//   Short/LayerRegression.MatchesGolden/<device>_<type>_seed<S>   S = 1..4 on every short-suite
//        device (N up to the default device's: n8, n16), always instantiated (CI)
//   Long/LayerRegression.MatchesGolden/<device>_<type>_seed<S>    every long-suite device (n32,
//        n64 too), S = TPU_REGRESSION_SEED_BASE (default 1000) .. + TPU_REGRESSION_SEEDS - 1;
//        none unless TPU_REGRESSION_SEEDS is set (nightly)
// The discrete options rotate with the seed (kernels 1/3/5, stride 1/2, SAME/VALID, per-tensor
// and per-channel requantization, batch above 1) so that the four short seeds of a type cover
// each of them; sizes, channels, zero points and data are random. ShapeGenerator.* checks the
// generator itself (coverage of the short seeds, outputs spread over int8) without the RTL.
//
// One SystemC elaboration per process (tests/sc_models/sc_testing.h): sc_main builds one
// TpuSystem per suite device (the registry of built devices, testbench/host_if/built_devices.h),
// and every test runs its layer through a fresh tpu::device::Device on its device, so the tests
// pass in one process, in any order, and one per process (ctest). GoogleTest's sharding
// variables (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX) split the binary's tests over machines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/dense_lowering.h"
#include "compiler/layers.h"
#include "device/device.h"
#include "golden/activation.h"
#include "golden/conv.h"
#include "golden/dense.h"
#include "golden/pool.h"
#include "golden/requant.h"
#include "golden/tensor.h"
#include "devices/devices_gen.h"
#include "host_if/built_devices.h"
#include "layer_cases.h"
#include "regs/regs.h"
#include "runtime/executor.h"
#include "sc_models/system/tpu_system.h"
#include "suite_devices.h"

namespace tpu::regression {
namespace {

// One system model per suite device, elaborated in sc_main (SystemC elaborates once, so every
// device a test may ask for is built up front; an idle one has no events).
std::map<std::string, sys::TpuSystem*> g_systems;

// ---- Seeds ------------------------------------------------------------------------------------

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return fallback;
  return std::strtoll(env, nullptr, 0);
}

// The long suite's seeds: TPU_REGRESSION_SEEDS of them (0 when unset: the binary then holds the
// short suite only) from TPU_REGRESSION_SEED_BASE (default 1000, above the short seeds; a
// nightly job may move it to test new shapes every night).
int64_t LongSeedBase() { return EnvInt("TPU_REGRESSION_SEED_BASE", 1000); }
int64_t LongSeedCount() { return std::max<int64_t>(0, EnvInt("TPU_REGRESSION_SEEDS", 0)); }

std::vector<int64_t> LongSeeds() {
  std::vector<int64_t> seeds;
  for (int64_t i = 0; i < LongSeedCount(); ++i) seeds.push_back(LongSeedBase() + i);
  return seeds;
}

std::string ShapeText(const std::vector<int64_t>& shape) { return golden::ShapeToString(shape); }

// Index `flat` of a row-major tensor of `shape` as "(i, j, ...)".
std::string IndexText(const std::vector<int64_t>& shape, size_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = static_cast<int64_t>(flat) % shape[d];
    flat /= static_cast<size_t>(shape[d]);
  }
  std::string s = "(";
  for (size_t d = 0; d < index.size(); ++d) s += (d ? ", " : "") + std::to_string(index[d]);
  return s + ")";
}

// ---- The regression tests ---------------------------------------------------------------------

// (device, layer type, seed).
using Param = std::tuple<const devices::DeviceConfig*, LayerType, int64_t>;

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  return std::string(std::get<0>(info.param)->name) + "_" + TypeName(std::get<1>(info.param)) +
         "_seed" + std::to_string(std::get<2>(info.param));
}

class LayerRegression : public ::testing::TestWithParam<Param> {};

// How to run this one test again (printed on failure).
std::string RerunText(const Case& c) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = std::string(info->test_suite_name()) + "." + info->name();
  std::string env;
  if (name.rfind("Long/", 0) == 0) {
    env = "TPU_REGRESSION_SEED_BASE=" + std::to_string(LongSeedBase()) +
          " TPU_REGRESSION_SEEDS=" + std::to_string(c.seed - LongSeedBase() + 1) + " ";
  }
  return "rerun: " + env + "tests/regression/test_layer_regression --gtest_filter='" + name +
         "'  (from the build directory)";
}

TEST_P(LayerRegression, MatchesGolden) {
  const devices::DeviceConfig& device = *std::get<0>(GetParam());
  const Case c = MakeCase(std::get<1>(GetParam()), std::get<2>(GetParam()), device.limits.n);
  const std::string where = "device " + std::string(device.name) + ", layer " +
                            TypeName(c.type) + ", seed " + std::to_string(c.seed) + ": " +
                            c.description + "\n" + RerunText(c);
  std::printf("device %s, seed %lld: %s\n", device.name, static_cast<long long>(c.seed),
              c.description.c_str());
  sys::TpuSystem* system = g_systems.at(device.name);
  const golden::Tensor<int8_t> want = Golden(c);

  golden::Tensor<int8_t> got;
  std::vector<int64_t> program_shape;
  std::string error;
  try {
    system->Run([&](device::DeviceBus& bus) {
      device::Device dev(bus);
      const device::DmaBuffer region = dev.dma_region();
      const compiler::DenseProgram p = Lower(c, dev.info().limits, {region.address, region.size});
      program_shape = p.output_shape;
      // Stale output bytes must not pass for results.
      dev.host_memory().Write(p.output.address, std::vector<uint8_t>(p.output.bytes(), 0x5A));
      const runtime::Execution e = runtime::Execute(dev, p, 0);
      got = e.output;
      std::printf("%zu instructions, %llu cycles, %.1f us simulated\n", p.instrs.size(),
                  static_cast<unsigned long long>(e.result.perf[regs::kPerfCycles]),
                  (e.result.end_ns - e.result.start_ns) / 1e3);
    });
  } catch (const std::exception& e) {
    error = e.what();
  }
  ASSERT_EQ(error, "") << where;
  ASSERT_EQ(ShapeText(program_shape), ShapeText(want.shape)) << "program output_shape; " << where;
  ASSERT_EQ(ShapeText(got.shape), ShapeText(want.shape)) << where;
  size_t wrong = 0, first = want.data.size();
  for (size_t i = 0; i < want.data.size(); ++i) {
    if (got.data[i] != want.data[i]) {
      if (wrong++ == 0) first = i;
    }
  }
  EXPECT_EQ(wrong, 0u) << "outputs differ from golden (of " << want.data.size() << ")"
                       << (wrong ? "; first at " + IndexText(want.shape, first) + ": rtl " +
                                       std::to_string(got.data[first]) + ", golden " +
                                       std::to_string(want.data[first])
                                 : std::string())
                       << "\n"
                       << where;
}

// Every short-suite device (tests/suite_devices.h: n8 and n16 when built).
INSTANTIATE_TEST_SUITE_P(
    Short, LayerRegression,
    ::testing::Combine(::testing::ValuesIn(testing::SuiteDevices(testing::SuiteLength::kShort)),
                       ::testing::ValuesIn(kAllTypes), ::testing::ValuesIn(kShortSeeds)),
    ParamName);

// Every long-suite device (every size built); empty unless TPU_REGRESSION_SEEDS is set (the
// generator runs once, in InitGoogleTest).
INSTANTIATE_TEST_SUITE_P(
    Long, LayerRegression,
    ::testing::Combine(::testing::ValuesIn(testing::SuiteDevices(testing::SuiteLength::kLong)),
                       ::testing::ValuesIn(kAllTypes), ::testing::ValuesIn(LongSeeds())),
    ParamName);

// ---- The generator itself (golden only, no simulation) -----------------------------------------

// The four short seeds of each type cover every option the suite promises.
TEST(ShapeGenerator, ShortSeedsCoverEveryOption) {
  const std::vector<std::pair<LayerType, std::vector<std::string>>> wanted = {
      {LayerType::kDense, {"per-channel", "per-tensor", "batch>1", "channels%N!=0"}},
      {LayerType::kConv2d,
       {"kernel1", "kernel3", "kernel5", "kernel_w!=kernel_h", "stride1", "stride2",
        "stride_w!=stride_h", "SAME", "VALID", "per-channel", "per-tensor", "batch>1", "odd",
        "channels%N!=0"}},
      {LayerType::kConv2dWindow,
       {"kernel1", "kernel3", "kernel5", "kernel_w!=kernel_h", "stride1", "stride2",
        "stride_w!=stride_h", "SAME", "VALID", "per-channel", "per-tensor", "batch>1", "odd",
        "channels%N!=0"}},
      {LayerType::kPoolMax,
       {"stride1", "stride2", "stride_w!=stride_h", "window_w!=window_h", "SAME", "VALID",
        "batch>1", "odd", "channels%N!=0", "clamp", "no-clamp"}},
      {LayerType::kPoolAvg,
       {"stride1", "stride2", "stride_w!=stride_h", "window_w!=window_h", "SAME", "VALID",
        "batch>1", "odd", "channels%N!=0", "clamp", "no-clamp"}},
      {LayerType::kActivationClamp, {"rank1", "rank2", "rank4"}},
      {LayerType::kActivationLut, {"rank1", "rank2", "rank4"}},
  };
  for (const auto& [type, features] : wanted) {
    std::vector<std::string> seen;
    for (int64_t seed : kShortSeeds) {
      const Case c = MakeCase(type, seed, devices::DefaultDevice().limits.n);
      seen.insert(seen.end(), c.features.begin(), c.features.end());
    }
    for (const std::string& f : features) {
      EXPECT_NE(std::find(seen.begin(), seen.end(), f), seen.end())
          << TypeName(type) << ": no short seed has " << f;
    }
  }
}

// Over many seeds: every case is valid for the default device (the golden function accepts it),
// and conv / dense outputs spread over int8 (not mostly saturated or clamped) so that bit
// exactness checks the arithmetic, not just the clamp: over all cases of a type at least 40%
// of the outputs lie strictly inside the clamp range (ReLU clamps about half by design), and so
// does at least 10% of every case with 8 or more channels and 64 or more outputs (with fewer
// channels a case may fall on the bounds by chance: each channel's bias and zero-point offset
// is one constant).
TEST(ShapeGenerator, CasesAreValidAndSpread) {
  for (LayerType type : kAllTypes) {
    std::vector<int64_t> seeds;  // the short seeds and the default long ones, and more
    for (int64_t seed = 1; seed <= 100; ++seed) seeds.push_back(seed);
    for (int64_t seed = 1000; seed < 1200; ++seed) seeds.push_back(seed);
    size_t all_inside = 0, all = 0;
    for (int64_t seed : seeds) {
      const Case c = MakeCase(type, seed, devices::DefaultDevice().limits.n);
      golden::Tensor<int8_t> y;
      ASSERT_NO_THROW(y = Golden(c)) << TypeName(type) << " seed " << seed << ": " << c.description;
      ASSERT_FALSE(y.data.empty()) << c.description;
      if (type != LayerType::kDense && type != LayerType::kConv2d &&
          type != LayerType::kConv2dWindow) {
        continue;
      }
      size_t inside = 0;
      for (int8_t v : y.data) inside += v > c.out_min && v < c.out_max;
      all_inside += inside;
      all += y.data.size();
      if (y.shape.back() >= 8 && y.data.size() >= 64) {
        EXPECT_GE(inside * 10, y.data.size())
            << TypeName(type) << " seed " << seed << ": " << c.description
            << ": over 90% of the outputs on the clamp bounds";
      }
    }
    if (all > 0) {
      std::printf("%s: %.1f%% of %zu outputs inside the clamp range\n", TypeName(type),
                  100.0 * static_cast<double>(all_inside) / static_cast<double>(all), all);
      EXPECT_GE(all_inside * 10, all * 4) << TypeName(type);
    }
  }
}

}  // namespace
}  // namespace tpu::regression

namespace tpu::regression {
namespace {

// A device's system model under a module of the device's name (the systems' parts are then
// n8.link, n16.link, ...: SystemC names are unique per process).
class DeviceSystem : public sc_core::sc_module {
 public:
  DeviceSystem(sc_core::sc_module_name name, const devices::DeviceConfig& device)
      : sc_core::sc_module(name),
        system(ConfigFor(device), tb::MakeBuiltTopModel(device, HarnessOptionsFor(device))) {}
  sys::TpuSystem system;

 private:
  // TPU_TRACE=1 traces the device, TPU_RANDOM_INIT_SEED=S starts its registers without a reset
  // at random values (the X-initialization runs, regression.xinit.*).
  static tb::HarnessOptions HarnessOptionsFor(const devices::DeviceConfig& device) {
    return tb::TestHarnessOptions("regression_" + std::string(device.name));
  }
  static sys::SystemConfig ConfigFor(const devices::DeviceConfig& device) {
    sys::SystemConfig config;
    config.clock_mhz = device.clock_mhz;
    config.link.max_payload = static_cast<uint32_t>(device.max_payload);
    config.link.max_read_request = static_cast<uint32_t>(device.max_read_request);
    return config;
  }
};

}  // namespace
}  // namespace tpu::regression

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::vector<std::unique_ptr<tpu::regression::DeviceSystem>> systems;
  for (const tpu::devices::DeviceConfig* d :
       tpu::testing::SuiteDevices(tpu::testing::SuiteLength::kLong)) {
    systems.push_back(std::make_unique<tpu::regression::DeviceSystem>(d->name, *d));
    tpu::regression::g_systems[d->name] = &systems.back()->system;
  }
  return RUN_ALL_TESTS();
}
