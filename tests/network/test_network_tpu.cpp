// The built `tpu run` as users run it: the small network (every layer type) on the golden and
// the rtl backend, checked against golden, with the JSON report parsed; and a bad network file,
// which must fail with status 2 before any simulation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>
#include <string>

#include <nlohmann/json.hpp>

#include "network/network.h"
#include "network/dataset_run.h"
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
                              dir / "y.npy" + "' --backend rtl --check-layers --no-fold --report json",
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
                                dir / "y.npy" + "' --backend rtl --no-fold " + check + " --report json",
                            dir);
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json all_host = run("--check-layers");
  const nlohmann::json j = run("--check");
  EXPECT_EQ(j["check"].get<std::string>().rfind("PASS", 0), 0u) << j["check"];
  EXPECT_EQ(j["output_checksum"], all_host["output_checksum"]);
  EXPECT_EQ(j["ub_tensors"], 3);
  // conv -> pool -> lut stay; the lut's output goes to the host: the dense layer cannot read a
  // flattened batch of 5 channels (not a multiple of N) in place.
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

// A flattened batch read in place on the RTL: the dense layer's windowed MATMULs gather each K
// tile's rows, H * W apart (docs/networks.md "Residency"); the output still bit-exact.
TEST(TpuRunBinary, RtlDenseReadsAFlattenedBatchInTheUb) {
  ScratchDir dir;
  const std::string net = testing::WriteImageNetwork(dir, 3, 5, false);
  const TpuRun r = RunTpu("run '" + net + "' --input '" + dir / "x.npy" + "' --output '" +
                              dir / "y.npy" + "' --backend rtl --check --report json",
                          dir);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["check"].get<std::string>().rfind("PASS", 0), 0u) << j["check"];
  EXPECT_EQ(j["ub_tensors"], 2);
  EXPECT_EQ(j["layers"][1]["output_to"], "ub");  // the pool's output, read by the dense layer
  EXPECT_EQ(j["layers"][3]["input_from"], "ub");
  EXPECT_EQ(j["layers"][3]["check"], "PASS");
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


// ---------------------------------------------------------------------------------------------
// Data sets (docs/networks.md "Data sets")

// The small network with scales: the input's and the dense layer's output scale.
std::string WriteScaledNetwork(const ScratchDir& dir, uint32_t seed = 1) {
  WriteSmallNetwork(dir, seed);
  std::vector<std::string> layers = testing::SmallLayers();
  layers[4] = R"({"type": "dense", "name": "fc", "weights": "dw.npy", "bias": "db.npy",
                  "requant": {"scale": 0.004}, "output_zero_point": 4, "output_scale": 0.125})";
  return dir.WriteFile("scaled.json",
                       testing::NetworkJson(layers, R"({"shape": [2, 6, 6, 3], "zero_point": 3, "scale": 0.05})"));
}

// Three images in batches of two on the device, --check on every batch, the relu folded into
// the dense layer: the output of one batch of three, bit-exact.
TEST(TpuRunDataset, RtlPartialLastBatchChecked) {
  ScratchDir dir;
  const std::string net = WriteSmallNetwork(dir, 3);
  std::mt19937 rng(4);
  const golden::Tensor<int8_t> x = testing::RandomInt8({3, 6, 6, 3}, rng);
  npy::Write(dir / "x3.npy", x);
  const TpuRun r = RunTpu("run '" + net + "' --input '" + dir / "x3.npy" + "' --output '" +
                              dir / "y.npy" + "' --backend rtl --check --report json",
                          dir);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["images"], 3);
  EXPECT_EQ(j["batch"], 2);
  EXPECT_EQ(j["batches"], 2);
  EXPECT_EQ(j["input_shape"], (std::vector<int64_t>{3, 6, 6, 3}));
  EXPECT_EQ(j["output_shape"], (std::vector<int64_t>{3, 7}));
  ASSERT_EQ(j["folded_layers"].size(), 1u);
  EXPECT_EQ(j["folded_layers"][0]["name"], "activation5");
  EXPECT_EQ(j["folded_layers"][0]["into"], "fc");
  EXPECT_EQ(j["layers"].size(), 5u);
  EXPECT_EQ(j["check"].get<std::string>().rfind("PASS (21 int8 results", 0), 0u) << j["check"];
  EXPECT_GT(j["images_per_s"]["simulated"].get<double>(), 0);
  EXPECT_GT(j["images_per_s"]["wall"].get<double>(), 0);
  const Network n = LoadNetwork(net);
  golden::Tensor<int8_t> want = x;
  for (const Layer& layer : n.layers) {  // the network as written, at batch 3
    Layer l = layer;
    l.input_shape[0] = 3;
    l.output_shape[0] = 3;
    want = ReferenceLayer(l, want);
  }
  EXPECT_EQ(npy::Read<int8_t>(dir / "y.npy").data, want.data);
  EXPECT_EQ(r.err.find("layer 1/"), std::string::npos) << r.err;  // a progress line instead
}

