// The network description (docs/networks.md): shapes and zero points propagated through the
// layers, and every kind of mistake reported with the file, the layer, the field and what was
// expected, before anything runs.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "golden/requant.h"
#include "network/network.h"
#include "network_testing.h"

namespace tpu::network {
namespace {

using testing::NetworkJson;
using testing::SmallLayers;
using testing::WriteSmallNetwork;
using tpu::testing::ScratchDir;

TEST(NetworkParse, PropagatesShapesAndZeroPoints) {
  ScratchDir dir;
  const Network net = LoadNetwork(WriteSmallNetwork(dir));
  EXPECT_EQ(net.name, "small");
  EXPECT_EQ(net.input_shape, (std::vector<int64_t>{2, 6, 6, 3}));
  EXPECT_EQ(net.input_zero_point, 3);
  ASSERT_EQ(net.layers.size(), 6u);
  const std::vector<std::vector<int64_t>> shapes = {{2, 6, 6, 5}, {2, 3, 3, 5}, {2, 3, 3, 5},
                                                    {2, 45},      {2, 7},       {2, 7}};
  const std::vector<int32_t> zero_points = {-2, -2, 1, 1, 4, 4};
  const std::vector<std::string> names = {"conv",        "pool1",   "activation2",
                                          "flatten3",    "fc",      "activation5"};
  for (size_t i = 0; i < shapes.size(); ++i) {
    EXPECT_EQ(net.layers[i].output_shape, shapes[i]) << i;
    EXPECT_EQ(net.layers[i].output_zero_point, zero_points[i]) << i;
    EXPECT_EQ(net.layers[i].name, names[i]) << i;
    if (i > 0) {
      EXPECT_EQ(net.layers[i].input_shape, shapes[i - 1]) << i;
      EXPECT_EQ(net.layers[i].input_zero_point, zero_points[i - 1]) << i;
    }
  }
  const Layer& conv = net.layers[0];
  EXPECT_EQ(conv.type, LayerType::kConv2d);
  EXPECT_EQ(conv.conv.params.input_zero_point, 3);
  EXPECT_EQ(conv.conv.params.padding, golden::Padding::kSame);
  EXPECT_EQ(conv.conv.requant.multipliers.size(), 5u);
  EXPECT_EQ(conv.conv.requant.out_zero_point, -2);
  EXPECT_EQ(conv.conv.requant.act_min, -2);  // relu at the output zero point
  EXPECT_EQ(conv.macs(), 2 * 6 * 6 * 3 * 3 * 3 * 5);
  const Layer& pool = net.layers[1];
  EXPECT_EQ(pool.pool.params.window_h, 2);
  EXPECT_EQ(pool.pool.params.stride_w, 2);  // from "strides"
  EXPECT_TRUE(net.layers[2].activation.lut.has_value());
  const Layer& fc = net.layers[4];
  EXPECT_EQ(fc.dense.input_zero_point, 1);  // the lut's output zero point
  EXPECT_EQ(fc.dense.requant.out_zero_point, 4);
  EXPECT_EQ(fc.macs(), 2 * 45 * 7);
  const Layer& relu = net.layers[5];
  EXPECT_EQ(relu.activation.act_min, 4);
  EXPECT_EQ(relu.activation.act_max, 127);
  EXPECT_EQ(net.output_shape(), (std::vector<int64_t>{2, 7}));
  EXPECT_EQ(net.output_zero_point(), 4);
}

TEST(NetworkParse, DefaultsAndStridesAndValidPadding) {
  ScratchDir dir;
  WriteSmallNetwork(dir);
  const std::string text = NetworkJson(
      {R"({"type": "conv2d", "weights": "cw.npy", "strides": [2, 1], "requant": {"multiplier": 1073741824, "shift": -3}})",
       R"({"type": "pool", "mode": "avg", "window": [2, 3], "strides": [1, 1], "padding": "same"})"},
      R"({"shape": [1, 7, 9, 3]})");
  const Network net = ParseNetwork(text, dir.str(), "t.json");
  EXPECT_EQ(net.input_zero_point, 0);
  EXPECT_EQ(net.layers[0].output_shape, (std::vector<int64_t>{1, 3, 7, 5}));  // valid, 3x3
  EXPECT_EQ(net.layers[0].conv.requant.multipliers[0].shift, -3);
  EXPECT_TRUE(net.layers[0].conv.bias.empty());
  EXPECT_EQ(net.layers[1].output_shape, (std::vector<int64_t>{1, 3, 7, 5}));  // same, stride 1
  EXPECT_EQ(net.layers[1].pool.kind, compiler::PoolKind::kAvg);
}

TEST(NetworkParse, DenseOnlyNetworkWithInlineRequantArrays) {
  ScratchDir dir;
  WriteSmallNetwork(dir);
  const std::string text = NetworkJson(
      {R"({"type": "dense", "weights": "dw.npy", "requant": {"multipliers": [1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824], "shifts": [0, 0, 0, 0, 0, 0, -1]}, "activation": "relu6", "output_scale": 0.1})"},
      R"({"shape": [4, 45]})");
  const Network net = ParseNetwork(text, dir.str(), "t.json");
  EXPECT_EQ(net.output_shape(), (std::vector<int64_t>{4, 7}));
  EXPECT_EQ(net.layers[0].dense.requant.multipliers[6].shift, -1);
  EXPECT_EQ(net.layers[0].dense.requant.act_max, 60);  // 6.0 / 0.1
}


// Scales (docs/networks.md "Scales"): the input's, per-channel float requantization, conv2d's
// and dense's output_scale, kept by pool, relu, relu6, flatten; unknown after a lut unless given.
std::vector<std::string> ScaledLayers() {
  return {
      R"({"type": "conv2d", "name": "conv", "weights": "cw.npy", "padding": "same",
          "output_zero_point": -2, "output_scale": 0.05,
          "requant": {"scales": [0.001, 0.002, 0.003, 0.0004, 0.25]}, "activation": "relu"})",
      R"({"type": "pool", "window": [2, 2]})",
      R"({"type": "activation", "function": "relu"})",
      R"({"type": "flatten"})",
      R"({"type": "dense", "name": "fc", "weights": "dw.npy", "output_zero_point": 4,
          "output_scale": 0.25, "requant": {"scales": "ds.npy"}})",
      R"({"type": "activation", "function": "relu6"})",
  };
}

