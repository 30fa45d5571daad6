// Conformance against ONNX's own node tests (Debian libonnx-testdata: each case a model.onnx and
// test_data_set_0/{input,output}_*.pb): every QLinearConv, QLinearMatMul, MaxPool and
// AveragePool case is listed below, either run or refused, never silently skipped.
//
// A case that runs is imported by `tpu import`'s mapping, its input converted (uint8 -> int8 by
// subtracting 128, NCHW -> NHWC), run on the golden backend and on the rtl backend (the
// Verilated device in its system model), and compared with output_0.pb converted the same way:
// rtl must equal golden bit for bit and both must be within 1 LSB of ONNX's result (ONNX computes
// QLinear operators and average pooling in float and rounds half to even, the device requantizes
// in TFLite's fixed point). Max pooling must be exact. The harness adapts two kinds of case, not
// the importer:
//   - QLinear cases give their scales, zero points and weights as graph inputs: the harness
//     makes them initializers with the values of input_1.pb ... input_7.pb;
//   - float pooling cases are wrapped in QDQ form (QuantizeLinear -> DequantizeLinear -> the
//     pool -> QuantizeLinear, int8, zero point 0, scale max|x| / 127), a graph for the int8
//     device; the expected output is ONNX's float output quantized the same way (a monotonic map,
//     so max pooling stays exact).
// A refused case must be refused with the listed reason (the importer's message).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "network/network.h"
#include "network/network_run.h"
#include "npy/scratch_dir.h"
#include "onnx/onnx_import.h"
#include "onnx/onnx_import_ops.h"
#include "onnx/onnx_model.h"
#include "onnx/onnx_write.h"
#include "runtime/device_backend.h"
#include "runtime/layer_backend.h"
#include "simulator/simulator.h"

// SystemC's library has its own main() calling sc_main(); this binary keeps its own main() and
// defines sc_main only because the library refers to it.
extern "C" int sc_main(int, char**) { return 2; }