// Float in (quantized with the input's scale and zero point), float out (dequantized with the
// last layer's), labels scored: the text report says so.
TEST(TpuRunDataset, FloatInputOutputAndLabels) {
  ScratchDir dir;
  const std::string net = WriteScaledNetwork(dir);
  const golden::Tensor<float> xf({3, 6, 6, 3}, [] {
    std::vector<float> v(3 * 108);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(int(i % 23) - 11) * 0.0375f;
    return v;
  }());
  npy::Write(dir / "xf.npy", xf);
  npy::Write(dir / "labels.npy", golden::Tensor<int64_t>({3}, {0, 6, 2}));
  const TpuRun r = RunTpu("run '" + net + "' --input '" + dir / "xf.npy" + "' --input-float --output '" +
                              dir / "y.npy" + "' --output-float '" + dir / "f.npy" +
                              "' --labels '" + dir / "labels.npy" + "' --batch 1 --check",
                          dir);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  // The int8 input the device saw: round(x / 0.05) + 3, as TFLite's Quantize.
  golden::Tensor<int8_t> xq({3, 6, 6, 3});
  for (size_t i = 0; i < xq.data.size(); ++i) {
    xq.data[i] = int8_t(std::clamp(int(std::round(xf.data[i] / 0.05f)) + 3, -128, 127));
  }
  const golden::Tensor<int8_t> y = npy::Read<int8_t>(dir / "y.npy");
  EXPECT_EQ(y.data, ReferenceNetwork(network::WithBatch(LoadNetwork(net), 3), xq).data);
  const golden::Tensor<float> f = npy::Read<float>(dir / "f.npy");
  ASSERT_EQ(f.shape, y.shape);
  for (size_t i = 0; i < f.data.size(); ++i) {
    EXPECT_EQ(f.data[i], float(0.125 * (int(y.data[i]) - 4))) << i;
  }
  int correct = 0;
  const std::vector<int64_t> labels = {0, 6, 2};
  for (size_t n = 0; n < 3; ++n) {
    const auto row = y.data.begin() + std::ptrdiff_t(7 * n);
    correct += std::max_element(row, row + 7) - row == labels[n];
  }
  const std::string pct = correct == 0 ? "0.00%" : correct == 1 ? "33.33%" : correct == 2 ? "66.67%" : "100.00%";
  EXPECT_NE(r.out.find("top-1 accuracy: " + pct + " (" + std::to_string(correct) + " of 3 images"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("images: 3 in 3 batches of 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("folded (run as part of the layer before, bit-exact): activation5 into fc"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("quantized with scale 0.05, zero point 3"), std::string::npos) << r.out;
  // The same in JSON.
  const TpuRun rj = RunTpu("run '" + net + "' --input '" + dir / "xf.npy" +
                               "' --input-float --output '" + dir / "y.npy" + "' --labels '" +
                               dir / "labels.npy" + "' --report json",
                           dir);
  ASSERT_EQ(rj.status, 0) << rj.err << rj.out;
  const nlohmann::json j = nlohmann::json::parse(rj.out);
  EXPECT_EQ(j["accuracy"]["correct"], correct);
  EXPECT_EQ(j["accuracy"]["images"], 3);
  EXPECT_DOUBLE_EQ(j["accuracy"]["top1"].get<double>(), correct / 3.0);
  ASSERT_EQ(j["accuracy"]["confusion"].size(), 7u);
  int64_t diagonal = 0, sum = 0;
  for (size_t c = 0; c < 7; ++c) {
    for (size_t p = 0; p < 7; ++p) sum += j["accuracy"]["confusion"][c][p].get<int64_t>();
    diagonal += j["accuracy"]["confusion"][c][c].get<int64_t>();
  }
  EXPECT_EQ(sum, 3);
  EXPECT_EQ(diagonal, correct);
  EXPECT_EQ(j["accuracy"]["per_class"][6]["images"], 1);
  EXPECT_TRUE(j["accuracy"]["per_class"][1]["accuracy"].is_null());  // no image of class 1
  EXPECT_DOUBLE_EQ(j["input_scale"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(j["output_scale"].get<double>(), 0.125);
  EXPECT_EQ(j["batches"], 2);  // the file's batch of 2: 2 + 1
}

// Bad data-set options fail with status 2 before anything runs and write nothing.
TEST(TpuRunDataset, BadInputsFailBeforeRunning) {
  ScratchDir dir;
  const std::string net = WriteSmallNetwork(dir);  // no scales
  const std::string scaled = WriteScaledNetwork(dir);
  npy::Write(dir / "xf.npy", golden::Tensor<float>({2, 6, 6, 3}));
  npy::Write(dir / "x5.npy", golden::Tensor<int8_t>({5, 6, 6, 3}));
  npy::Write(dir / "l4.npy", golden::Tensor<int64_t>({4}));
  npy::Write(dir / "l5.npy", golden::Tensor<int32_t>({5}, {0, 1, 2, 3, 7}));
  npy::Write(dir / "xbad.npy", golden::Tensor<int8_t>({5, 6, 3, 6}));
  const std::string x5 = " --input '" + dir / "x5.npy" + "'";
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"'" + net + "' --input '" + dir / "xf.npy" + "' --input-float",
       {"--input-float: the network has no input scale", "\"scale\""}},
      {"'" + net + "' --input '" + dir / "xf.npy" + "'",
       {"--input: ", "xf.npy", "float32", "add --input-float"}},
      {"'" + net + "'" + x5 + " --output-float '" + dir / "f.npy" + "'",
       {"--output-float: the scale of the network's output is unknown", "output_scale"}},
      {"'" + scaled + "'" + x5 + " --output-float '" + dir / "y.npy" + "'",
       {"--output-float", "the same file as --output"}},
      {"'" + net + "'" + x5 + " --batch 0", {"--batch 0: expected a batch of 1 or more"}},
      {"'" + net + "'" + x5 + " --labels '" + dir / "l4.npy" + "'",
       {"--labels: ", "l4.npy: shape (4,)", "expected (5,)"}},
      {"'" + net + "'" + x5 + " --labels '" + dir / "l5.npy" + "'",
       {"label[4] = 7", "0 .. 6"}},
      {"'" + net + "'" + x5 + " --labels '" + dir / "xf.npy" + "'",
       {"--labels: ", "expected integers"}},
      {"'" + net + "' --input '" + dir / "xbad.npy" + "'",
       {"--input: ", "shape (5, 6, 3, 6)", "expected (n, 6, 6, 3)"}},
  };
  for (const auto& [args, parts] : cases) {
    const TpuRun r = RunTpu("run " + args + " --output '" + dir / "y.npy" + "' --backend rtl", dir);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
    for (const auto& part : parts) {
      EXPECT_NE(r.err.find(part), std::string::npos) << args << "\n" << r.err << "\nwant: " << part;
    }
    EXPECT_EQ(r.err.find("layer 1/"), std::string::npos) << r.err;
    EXPECT_TRUE(ReadFile(dir / "y.npy").empty()) << args;
    EXPECT_TRUE(ReadFile(dir / "f.npy").empty()) << args;
  }
}

}  // namespace
}  // namespace tpu::network