const std::string kScaledInput = R"({"shape": [2, 6, 6, 3], "zero_point": 3, "scale": 0.02})";

void WriteScales(const tpu::testing::ScratchDir& dir) {
  npy::Write(dir / "ds.npy",
             golden::Tensor<float>({7}, {0.5f, 0.25f, 0.125f, 0.001f, 1e-12f, 0.0f, 0.75f}));
}

TEST(NetworkParse, ScalesFlowAndPerChannelFloatRequant) {
  ScratchDir dir;
  WriteSmallNetwork(dir);
  WriteScales(dir);
  const Network net = ParseNetwork(NetworkJson(ScaledLayers(), kScaledInput), dir.str(), "t.json");
  ASSERT_TRUE(net.input_scale.has_value());
  EXPECT_DOUBLE_EQ(*net.input_scale, 0.02);
  const std::vector<double> scales = {0.05, 0.05, 0.05, 0.05, 0.25, 0.25};
  for (size_t i = 0; i < scales.size(); ++i) {
    ASSERT_TRUE(net.layers[i].output_scale.has_value()) << i;
    EXPECT_DOUBLE_EQ(*net.layers[i].output_scale, scales[i]) << i;
    EXPECT_DOUBLE_EQ(*net.layers[i].input_scale, i == 0 ? 0.02 : scales[i - 1]) << i;
  }
  EXPECT_DOUBLE_EQ(*net.output_scale(), 0.25);
  EXPECT_EQ(net.output_zero_point(), 4);
  // Each per-channel scale is TFLite's QuantizeMultiplier of it, from a JSON array or a float32
  // file alike.
  const std::vector<double> conv = {0.001, 0.002, 0.003, 0.0004, 0.25};
  ASSERT_EQ(net.layers[0].conv.requant.multipliers.size(), 5u);
  for (size_t c = 0; c < conv.size(); ++c) {
    const golden::QuantizedMultiplier want = golden::QuantizeMultiplier(conv[c]);
    EXPECT_EQ(net.layers[0].conv.requant.multipliers[c].multiplier, want.multiplier) << c;
    EXPECT_EQ(net.layers[0].conv.requant.multipliers[c].shift, want.shift) << c;
  }
  const std::vector<float> dense = {0.5f, 0.25f, 0.125f, 0.001f, 1e-12f, 0.0f, 0.75f};
  for (size_t c = 0; c < dense.size(); ++c) {
    const golden::QuantizedMultiplier want = golden::QuantizeMultiplier(double(dense[c]));
    EXPECT_EQ(net.layers[4].dense.requant.multipliers[c].multiplier, want.multiplier) << c;
    EXPECT_EQ(net.layers[4].dense.requant.multipliers[c].shift, want.shift) << c;
  }
  EXPECT_EQ(net.layers[4].dense.requant.multipliers[0].multiplier, 1 << 30);  // 0.5 = 2^30 * 2^-31
  EXPECT_EQ(net.layers[4].dense.requant.multipliers[0].shift, 0);
  EXPECT_EQ(net.layers[4].dense.requant.multipliers[5].multiplier, 0);  // 0: flushed
  // The standalone relu6 takes the scale flowing in: 6.0 / 0.25 = 24 steps above zero point 4.
  EXPECT_EQ(net.layers[5].activation.act_min, 4);
  EXPECT_EQ(net.layers[5].activation.act_max, 28);
  // A float64 file works too.
  npy::Write(dir / "ds.npy", golden::Tensor<double>({7}, std::vector<double>(dense.begin(),
                                                                               dense.end())));
  const Network net64 = ParseNetwork(NetworkJson(ScaledLayers(), kScaledInput), dir.str(), "t.json");
  EXPECT_EQ(net64.layers[4].dense.requant.multipliers[3].multiplier,
            net.layers[4].dense.requant.multipliers[3].multiplier);
}