namespace tpu::onnx {
namespace {

struct Case {
  const char* name;
  bool run;            // false: the importer must refuse it
  const char* reason;  // run: "exact" or "1 LSB"; refused: a part of the importer's message
};

const Case kCases[] = {
    {"test_qlinearconv", true, "1 LSB"},
    {"test_qlinearmatmul_2D", true, "1 LSB"},  // weight zero point 114: weights split in 2
    {"test_qlinearmatmul_3D", false, "4-D NCHW (conv, pool) or 2-D"},
    {"test_maxpool_1d_default", false, "4-D NCHW (conv, pool) or 2-D"},
    {"test_maxpool_2d_ceil", false, "ceil_mode = 1"},
    {"test_maxpool_2d_default", true, "exact"},
    {"test_maxpool_2d_dilations", false, "dilations != 1"},
    {"test_maxpool_2d_pads", false, "pads [2, 2, 2, 2]"},
    {"test_maxpool_2d_precomputed_pads", true, "exact"},
    {"test_maxpool_2d_precomputed_same_upper", true, "exact"},
    {"test_maxpool_2d_precomputed_strides", true, "exact"},
    {"test_maxpool_2d_same_lower", false, "SAME_LOWER"},
    {"test_maxpool_2d_same_upper", true, "exact"},
    {"test_maxpool_2d_strides", true, "exact"},
    {"test_maxpool_2d_uint8", true, "exact"},
    {"test_maxpool_3d_default", false, "4-D NCHW (conv, pool) or 2-D"},
    {"test_maxpool_with_argmax_2d_precomputed_pads", false, "output 1"},
    {"test_maxpool_with_argmax_2d_precomputed_strides", false, "output 1"},
    {"test_averagepool_1d_default", false, "4-D NCHW (conv, pool) or 2-D"},
    {"test_averagepool_2d_ceil", false, "ceil_mode = 1"},
    {"test_averagepool_2d_default", true, "1 LSB"},
    {"test_averagepool_2d_pads", false, "pads [2, 2, 2, 2]"},
    {"test_averagepool_2d_pads_count_include_pad", false, "pads [2, 2, 2, 2]"},
    {"test_averagepool_2d_precomputed_pads", true, "1 LSB"},
    {"test_averagepool_2d_precomputed_pads_count_include_pad", false, "count_include_pad = 1"},
    {"test_averagepool_2d_precomputed_same_upper", true, "1 LSB"},
    {"test_averagepool_2d_precomputed_strides", true, "1 LSB"},
    {"test_averagepool_2d_same_lower", false, "SAME_LOWER"},
    {"test_averagepool_2d_same_upper", true, "1 LSB"},
    {"test_averagepool_2d_strides", true, "1 LSB"},
    {"test_averagepool_3d_default", false, "4-D NCHW (conv, pool) or 2-D"},
};

// gtest prints a parameter with its name.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string CaseDir(const Case& c) { return std::string(TPU_ONNX_TESTDATA) + "/" + c.name; }

TensorData LoadPb(const Case& c, const std::string& file) {
  const std::string path = CaseDir(c) + "/test_data_set_0/" + file;
  return ParseTensor(ReadFileBytes(path), path);
}

TensorData Scalar(const std::string& name, int32_t type, double value) {
  TensorData t;
  t.name = name;
  t.data_type = type;
  t.values = {value};
  return t;
}

Node MakeNode(const std::string& op, std::vector<std::string> in, std::string out,
              const std::string& name) {
  Node n;
  n.op_type = op;
  n.name = name;
  n.inputs = std::move(in);
  n.outputs = {std::move(out)};
  return n;
}

// ONNX QuantizeLinear to int8: float division, round half to even, saturate.
int8_t Quantize(double x, float scale) {
  const float q = std::nearbyint(static_cast<float>(x) / scale);
  return static_cast<int8_t>(std::clamp(q, -128.0f, 127.0f));
}

// The harness's adaptations (above); `scale` is the QDQ wrapping's (0 when not wrapped).
Model Prepare(const Case& c, const Model& original, float* scale) {
  Model m = original;
  Graph& g = m.graph;
  *scale = 0;
  // Graph inputs after the first: constants of the test data.
  for (size_t i = 1; i < g.inputs.size(); ++i) {
    TensorData t = LoadPb(c, "input_" + std::to_string(i) + ".pb");
    t.name = g.inputs[i].name;
    g.initializers.push_back(t);
  }
  if (g.inputs.empty() || g.inputs[0].elem_type != kFloat) return m;
  // A float case: wrapped in QDQ form with one scale for input and output.
  double max_abs = 0;
  for (const char* f : {"input_0.pb", "output_0.pb"}) {
    for (double v : LoadPb(c, f).values) max_abs = std::max(max_abs, std::fabs(v));
  }
  *scale = static_cast<float>(max_abs / 127);
  g.initializers.push_back(Scalar("h_scale", kFloat, *scale));
  g.initializers.push_back(Scalar("h_zero", kInt8, 0));
  const std::string x = g.inputs[0].name, y = g.outputs.at(0).name;
  std::vector<Node> nodes = {MakeNode("QuantizeLinear", {x, "h_scale", "h_zero"}, "h_xq", "h_q0"),
                             MakeNode("DequantizeLinear", {"h_xq", "h_scale", "h_zero"}, "h_xd",
                                      "h_dq0")};
  for (Node n : g.nodes) {
    for (auto& in : n.inputs) in = in == x ? "h_xd" : in;
    for (auto& out : n.outputs) out = out == y ? "h_yd" : out;
    nodes.push_back(n);
  }
  nodes.push_back(MakeNode("QuantizeLinear", {"h_yd", "h_scale", "h_zero"}, y, "h_q1"));
  g.nodes = nodes;
  g.outputs[0].elem_type = kInt8;
  return m;
}

// A test data tensor as the network's int8 tensor: quantized with `scale` (float data),
// uint8 - 128, int8 as is; 4-D NCHW -> NHWC.
golden::Tensor<int8_t> ToNetwork(const TensorData& t, float scale) {
  std::vector<int8_t> v(t.values.size());
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = t.data_type == kFloat ? Quantize(t.values[i], scale)
                                 : static_cast<int8_t>(ToInt8(t.data_type, t.values[i]));
  }
  if (t.dims.size() != 4) return golden::Tensor<int8_t>(t.dims, v);
  return Transpose4d(t.dims, v, {0, 2, 3, 1});
}

runtime::LayerBackend& Rtl() {
  static std::unique_ptr<runtime::LayerBackend> backend =
      std::make_unique<runtime::DeviceBackend>("rtl", tb::MakeSimulator({}),
                                               runtime::BackendOptions{});
  return *backend;
}

class OnnxConformance : public ::testing::TestWithParam<Case> {};

TEST_P(OnnxConformance, Case) {
  const Case& c = GetParam();
  const std::string model_path = CaseDir(c) + "/model.onnx";
  const Model original = ParseModel(ReadFileBytes(model_path), model_path);
  float scale = 0;
  const Model m = Prepare(c, original, &scale);
  if (!c.run) {
    try {
      ImportModel(m, c.name, {});
      FAIL() << c.name << ": imported, but listed as refused (" << c.reason << ")";
    } catch (const ImportError& e) {
      EXPECT_NE(std::string(e.what()).find(c.reason), std::string::npos)
          << "refused for another reason than '" << c.reason << "': " << e.what();
      std::cout << c.name << ": refused: " << e.what() << "\n";
    }
    return;
  }
  tpu::testing::ScratchDir dir;
  ImportOptions options;
  options.file_prefix = "case_";
  WriteImported(ImportModel(m, c.name, options), dir / "case.json", false);
  const network::Network net = network::LoadNetwork(dir / "case.json");
  const golden::Tensor<int8_t> input = ToNetwork(LoadPb(c, "input_0.pb"), scale);
  const golden::Tensor<int8_t> expected = ToNetwork(LoadPb(c, "output_0.pb"), scale);

  const auto golden_backend = runtime::MakeBackend("golden", runtime::BackendOptions{});
  const network::NetworkRun golden_run = network::RunNetwork(net, input, *golden_backend, {});
  network::RunOptions rtl_options;
  rtl_options.check = true;
  const network::NetworkRun rtl_run = network::RunNetwork(net, input, Rtl(), rtl_options);
  ASSERT_EQ(golden_run.output.shape, expected.shape);
  EXPECT_EQ(rtl_run.output.data, golden_run.output.data) << "rtl differs from golden";
  ASSERT_TRUE(rtl_run.check.has_value());
  EXPECT_TRUE(rtl_run.check->ok());
  int differ = 0, max_diff = 0;
  for (size_t i = 0; i < expected.data.size(); ++i) {
    const int d = std::abs(golden_run.output.data[i] - expected.data[i]);
    differ += d != 0;
    max_diff = std::max(max_diff, d);
  }
  EXPECT_LE(max_diff, 1) << "an element differs from ONNX's by more than 1 LSB";
  if (std::string(c.reason) == "exact") {
    EXPECT_EQ(differ, 0) << "max pooling must be exact";
  }
  std::cout << c.name << ": " << expected.data.size() << " elements, " << differ
            << " differ from ONNX (max " << max_diff << " LSB), rtl bit-exact with golden\n";
  RecordProperty("elements", static_cast<int>(expected.data.size()));
  RecordProperty("differ", differ);
}

INSTANTIATE_TEST_SUITE_P(LibOnnxTestdata, OnnxConformance, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// Every QLinear, MaxPool and AveragePool node test of the installed package is in kCases: a new
// case in the package shows up here instead of being silently left out.
TEST(OnnxConformanceList, CoversEveryRelevantCase) {
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TPU_ONNX_TESTDATA)) {
    const std::string name = entry.path().filename().string();
    const bool relevant = name.rfind("test_qlinear", 0) == 0 ||
                          name.rfind("test_maxpool_", 0) == 0 ||
                          name.rfind("test_averagepool_", 0) == 0;
    if (!relevant) continue;
    ++found;
    EXPECT_TRUE(std::any_of(std::begin(kCases), std::end(kCases),
                            [&](const Case& c) { return name == c.name; }))
        << name << " is not listed";
  }
  EXPECT_EQ(found, static_cast<int>(std::size(kCases)));
}

}  // namespace
}  // namespace tpu::onnx

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
