// Seeded random networks (random_network.h) on the RTL system model, as `tpu run --backend rtl`
// composes it: the Verilated device behind the modeled PCIe link, the runtime's device backend
// and the network runner. Each network runs twice on the same device (one SystemC elaboration
// per process): with every tensor through the host (--check-layers) and with its intermediates
// in the UB (the default plan). Both outputs must equal ReferenceNetwork bit for bit, every layer
// output that comes back to the host must equal its reference, and the resident run must move no
// more PCIe bytes than the host run. test_network_random runs the same seeds on the ISA
// reference machine; this test shows the RTL agrees with it on networks nobody wrote by hand.
//
// One test per device of the suites' sets (tests/suite_devices.h), each in its own process:
//   Short/RandomNetworksRtl.Seeds/<device>  seeds 1..3 (label unit)
//   Long/RandomNetworksRtl.Seeds/<device>   TPU_NETWORK_RANDOM_RTL_SEEDS seeds (default 100)
//                                           from TPU_NETWORK_RANDOM_RTL_SEED_BASE (default 2000)
//                                           (label long)
// A failure names the seed and prints the network, layer by layer; rerun one seed with
//   TPU_NETWORK_RANDOM_RTL_SEED_BASE=S TPU_NETWORK_RANDOM_RTL_SEEDS=1 test_network_random_rtl
//       --gtest_filter=Long/RandomNetworksRtl.Seeds/<device>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "network/network.h"
#include "network/network_run.h"
#include "npy/scratch_dir.h"
#include "random_network.h"
#include "runtime/device_backend.h"
#include "simulator/simulator.h"
#include "suite_devices.h"

// SystemC's library has its own main() calling sc_main(); this binary keeps its own main() (the
// executable's wins, as in host_driver/cli/tpu_main.cpp) and defines sc_main only because the
// library refers to it.
extern "C" int sc_main(int, char**) { return 2; }

namespace tpu::network {
namespace {

using golden::Tensor;
using tpu::testing::ScratchDir;

// The rtl backend on `device`, made once per process (SystemC elaborates once).
runtime::LayerBackend& RtlBackend(const std::string& device) {
  static std::unique_ptr<runtime::LayerBackend> backend;
  static std::string made_for;
  if (!backend) {
    tb::SimulatorOptions options;
    options.device = device;
    backend = std::make_unique<runtime::DeviceBackend>("rtl", tb::MakeSimulator(options),
                                                       runtime::BackendOptions{});
    made_for = device;
  }
  EXPECT_EQ(made_for, device) << "one device per process";
  return *backend;
}

struct Tally {
  int networks = 0, layers = 0, rejected = 0, with_resident = 0;
  int64_t bytes_host = 0, bytes_resident = 0;
};

// Draws seed's network, runs it both ways on the RTL and checks everything.
void RunSeed(int64_t seed, const devices::DeviceConfig& device, Tally& tally) {
  const ::testing::TestResult& result =
      *::testing::UnitTest::GetInstance()->current_test_info()->result();
  const int failures_before = result.total_part_count();
  ScratchDir dir;
  const testing::DrawnNetwork drawn = testing::DrawNetwork(seed, dir, device.limits);
  tally.rejected += drawn.rejected;
  const Network& net = drawn.network;
  SCOPED_TRACE("seed " + std::to_string(seed) + ":\n" + drawn.drawn.description);
  const Tensor<int8_t> x = testing::RandomNetworkInput(seed, net.input_shape);
  const Tensor<int8_t> want = ReferenceNetwork(net, x);
  int64_t bytes[2] = {0, 0};
  int resident_tensors = 0;
  for (int keep = 0; keep < 2; ++keep) {
    SCOPED_TRACE(keep ? "with residency" : "every tensor through the host");
    RunOptions options;
    options.check = true;
    options.keep_in_ub = keep == 1;
    NetworkRun run;
    try {
      run = RunNetwork(net, x, RtlBackend(device.name), options);
    } catch (const std::exception& e) {
      ADD_FAILURE() << (keep ? "resident" : "host") << " run threw: " << e.what();
      return;
    }
    testing::ExpectRunMatches(run, want);
    bytes[keep] = testing::PcieBytes(run);
    if (keep) resident_tensors = run.residency.ub_tensors;
  }
  EXPECT_LE(bytes[1], bytes[0]) << "residency moved more PCIe bytes than the host route";
  ++tally.networks;
  tally.layers += int(net.layers.size());
  tally.bytes_host += bytes[0];
  tally.bytes_resident += bytes[1];
  if (resident_tensors > 0) ++tally.with_resident;
  if (result.total_part_count() != failures_before) {
    std::printf("FAILED seed %lld:\n%s", static_cast<long long>(seed),
                drawn.drawn.description.c_str());
  }
}

class RandomNetworksRtl : public ::testing::TestWithParam<const devices::DeviceConfig*> {};

TEST_P(RandomNetworksRtl, Seeds) {
  const devices::DeviceConfig& device = *GetParam();
  const bool long_suite = tpu::testing::InLongSuite();
  const int64_t first = long_suite ? testing::EnvInt("TPU_NETWORK_RANDOM_RTL_SEED_BASE", 2000) : 1;
  const int64_t count = long_suite ? testing::EnvInt("TPU_NETWORK_RANDOM_RTL_SEEDS", 100) : 3;
  ASSERT_GT(count, 0) << "TPU_NETWORK_RANDOM_RTL_SEEDS must be a positive count";
  std::printf("device %s (N = %lld, %lld UB rows): seeds %lld..%lld on the RTL\n", device.name,
              static_cast<long long>(device.limits.n),
              static_cast<long long>(device.limits.ub_rows), static_cast<long long>(first),
              static_cast<long long>(first + count - 1));
  Tally tally;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t seed = first; seed < first + count; ++seed) {
    RunSeed(seed, device, tally);
    if (HasFatalFailure()) break;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "%d networks (%d layers, %d draws rejected) in %.1f s; %d keep a tensor in the UB; PCIe "
      "bytes %lld resident vs %lld through the host\n",
      tally.networks, tally.layers, tally.rejected, seconds, tally.with_resident,
      static_cast<long long>(tally.bytes_resident), static_cast<long long>(tally.bytes_host));
  EXPECT_EQ(tally.networks, count);
}

INSTANTIATE_TEST_SUITE_P(Short, RandomNetworksRtl,
                         ::testing::ValuesIn(tpu::testing::SuiteDevices(
                             tpu::testing::SuiteLength::kShort)),
                         tpu::testing::DeviceParamName);
INSTANTIATE_TEST_SUITE_P(Long, RandomNetworksRtl,
                         ::testing::ValuesIn(tpu::testing::SuiteDevices(
                             tpu::testing::SuiteLength::kLong)),
                         tpu::testing::DeviceParamName);

}  // namespace
}  // namespace tpu::network

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
