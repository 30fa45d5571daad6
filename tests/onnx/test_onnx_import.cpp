// The ONNX mapping (host_driver/onnx/onnx_import.h) on the committed models (tests/onnx/models,
// make_models.py): the layers written, the layouts (OIHW -> HWIO, C,H,W dense rows -> H,W,C),
// the network's result on the golden reference against ONNX's float semantics (within 1 LSB),
// every refusal naming the node, the attribute and what would work; the writer (no overwrite
// without --force, nothing written on error) and `tpu import` as users run it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "network/network.h"
#include "network/network_run.h"
#include "npy/npy.h"
#include "npy/scratch_dir.h"
#include "onnx/onnx_import.h"
#include "onnx/onnx_import_ops.h"
#include "onnx/onnx_model.h"
#include "onnx/onnx_write.h"

namespace tpu::onnx {
namespace {

using tpu::testing::ScratchDir;

std::string ModelPath(const std::string& file) { return std::string(TPU_ONNX_MODELS) + "/" + file; }

Model Load(const std::string& file) {
  return ParseModel(ReadFileBytes(ModelPath(file)), file);
}

Node& FindNode(Model& m, const std::string& name) {
  for (Node& n : m.graph.nodes) {
    if (n.name == name) return n;
  }
  throw std::runtime_error("no node " + name);
}

// Imports `m` into `dir`, loads it with the network parser, runs the golden reference on the
// committed input and returns how many elements differ from ONNX's result (each must be within
// 1 LSB).
int GoldenDiffers(const Model& m, const std::string& stem, const ScratchDir& dir,
                  network::Network* loaded = nullptr) {
  ImportOptions options;
  options.file_prefix = stem + "_";
  const std::string json = dir / (stem + ".json");
  WriteImported(ImportModel(m, stem, options), json, false);
  const network::Network net = network::LoadNetwork(json);
  if (loaded != nullptr) *loaded = net;
  const auto input = npy::Read<int8_t>(ModelPath(stem + "_input.npy"));
  const auto expected = npy::Read<int8_t>(ModelPath(stem + "_expected.npy"));
  const auto output = network::ReferenceNetwork(net, input);
  EXPECT_EQ(output.shape, expected.shape);
  int differ = 0;
  for (size_t i = 0; i < output.data.size() && i < expected.data.size(); ++i) {
    const int d = std::abs(output.data[i] - expected.data[i]);
    EXPECT_LE(d, 1) << stem << " element " << i;
    differ += d != 0;
  }
  return differ;
}

TEST(OnnxImport, QdqCnnMapsEveryLayoutExactly) {
  const Model m = Load("qdq_cnn.onnx");
  const ImportedNetwork net = ImportModel(m, "qdq_cnn.onnx", {"qdq", "q_"});
  const auto& layers = net.description["layers"];
  ASSERT_EQ(layers.size(), 4u) << net.description.dump(2);
  EXPECT_EQ(layers[0]["type"], "conv2d");
  EXPECT_EQ(layers[0]["name"], "conv1");
  EXPECT_EQ(layers[0]["padding"], "same");
  EXPECT_EQ(layers[0]["activation"], "relu");  // Relu fused into the conv's clamp
  EXPECT_TRUE(layers[0]["requant"].contains("multipliers"));  // per-channel weight scales
  EXPECT_EQ(layers[1]["type"], "pool");
  EXPECT_EQ(layers[2]["type"], "flatten");
  EXPECT_EQ(layers[3]["type"], "dense");
  EXPECT_EQ(net.description["input"]["shape"], (std::vector<int64_t>{2, 6, 6, 1}));
  EXPECT_EQ(net.description["input"]["zero_point"], -3);
  EXPECT_FLOAT_EQ(net.description["input"]["scale"].get<double>(), 0.02f);
  // OIHW (4, 1, 3, 3) -> HWIO (3, 3, 1, 4): w[o=2][0][y=1][x=0] lands at [1][0][0][2].
  const TensorData& w1 = [&]() -> const TensorData& {
    for (const auto& t : m.graph.initializers)
      if (t.name == "w1") return t;
    throw std::runtime_error("w1");
  }();
  const NpyFile& conv_w = net.files[0];
  EXPECT_EQ(conv_w.name, "q_conv1_weights.npy");
  EXPECT_EQ(conv_w.int8.shape, (std::vector<int64_t>{3, 3, 1, 4}));
  EXPECT_EQ(conv_w.int8.data[((1 * 3 + 0) * 1 + 0) * 4 + 2], w1.values[(2 * 9) + 1 * 3 + 0]);
  // The end to end check is what proves the dense rows' permutation: without it the flattened
  // (C,H,W) features would meet the wrong weights and miss by far more than 1 LSB.
  ScratchDir dir;
  const int differ = GoldenDiffers(m, "qdq_cnn", dir);
  std::cout << "qdq_cnn: " << differ << " of 6 outputs differ by 1 LSB from ONNX's float\n";
}

TEST(OnnxImport, QLinearMlpMapsUint8Exactly) {
  const Model m = Load("qlinear_mlp.onnx");
  ScratchDir dir;
  network::Network net;
  const int differ = GoldenDiffers(m, "qlinear_mlp", dir, &net);
  ASSERT_EQ(net.layers.size(), 3u);
  EXPECT_EQ(net.input_zero_point, 2);  // uint8 130 - 128
  EXPECT_EQ(net.layers[1].activation.act_min, -18);  // Clip [110, 250] on uint8
  EXPECT_EQ(net.layers[1].activation.act_max, 122);
  std::cout << "qlinear_mlp: " << differ << " of 12 outputs differ by 1 LSB\n";
}

// Per-channel int8 zero points 100, -90, 0 put the centred weights outside int8: the conv reads
// its input twice (a 1x1 conv2d with identity blocks, scale 1) and its weights are split into two
// int8 parts; exact, so the result matches ONNX's as closely as any other conv.
TEST(OnnxImport, AsymmetricWeightsAreSplitExactly) {
  ScratchDir dir;
  network::Network net;
  const int differ = GoldenDiffers(Load("qdq_conv_asym.onnx"), "qdq_conv_asym", dir, &net);
  ASSERT_EQ(net.layers.size(), 2u);
  EXPECT_EQ(net.layers[0].name, "conv_copies");
  EXPECT_EQ(net.layers[0].output_shape, (std::vector<int64_t>{1, 7, 7, 4}));
  EXPECT_EQ(net.layers[1].input_zero_point, 10);
  EXPECT_EQ(differ, 0);
  // The parts of uint8 weights 255, 2, 0 with zero point 0 (no common factor; 255 needs three
  // int8 parts), block by block.
  TensorData w, scale, zp;
  w.name = "w";
  w.data_type = zp.data_type = kUint8;
  w.dims = {3, 1};
  w.values = {255, 2, 0};
  scale.values = {0.5};
  zp.values = {0};
  Node node;
  node.name = "n";
  node.op_type = "MatMul";
  const SymmetricWeights sw = ConvertWeights(node, w, scale, &zp, 1, nullptr);
  ASSERT_EQ(sw.pieces, 3);
  EXPECT_EQ(sw.values, (std::vector<int8_t>{85, 1, 0, 85, 1, 0, 85, 0, 0}));
}

// Each mutation of a model the importer takes makes it refuse, naming the node, its op type and
// the attribute or input, and what would work.
TEST(OnnxImport, RefusesWhatTheDeviceCannotRunNamingTheNode) {
  struct Case {
    const char* what;
    const char* file;
    std::function<void(Model&)> mutate;
    std::vector<std::string> expect;
  };
  auto set_attr = [](Model& m, const std::string& node, const std::string& name,
                     std::vector<int64_t> ints, int64_t i = 0, std::string s = "") {
    Node& n = FindNode(m, node);
    Attribute a;
    a.name = name;
    a.ints = std::move(ints);
    a.i = i;
    a.s = std::move(s);
    n.attributes.push_back(a);
  };
  const std::vector<Case> cases = {
      {"group", "qdq_cnn.onnx", [&](Model& m) { set_attr(m, "conv1", "group", {}, 2); },
       {"node 'conv1' (Conv)", "group = 2", "group = 1"}},
      {"dilations", "qdq_cnn.onnx", [&](Model& m) { set_attr(m, "conv1", "dilations", {2, 2}); },
       {"node 'conv1' (Conv)", "dilations != 1"}},
      {"pads", "qdq_cnn.onnx",
       [&](Model& m) {
         FindNode(m, "conv1").attributes.clear();
         set_attr(m, "conv1", "pads", {0, 1, 1, 0});
       },
       {"node 'conv1' (Conv)", "pads [0, 1, 1, 0]", "SAME (here [1, 1, 1, 1]"}},
      {"auto_pad", "qdq_cnn.onnx",
       [&](Model& m) {
         set_attr(m, "pool1", "auto_pad", {}, 0, "SAME_LOWER");
         FindNode(m, "pool1").attributes[0].ints = {3, 3};  // 3x3 stride 2 on 6: pads 0 + 1
       },
       {"node 'pool1' (MaxPool)", "SAME_LOWER", "SAME_UPPER"}},
      {"float weights", "qlinear_mlp.onnx",
       [](Model& m) {
         for (auto& t : m.graph.initializers)
           if (t.name == "w1") t.data_type = kFloat;
       },
       {"node 'fc1' (QLinearMatMul)", "weights 'w1' are float", "int8"}},
      {"per-channel activation scale", "qlinear_mlp.onnx",
       [](Model& m) {
         for (auto& t : m.graph.initializers)
           if (t.name == "s1") t.values = {0.05, 0.05}, t.dims = {2};
       },
       {"node 'fc1' (QLinearMatMul)", "per-channel activation scale"}},
      {"operator", "qdq_cnn.onnx", [](Model& m) { FindNode(m, "relu1").op_type = "Sigmoid"; },
       {"node 'relu1' (Sigmoid)", "no device mapping", "QLinearConv"}},
      {"branch", "qdq_cnn.onnx", [](Model& m) { FindNode(m, "dq2").inputs[0] = "r1q"; },
       {"node 'dq2' (DequantizeLinear)", "chain"}},
      {"requantizing pool", "qdq_cnn.onnx", [](Model& m) { FindNode(m, "q2").inputs[1] = "s2"; },
       {"node 'q2' (QuantizeLinear)", "rescales only in conv and dense"}},
      {"ceil_mode", "qdq_cnn.onnx",
       [&](Model& m) {
         set_attr(m, "pool1", "ceil_mode", {}, 1);
         FindNode(m, "pool1").attributes[0].ints = {3, 3};  // kernel 3, stride 2 on 6: 2 vs 3
       },
       {"node 'pool1' (MaxPool)", "ceil_mode = 1"}},
  };
  for (const Case& c : cases) {
    Model m = Load(c.file);
    c.mutate(m);
    try {
      ImportModel(m, c.file, {});
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const ImportError& e) {
      for (const std::string& s : c.expect) {
        EXPECT_NE(std::string(e.what()).find(s), std::string::npos)
            << c.what << ": '" << s << "' not in: " << e.what();
      }
    }
  }
}

TEST(OnnxWrite, RefusesToOverwriteAndWritesNothingOnError) {
  ScratchDir dir;
  const ImportedNetwork net = ImportModel(Load("qlinear_mlp.onnx"), "m", {"mlp", "mlp_"});
  const std::string json = dir / "mlp.json";
  WriteImported(net, json, false);
  const auto paths = OutputPaths(net, json);
  ASSERT_EQ(paths.size(), 1 + net.files.size());
  for (const auto& p : paths) EXPECT_TRUE(std::filesystem::exists(p)) << p;
  // One existing file: refused, naming it, nothing touched.
  std::filesystem::remove(json);
  try {
    WriteImported(net, json, false);
    ADD_FAILURE() << "overwrote";
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find(paths[1]), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--force"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(json));
  WriteImported(net, json, true);
  EXPECT_TRUE(std::filesystem::exists(json));
  EXPECT_THROW(WriteImported(net, dir / "missing/net.json", false), ImportError);
}

std::string RunTpu(const std::string& args, int* status) {
  const std::string cmd = std::string(TPU_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  *status = WEXITSTATUS(pclose(pipe));
  return out;
}

TEST(TpuImport, ImportsRunsAndRefuses) {
  ScratchDir dir;
  int status = 0;
  const std::string model = ModelPath("qdq_cnn.onnx");
  std::string out = RunTpu("import " + model + " --output " + (dir / "net.json"), &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("conv2d 'conv1' <- node 'conv1' (Conv)"), std::string::npos) << out;
  EXPECT_NE(out.find("NCHW"), std::string::npos) << out;
  out = RunTpu("run " + (dir / "net.json") + " --input " + ModelPath("qdq_cnn_input.npy") +
                " --output " + (dir / "y.npy") + " --backend golden --check",
            &status);
  EXPECT_EQ(status, 0) << out;
  // Again: every file exists.
  out = RunTpu("import " + model + " --output " + (dir / "net.json"), &status);
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("would overwrite"), std::string::npos) << out;
  out = RunTpu("import " + model + " --output " + (dir / "net.json") + " --force", &status);
  EXPECT_EQ(status, 0) << out;
  // Not a model.
  out = RunTpu("import " + ModelPath("qdq_cnn_input.npy") + " --output " + (dir / "bad.json"),
            &status);
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("tpu import: error: "), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.json"));
}

}  // namespace
}  // namespace tpu::onnx