// Today's files may give a pool's or a standalone relu6's output_scale different from the scale
// flowing in (before scales flowed, it only placed 6.0): they parse as before; the clamp uses
// the given scale, the scale flowing on is the one flowing in (neither layer rescales).
TEST(NetworkParse, ActivationScaleOtherThanTheFlowingOnePlacesItsClampOnly) {
  ScratchDir dir;
  WriteSmallNetwork(dir);
  const Network net = ParseNetwork(
      NetworkJson({R"({"type": "pool", "window": [2, 2], "activation": "relu6", "output_scale": 0.5})",
                   R"({"type": "activation", "function": "relu6", "output_scale": 0.25})"},
                  kScaledInput),
      dir.str(), "t.json");
  EXPECT_EQ(net.layers[0].pool.params.act_max, 3 + 12);  // 6 / 0.5 above zero point 3
  EXPECT_EQ(net.layers[1].activation.act_max, 3 + 24);   // 6 / 0.25
  EXPECT_DOUBLE_EQ(*net.layers[0].output_scale, 0.02);
  EXPECT_DOUBLE_EQ(*net.output_scale(), 0.02);
  // With no scale flowing in, the given one flows on.
  const Network unscaled = ParseNetwork(
      NetworkJson({R"({"type": "activation", "function": "relu6", "output_scale": 0.25})"},
                  R"({"shape": [2, 6, 6, 3]})"),
      dir.str(), "t.json");
  EXPECT_DOUBLE_EQ(*unscaled.output_scale(), 0.25);
}

TEST(NetworkParse, ScalesUnknownWithoutThemAndAfterALut) {
  ScratchDir dir;
  const Network old = LoadNetwork(WriteSmallNetwork(dir));  // today's format: no scales at all
  EXPECT_FALSE(old.input_scale.has_value());
  for (const Layer& layer : old.layers) EXPECT_FALSE(layer.output_scale.has_value()) << layer.name;
  std::vector<std::string> layers = SmallLayers();
  layers[0] = R"({"type": "conv2d", "weights": "cw.npy", "padding": "same", "output_scale": 0.5, "requant": {"scale": 0.01}})";
  Network net = ParseNetwork(NetworkJson(layers), dir.str(), "t.json");
  EXPECT_DOUBLE_EQ(*net.layers[1].output_scale, 0.5);  // the pool keeps it
  EXPECT_FALSE(net.layers[2].output_scale.has_value());  // the lut maps to an unknown scale
  EXPECT_FALSE(net.output_scale().has_value());
  layers[2] = R"({"type": "activation", "function": "lut", "lut": "lut.npy", "output_zero_point": 1, "output_scale": 0.125})";
  net = ParseNetwork(NetworkJson(layers), dir.str(), "t.json");
  EXPECT_DOUBLE_EQ(*net.layers[3].output_scale, 0.125);  // given, then kept by flatten
  EXPECT_FALSE(net.output_scale().has_value());  // the dense gives none
}

// Replaces layer `i` of the small network, or the input when i < 0.
std::string Edited(int i, const std::string& replacement) {
  std::vector<std::string> layers = SmallLayers();
  if (i < 0) return NetworkJson(layers, replacement);
  if (i >= int(layers.size())) {
    layers.push_back(replacement);
  } else {
    layers[size_t(i)] = replacement;
  }
  return NetworkJson(layers);
}

