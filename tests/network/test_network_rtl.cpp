// Intermediate tensors in the UB on the device backends of `tpu`: the RTL system model (rtl)
// and the model device (model, sc_models/model_device), the same cases on both: the UB keeps
// its contents from one device program to the next (Device::Run soft-resets the queue, not the
// SRAM), and a network with its intermediates in the UB is bit-exact with golden and moves
// fewer PCIe bytes than with every tensor through the host (--check-layers). No conv2d layer:
// the conv window lowering needs the RTL's MATMUL window mode (the examples cover it).
// One SystemC elaboration per process: each test makes the rtl backend once (ctest runs each
// test in its own process).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>

#include "compiler/layers.h"
#include "golden/dense.h"
#include "network/network.h"
#include "network/network_run.h"
#include "network_testing.h"
#include "runtime/device_backend.h"
#include "sc_models/model_device/model_platform.h"
#include "simulator/simulator.h"

// SystemC's library has its own main() calling sc_main(); this binary keeps its own main() (the
// executable's wins, as in host_driver/cli/tpu_main.cpp) and defines sc_main only because the
// library refers to it.
extern "C" int sc_main(int, char**) { return 2; }

namespace tpu::network {
namespace {

using golden::Tensor;
using testing::RandomInt32;
using testing::RandomInt8;
using tpu::testing::ScratchDir;

// The backend named by the test's parameter as `tpu` composes it: the runtime's device backend
// on the simulator (rtl) or on the model device (model), one per process.
runtime::LayerBackend& Backend(const std::string& name) {
  static std::unique_ptr<runtime::LayerBackend> backend;
  if (!backend) {
    backend = name == "rtl" ? std::make_unique<runtime::DeviceBackend>(
                                  "rtl", tb::MakeSimulator({}), runtime::BackendOptions{})
                            : std::make_unique<runtime::DeviceBackend>(
                                  "model", sc::MakeModelPlatform(""), runtime::BackendOptions{});
  }
  EXPECT_EQ(backend->name(), name) << "one backend per process";
  return *backend;
}

class Residency : public ::testing::TestWithParam<std::string> {
 protected:
  runtime::LayerBackend& Rtl() { return Backend(GetParam()); }
};

// Program 1 leaves relu(x) in the UB; program 2, a separate Run, reads it from there.
TEST_P(Residency, UbKeepsItsContentsBetweenPrograms) {
  std::mt19937 rng(11);
  const Tensor<int8_t> x = RandomInt8({3, 40}, rng);
  compiler::ActivationLayer relu;
  relu.act_min = 0;
  compiler::ActivationLayer clamp;
  clamp.act_max = 50;
  compiler::LoweringOptions first;
  first.ub_begin = 100;
  first.ub_end = 4000;
  first.output_ub = 4000;
  const runtime::LayerResult<int8_t> r1 = Rtl().RunProgram(
      [&](const isa::DeviceLimits& l, const compiler::HostRegion& region) {
        return compiler::LowerActivation(x, relu, l, region, first);
      },
      0);
  EXPECT_TRUE(r1.output.data.empty());
  // Only the driver's register reads come back (92 bytes), not the 144-byte output.
  EXPECT_LT(*r1.stats.pcie_bytes_from_device, 3 * 3 * 16);
  compiler::LoweringOptions second;
  second.ub_begin = 100;
  second.ub_end = 4000;
  second.input_in_ub = compiler::UbTensor{4000, 3, 40};
  const runtime::LayerResult<int8_t> r2 = Rtl().RunProgram(
      [&](const isa::DeviceLimits& l, const compiler::HostRegion& region) {
        return compiler::LowerActivation(Tensor<int8_t>({3, 40}), clamp, l, region, second);
      },
      0);
  Tensor<int8_t> want = x;
  for (int8_t& v : want.data) v = int8_t(std::clamp<int>(v, 0, 50));
  EXPECT_EQ(r2.output.data, want.data);
}

// input (1, 6, 6, 32) -> max pool 2x2 -> (1, 3, 3, 32) -> relu -> flatten (1, 288) -> dense 24
// -> relu: every intermediate stays in the UB.
TEST_P(Residency, NetworkWithIntermediatesInTheUbBitExact) {
  ScratchDir dir;
  std::mt19937 rng(12);
  npy::Write(dir / "x.npy", RandomInt8({1, 6, 6, 32}, rng));
  npy::Write(dir / "dw.npy", RandomInt8({288, 24}, rng));
  npy::Write(dir / "db.npy", RandomInt32({24}, rng, -3000, 3000));
  const Network net = LoadNetwork(dir.WriteFile(
      "net.json",
      testing::NetworkJson(
          {R"({"type": "pool", "mode": "max", "window": [2, 2], "strides": [2, 2]})",
           R"({"type": "activation", "function": "relu"})", R"({"type": "flatten"})",
           R"({"type": "dense", "weights": "dw.npy", "bias": "db.npy",
               "requant": {"scale": 0.003}, "output_zero_point": -4})",
           R"({"type": "activation", "function": "relu"})"},
          R"({"shape": [1, 6, 6, 32], "zero_point": 2})")));
  const Tensor<int8_t> x = npy::Read<int8_t>(dir / "x.npy");
  int64_t bytes[2] = {0, 0};
  for (int keep = 0; keep < 2; ++keep) {
    RunOptions options;
    options.check = true;
    options.keep_in_ub = keep == 1;
    const NetworkRun run = RunNetwork(net, x, Rtl(), options);
    EXPECT_EQ(run.residency.ub_tensors, keep ? 3 : 0);
    ASSERT_TRUE(run.check.has_value());
    EXPECT_TRUE(run.check->ok()) << "keep_in_ub " << keep;
    EXPECT_EQ(run.output.data, ReferenceNetwork(net, x).data);
    for (const LayerRun& lr : run.layers) {
      if (lr.check) {
        EXPECT_TRUE(lr.check->ok());
      }
      if (!lr.on_host) {
        bytes[keep] += *lr.stats.pcie_bytes_to_device + *lr.stats.pcie_bytes_from_device;
      }
    }
  }
  EXPECT_LT(bytes[1], bytes[0]);
  std::cout << "PCIe bytes: " << bytes[1] << " with residency, " << bytes[0]
            << " with --check-layers\n";
}

INSTANTIATE_TEST_SUITE_P(Backends, Residency, ::testing::Values("rtl", "model"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tpu::network

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
