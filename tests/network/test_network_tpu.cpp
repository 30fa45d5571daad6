// The built `tpu run` as users run it: the small network (every layer type) on the golden and
// the rtl backend, checked against golden, with the JSON report parsed; and a bad network file,
// which must fail with status 2 before any simulation.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "network/network.h"
#include "network/network_run.h"
#include "cli/tpu_binary.h"
#include "network_testing.h"

namespace tpu::network {
namespace {

using testing::WriteSmallNetwork;
using tpu::testing::ReadFile;
using tpu::testing::ScratchDir;
using tpu::testing::RunTpu;
using tpu::testing::TpuRun;

TEST(TpuRunBinary, GoldenCheckPasses) {
  ScratchDir dir;
  const std::string net = WriteSmallNetwork(dir);
  const TpuRun r = RunTpu("run '" + net + "' --input '" + dir / "x.npy" + "' --output '" +
                              dir / "y.npy" + "' --check",
                          dir);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
}

// Every layer type on the Verilated device, bit-exact with golden layer by layer (--check-layers:
// every intermediate through the host).
TEST(TpuRunBinary, RtlCheckPassesEveryLayer) {
  ScratchDir dir;
  const std::string net = WriteSmallNetwork(dir, 3);
  const TpuRun r = RunTpu("run '" + net + "' --input '" + dir / "x.npy" + "' --output '" +
                              dir / "y.npy" + "' --backend rtl --check-layers --report json",
                          dir);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["backend"], "rtl");
  EXPECT_EQ(j["ub_tensors"], 0);
  EXPECT_EQ(j["check"].get<std::string>().rfind("PASS", 0), 0u) << j["check"];
  ASSERT_EQ(j["layers"].size(), 6u);
  for (const auto& layer : j["layers"]) {
    EXPECT_EQ(layer["check"], "PASS") << layer;
    if (layer["on_host"]) continue;
    EXPECT_GT(layer["cycles"].get<int64_t>(), 0) << layer;
    EXPECT_GT(layer["pcie_bytes_to_device"].get<int64_t>(), 0) << layer;
    EXPECT_GT(layer["pcie_bytes_from_device"].get<int64_t>(), 0) << layer;
    EXPECT_GT(layer["simulated_us"].get<double>(), 0) << layer;
    // Nothing moves less than the layer's input + weights + parameters + output.
    EXPECT_GT(layer["essential_bytes"].get<int64_t>(), 0) << layer;
    EXPECT_GE(layer["pcie_over_essential"].get<double>(), 1.0) << layer;
  }
  EXPECT_GT(j["totals"]["cycles"].get<int64_t>(), 0);
  EXPECT_GT(j["totals"]["mxu_utilization"].get<double>(), 0);
  const golden::Tensor<int8_t> want =
      ReferenceNetwork(LoadNetwork(net), npy::Read<int8_t>(dir / "x.npy"));
  EXPECT_EQ(npy::Read<int8_t>(dir / "y.npy").data, want.data);
}

// By default the intermediates stay in the UB where they can (docs/networks.md "Residency"):
// the same output, fewer PCIe bytes, the layers' placements in the report.
TEST(TpuRunBinary, RtlKeepsIntermediatesInTheUb) {
  ScratchDir dir;
  const std::string net = WriteSmallNetwork(dir, 3);
  const auto run = [&](const std::string& check) {
    const TpuRun r = RunTpu("run '" + net + "' --input '" + dir / "x.npy" + "' --output '" +
                                dir / "y.npy" + "' --backend rtl " + check + " --report json",
                            dir);
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json all_host = run("--check-layers");
  const nlohmann::json j = run("--check");
  EXPECT_EQ(j["check"].get<std::string>().rfind("PASS", 0), 0u) << j["check"];
  EXPECT_EQ(j["output_checksum"], all_host["output_checksum"]);
  EXPECT_EQ(j["ub_tensors"], 3);
  // conv -> pool -> lut stay; the lut's output goes to the host for the flattened batch of 2.
  const char* want[6][2] = {{"host", "ub"}, {"ub", "ub"}, {"ub", "host"},
                            {"host", "host"}, {"host", "ub"}, {"ub", "host"}};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(j["layers"][i]["input_from"], want[i][0]) << i;
    EXPECT_EQ(j["layers"][i]["output_to"], want[i][1]) << i;
  }
  EXPECT_FALSE(j["layers"][2]["host_fallback"].is_null());
  EXPECT_TRUE(j["layers"][0]["check"].is_null());
  EXPECT_EQ(j["layers"][2]["check"], "PASS");
  const auto total = [](const nlohmann::json& r) {
    return r["totals"]["pcie_bytes_to_device"].get<int64_t>() +
           r["totals"]["pcie_bytes_from_device"].get<int64_t>();
  };
  EXPECT_LT(total(j), total(all_host));
}

TEST(TpuRunBinary, BadNetworkFailsBeforeSimulating) {
  ScratchDir dir;
  WriteSmallNetwork(dir);
  const std::string net = dir.WriteFile(
      "bad.json", R"({"input": {"shape": [2, 6, 6, 3]}, "layers": [{"type": "pool"}]})");
  const TpuRun r = RunTpu("run '" + net + "' --input '" + dir / "x.npy" + "' --output '" +
                              dir / "y.npy" + "' --backend rtl",
                          dir);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("layers[0] (pool \"pool0\"): \"window\": missing"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("simulating"), std::string::npos);
  EXPECT_TRUE(ReadFile(dir / "y.npy").empty());
}

}  // namespace
}  // namespace tpu::network