struct BadCase {
  std::string name, json;
  std::vector<std::string> parts;  // every one must be in the message
};

class NetworkParseErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(NetworkParseErrors, NamesTheLayerFieldAndExpectation) {
  ScratchDir dir;
  WriteSmallNetwork(dir);
  WriteScales(dir);
  npy::Write(dir / "nan.npy", golden::Tensor<double>({7}, {0.1, 0.2, std::nan(""), 0.4, 0.5, 0.6, 0.7}));
  const BadCase& c = GetParam();
  try {
    ParseNetwork(c.json, dir.str(), "net.json");
    FAIL() << "no error for " << c.name;
  } catch (const NetworkError& e) {
    const std::string message = e.what();
    for (const auto& part : c.parts) {
      EXPECT_NE(message.find(part), std::string::npos)
          << "message: " << message << "\nexpected to contain: " << part;
    }
  }
}

const std::string kConv1 =
    R"({"type": "conv2d", "weights": "cw.npy", "requant": {"scale": 0.01}})";

INSTANTIATE_TEST_SUITE_P(
    All, NetworkParseErrors,
    ::testing::Values(
        BadCase{"not_json", "{\"input\": ", {"net.json: not valid JSON"}},
        BadCase{"not_object", "[1, 2]", {"expected a JSON object"}},
        BadCase{"no_layers", R"({"input": {"shape": [1, 2]}})", {"\"layers\": missing"}},
        BadCase{"empty_layers", R"({"input": {"shape": [1, 2]}, "layers": []})",
                {"\"layers\"", "non-empty"}},
        BadCase{"bad_input_rank", Edited(-1, R"({"shape": [1, 2, 3]})"),
                {"\"input\"", "\"shape\"", "[B, H, W, C]"}},
        BadCase{"zero_dim", Edited(-1, R"({"shape": [1, 0, 3, 3]})"),
                {"\"shape\"", "dimension 1", ">= 1"}},
        BadCase{"input_zp_range", Edited(-1, R"({"shape": [2, 6, 6, 3], "zero_point": 200})"),
                {"\"zero_point\"", "200", "-128 .. 127"}},
        BadCase{"unknown_top_field",
                R"({"input": {"shape": [1, 2]}, "layers": [{"type": "flatten"}], "layer": 1})",
                {"unknown field \"layer\""}},
        BadCase{"duplicate_top_key",
                R"({"input": {"shape": [1, 2]}, "layers": [{"type": "flatten"}], "name": "a",
                    "name": "b"})",
                {"net.json: the top level: the key \"name\" appears twice"}},
        BadCase{"duplicate_layer_key",
                Edited(1, R"({"type": "pool", "window": [2, 2], "window": [3, 3]})"),
                {"net.json: layers[1]: the key \"window\" appears twice",
                 "give each field once"}},
        BadCase{"unknown_type", Edited(1, R"({"type": "maxpool"})"),
                {"layers[1]", "\"type\"", "\"maxpool\"", "dense, conv2d, pool, activation, flatten"}},
        BadCase{"unknown_layer_field",
                Edited(1, R"({"type": "pool", "window": [2, 2], "stride": [2, 2]})"),
                {"layers[1] (pool \"pool1\")", "unknown field \"stride\"", "takes: activation, mode", "strides"}},
        BadCase{"conv_channels", Edited(4, kConv1),
                {"layers[4] (conv2d \"conv2d4\")", "conv2d needs an NHWC input",
                 "[2, 45]"}},
        BadCase{"conv_cin",
                Edited(5, R"({"type": "conv2d", "weights": "cw.npy", "requant": {"scale": 0.01}})"),
                {"layers[5]", "conv2d needs an NHWC input"}},
        BadCase{"conv_weights_cin",
                NetworkJson({kConv1}, R"({"shape": [1, 6, 6, 4]})"),
                {"layers[0] (conv2d", "\"weights\"", "cw.npy", "shape (3, 3, 3, 5)",
                 "(KH, KW, Cin, Cout)", "Cin = 4"}},
        BadCase{"dense_needs_flatten",
                [] {
                  auto l = SmallLayers();
                  l.erase(l.begin() + 3);
                  return NetworkJson(l);
                }(),
                {"layers[3] (dense \"fc\")", "(M, K) input", "[2, 3, 3, 5]", "flatten"}},
        BadCase{"dense_k",
                NetworkJson({R"({"type": "dense", "weights": "dw.npy", "requant": {"scale": 1}})"},
                            R"({"shape": [2, 44]})"),
                {"layers[0]", "\"weights\"", "shape (45, 7)", "K = 44"}},
        BadCase{"input_zero_point_mismatch",
                Edited(4, R"({"type": "dense", "weights": "dw.npy", "input_zero_point": 0,
                             "requant": {"scale": 0.004}})"),
                {"layers[4]", "\"input_zero_point\"", "0 differs", "1",
                 "zero points flow from layer to layer"}},
        BadCase{"missing_requant", Edited(4, R"({"type": "dense", "weights": "dw.npy"})"),
                {"layers[4]", "\"requant\": missing"}},
        BadCase{"two_requants",
                Edited(4, R"({"type": "dense", "weights": "dw.npy",
                             "requant": {"scale": 0.5, "multiplier": 5, "shift": 1}})"),
                {"layers[4]", "\"requant\"", "two requantizations"}},
        BadCase{"requant_shift_range",
                Edited(4, R"({"type": "dense", "weights": "dw.npy",
                             "requant": {"multiplier": 1073741824, "shift": 31}})"),
                {"\"requant\"", "\"shift\"", "31", "-31 .. 30"}},
        BadCase{"per_channel_count",
                Edited(4, R"({"type": "dense", "weights": "dw.npy",
                             "requant": {"multipliers": "cm.npy", "shifts": "cs.npy"}})"),
                {"layers[4]", "\"multipliers\"", "cm.npy", "shape (5,)", "expected (7,)"}},
        BadCase{"input_scale_zero",
                Edited(-1, R"({"shape": [2, 6, 6, 3], "scale": 0})"),
                {"\"input\"", "\"scale\"", "finite number > 0"}},
        BadCase{"input_scale_negative",
                Edited(-1, R"({"shape": [2, 6, 6, 3], "scale": -0.5})"),
                {"\"input\"", "\"scale\"", "-0.5", "finite number > 0"}},
        BadCase{"input_scale_string",
                Edited(-1, R"({"shape": [2, 6, 6, 3], "scale": "0.1"})"),
                {"\"input\"", "\"scale\"", "expected a number, got a string"}},
        BadCase{"output_scale_zero",
                Edited(4, R"({"type": "dense", "weights": "dw.npy", "output_scale": 0,
                             "requant": {"scale": 0.004}})"),
                {"layers[4]", "\"output_scale\"", "finite number > 0"}},
        BadCase{"requant_scales_count",
                Edited(4, R"({"type": "dense", "weights": "dw.npy",
                             "requant": {"scales": [0.1, 0.2]}})"),
                {"layers[4]", "\"scales\"", "an array of 2 values", "expected 7"}},
        BadCase{"requant_scales_negative",
                Edited(4, R"({"type": "dense", "weights": "dw.npy",
                             "requant": {"scales": [0.1, 0.2, 0.3, -0.4, 0.5, 0.6, 0.7]}})"),
                {"layers[4]", "\"scales\"", "scale[3] = -0.4"}},
        BadCase{"requant_scales_not_number",
                Edited(4, R"({"type": "dense", "weights": "dw.npy",
                             "requant": {"scales": [0.1, 0.2, 0.3, "x", 0.5, 0.6, 0.7]}})"),
                {"layers[4]", "\"scales[3]\"", "expected a number, got a string"}},
        BadCase{"requant_scales_int_file",
                Edited(4, R"({"type": "dense", "weights": "dw.npy",
                             "requant": {"scales": "db.npy"}})"),
                {"layers[4]", "\"scales\"", "db.npy", "expected float32 ('<f4') or float64"}},
        BadCase{"requant_scales_file_shape",
                Edited(0, R"({"type": "conv2d", "weights": "cw.npy",
                             "requant": {"scales": "ds.npy"}})"),
                {"layers[0]", "\"scales\"", "ds.npy", "shape (7,)", "expected (5,)"}},
        BadCase{"requant_scales_nan_file",
                Edited(4, R"({"type": "dense", "weights": "dw.npy",
                             "requant": {"scales": "nan.npy"}})"),
                {"layers[4]", "\"scales\"", "scale[2] = nan"}},
        BadCase{"requant_scales_and_multipliers",
                Edited(4, R"({"type": "dense", "weights": "dw.npy",
                             "requant": {"scales": "ds.npy", "multipliers": "cm.npy", "shifts": "cs.npy"}})"),
                {"layers[4]", "two requantizations", "{\"scales\": F.npy}"}},
        BadCase{"clamp_with_scale",
                Edited(2, R"({"type": "activation", "function": "clamp", "output_scale": 0.5})"),
                {"layers[2]", "\"output_scale\"", "a clamp keeps its input's scale"}},
        BadCase{"relu6_without_scale",
                Edited(4, R"({"type": "dense", "weights": "dw.npy", "activation": "relu6",
                             "requant": {"scale": 0.004}})"),
                {"layers[4]", "\"activation\"", "relu6 needs \"output_scale\""}},
        BadCase{"bias_length",
                Edited(4, R"({"type": "dense", "weights": "dw.npy", "bias": "cb.npy",
                             "requant": {"scale": 0.004}})"),
                {"layers[4]", "\"bias\"", "cb.npy", "expected (7,)", "one per output channel"}},
        BadCase{"bias_dtype",
                Edited(4, R"({"type": "dense", "weights": "dw.npy", "bias": "dw.npy",
                             "requant": {"scale": 0.004}})"),
                {"layers[4]", "\"bias\"", "dw.npy", "int32"}},
        BadCase{"weights_missing_file",
                Edited(4, R"({"type": "dense", "weights": "nope.npy", "requant": {"scale": 1}})"),
                {"layers[4]", "\"weights\"", "nope.npy"}},
        BadCase{"weights_dtype",
                Edited(4, R"({"type": "dense", "weights": "db.npy", "requant": {"scale": 1}})"),
                {"layers[4]", "\"weights\"", "db.npy", "int8"}},
        BadCase{"lut_shape", Edited(2, R"({"type": "activation", "function": "lut", "lut": "cw.npy"})"),
                {"layers[2]", "\"lut\"", "expected (256,)"}},
        BadCase{"relu_with_zero_point",
                Edited(2, R"({"type": "activation", "function": "relu", "output_zero_point": 3})"),
                {"layers[2]", "\"output_zero_point\"", "only a \"lut\""}},
        BadCase{"clamp_order",
                Edited(2, R"({"type": "activation", "function": "clamp", "min": 5, "max": 4})"),
                {"layers[2]", "\"max\"", "below \"min\""}},
        BadCase{"pool_window_too_big",
                Edited(1, R"({"type": "pool", "window": [7, 2]})"),
                {"layers[1] (pool", "\"window\"", "[2, 6, 6, 5]"}},
        BadCase{"pool_window_device_limit",
                NetworkJson({R"({"type": "pool", "window": [16, 1]})"},
                            R"({"shape": [1, 20, 20, 3]})"),
                {"layers[0] (pool", "window height 16", "[1, 15]"}},
        BadCase{"pool_window_pair",
                Edited(1, R"({"type": "pool", "window": [2]})"),
                {"layers[1]", "\"window\"", "[height, width]"}},
        BadCase{"pool_needs_nhwc", Edited(5, R"({"type": "pool", "window": [2, 2]})"),
                {"layers[5]", "pool needs an NHWC input", "[2, 7]"}},
        BadCase{"padding_value",
                Edited(1, R"({"type": "pool", "window": [2, 2], "padding": "SAME"})"),
                {"layers[1]", "\"padding\"", "\"SAME\"", "valid, same"}},
        BadCase{"strides_type",
                Edited(1, R"({"type": "pool", "window": [2, 2], "strides": [2, "2"]})"),
                {"layers[1]", "\"strides[1]\"", "expected an integer, got a string"}},
        BadCase{"duplicate_names",
                Edited(6, R"({"type": "activation", "name": "fc", "function": "relu"})"),
                {"layers[6]", "\"fc\"", "unique"}},
        BadCase{"layer_not_object", Edited(1, "3"), {"layers[1]", "expected an object"}}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return info.param.name; });

TEST(NetworkParse, MissingFileAndInputShape) {
  EXPECT_THROW(LoadNetwork("/nonexistent/net.json"), NetworkError);
  ScratchDir dir;
  const Network net = LoadNetwork(WriteSmallNetwork(dir));
  try {
    CheckNetworkInput(net, golden::Tensor<int8_t>({2, 6, 6, 4}), "--input x.npy");
    FAIL();
  } catch (const NetworkError& e) {
    EXPECT_NE(std::string(e.what()).find("--input x.npy: shape (2, 6, 6, 4): expected (2, 6, 6, 3)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(CheckNetworkInput(net, golden::Tensor<int8_t>({2, 6, 6, 3}), "x"));
}

}  // namespace
}  // namespace tpu::network
