// Data-set runs (docs/networks.md "Data sets"): float input quantized as TFLite's Quantize does,
// the output dequantized, ReLU folding bit-exact with the network as written, images split into
// batches (the last partial) on the golden backend and the ISA reference machine, and top-1
// accuracy with its confusion matrix on a case worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "golden/tensor.h"
#include "model_backend.h"
#include "network/accuracy.h"
#include "network/dataset_run.h"
#include "network/fold.h"
#include "network/network.h"
#include "network/network_run.h"
#include "network/quantization.h"
#include "network_testing.h"

namespace tpu::network {
namespace {

using golden::Tensor;
using testing::NetworkJson;
using testing::RandomInt8;
using testing::SmallLayers;
using testing::WriteSmallNetwork;
using tpu::testing::ScratchDir;

template <typename Fn>
void ExpectNetworkError(Fn&& fn, const std::vector<std::string>& parts) {
  try {
    fn();
  } catch (const NetworkError& e) {
    for (const auto& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "message: " << e.what() << "\nexpected to contain: " << part;
    }
    return;
  }
  ADD_FAILURE() << "no NetworkError; expected one containing: " << parts.front();
}

// ---------------------------------------------------------------------------------------------
// Float ends

TEST(Quantization, TfLiteQuantizeRoundsHalfAwayFromZeroAndClamps) {
  // scale 0.5, zero point 3: x / 0.5 steps, ties away from zero, then + 3, clamped to int8.
  const Tensor<double> x({10}, {0.25, -0.25, 0.75, -0.75, 0.0, 1.0, 100.0, -100.0, 1e30, -0.1});
  const Tensor<int8_t> q = QuantizeReal(x, 0.5, 3, "x");
  EXPECT_EQ(q.shape, x.shape);
  EXPECT_EQ(q.data, (std::vector<int8_t>{4, 2, 5, 1, 3, 5, 127, -128, 127, 3}));
  // In float32, as TFLite computes it: 0.15f / 0.1f is exactly 1.5f (rounds to 2), where
  // 0.15 / 0.1 in double is 1.4999999999999998 (would round to 1); 0.65f / 0.1f is 6.4999995f
  // (6), where double gives 6.5 (7).
  ASSERT_EQ(0.15f / 0.1f, 1.5f);
  ASSERT_LT(0.15 / 0.1, 1.5);
  EXPECT_EQ(QuantizeReal(Tensor<double>({2}, {0.15, 0.65}), 0.1, 0, "x").data,
            (std::vector<int8_t>{2, 6}));
  ExpectNetworkError(
      [] {
        QuantizeReal(Tensor<double>({3}, {1.0, std::numeric_limits<double>::quiet_NaN(), 2.0}),
                     0.5, 0, "--input: x.npy");
      },
      {"--input: x.npy: element 1", "nan", "finite"});
  ExpectNetworkError(
      [] { QuantizeReal(Tensor<double>({1}, {1e300}), 0.5, 0, "x"); },  // inf as float32
      {"x: element 0", "finite"});
}

TEST(Quantization, DequantizeIsScaleTimesOffset) {
  const Tensor<float> y = DequantizeInt8(Tensor<int8_t>({2, 2}, {-128, 3, 127, 0}), 0.5, 3);
  EXPECT_EQ(y.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(y.data, (std::vector<float>{-65.5f, 0.0f, 62.0f, -1.5f}));
}

// ---------------------------------------------------------------------------------------------
// ReLU folding

// Networks over the small network's files: conv2d (5 channels, 6x6 same) -> ... -> dense (7).
const std::string kConv =
    R"({"type": "conv2d", "name": "conv", "weights": "cw.npy", "bias": "cb.npy", "padding": "same",
        "output_zero_point": -2, "requant": {"multipliers": "cm.npy", "shifts": "cs.npy"}})";
const std::string kDense =
    R"({"type": "dense", "name": "fc", "weights": "dw.npy", "bias": "db.npy",
        "requant": {"scale": 0.004}, "output_zero_point": 4})";

Network Parse(const ScratchDir& dir, const std::vector<std::string>& layers) {
  return ParseNetwork(NetworkJson(layers), dir.str(), "net.json");
}

// ReferenceNetwork of both on random and extreme inputs.
void ExpectSameReference(const Network& a, const Network& b) {
  std::mt19937 rng(7);
  for (int i = 0; i < 20; ++i) {
    Tensor<int8_t> x = RandomInt8(a.input_shape, rng);
    if (i == 1) std::fill(x.data.begin(), x.data.end(), int8_t(-128));
    if (i == 2) std::fill(x.data.begin(), x.data.end(), int8_t(127));
    ASSERT_EQ(ReferenceNetwork(a, x).data, ReferenceNetwork(b, x).data) << "input " << i;
  }
}

TEST(Fold, ReluAfterConvThroughMaxPoolAndRelu6AfterDense) {
  ScratchDir dir;
  WriteSmallNetwork(dir);
  const Network net = Parse(
      dir, {kConv, R"({"type": "pool", "window": [2, 2]})",
            R"({"type": "activation", "name": "r", "function": "relu"})",
            R"({"type": "flatten"})", kDense,
            R"({"type": "activation", "name": "r6", "function": "relu6", "output_scale": 0.05})"});
  const FoldedNetwork f = FoldActivations(net);
  ASSERT_EQ(f.folded.size(), 2u);
  EXPECT_EQ(f.folded[0].name, "r");
  EXPECT_EQ(f.folded[0].index, 2);
  EXPECT_EQ(f.folded[0].into, "conv");
  EXPECT_EQ(f.folded[1].name, "r6");
  EXPECT_EQ(f.folded[1].into, "fc");
  ASSERT_EQ(f.network.layers.size(), 4u);
  EXPECT_EQ(f.network.layers[0].conv.requant.act_min, -2);  // relu at zero point -2
  EXPECT_EQ(f.network.layers[0].conv.requant.act_max, 127);
  EXPECT_EQ(f.network.layers[3].dense.requant.act_min, 4);
  EXPECT_EQ(f.network.layers[3].dense.requant.act_max, 4 + 120);  // 6 / 0.05
  EXPECT_EQ(f.network.layers[3].index, 4);  // names and indices of the file kept
  EXPECT_EQ(f.network.output_shape(), net.output_shape());
  EXPECT_EQ(f.network.output_zero_point(), net.output_zero_point());
  EXPECT_NE(f.network.layers[0].summary.find("+ r [-2, 127]"), std::string::npos);
  ExpectSameReference(net, f.network);
}

TEST(Fold, NotThroughAvgPoolLutOrDisjointClamps) {
  ScratchDir dir;
  WriteSmallNetwork(dir);
  const std::vector<std::vector<std::string>> unfoldable = {
      // the mean of clamped values is not the clamped mean
      {kConv, R"({"type": "pool", "mode": "avg", "window": [2, 2]})",
       R"({"type": "activation", "function": "relu"})"},
      // a lut is not a clamp, and a relu after it has no conv2d/dense to go into
      {kConv, R"({"type": "activation", "function": "lut", "lut": "lut.npy"})",
       R"({"type": "activation", "function": "relu"})"},
      // the first layer has nothing before it
      {R"({"type": "activation", "function": "relu"})", kConv},
      // the ranges do not meet: conv's relu6 is [-2, 58], the clamp [100, 127]
      {R"({"type": "conv2d", "weights": "cw.npy", "padding": "same", "output_zero_point": -2,
           "requant": {"scale": 0.01}, "activation": "relu6", "output_scale": 0.1})",
       R"({"type": "activation", "function": "clamp", "min": 100})"},
      // a max pool whose own clamp [-2, 58] misses the clamp [100, 127]: they do not commute
      {kConv,
       R"({"type": "pool", "window": [2, 2], "activation": "relu6", "output_scale": 0.1})",
       R"({"type": "activation", "function": "clamp", "min": 100})"},
  };
  for (size_t i = 0; i < unfoldable.size(); ++i) {
    const Network net = Parse(dir, unfoldable[i]);
    const FoldedNetwork f = FoldActivations(net);
    EXPECT_TRUE(f.folded.empty()) << i;
    EXPECT_EQ(f.network.layers.size(), net.layers.size()) << i;
  }
  // A clamp after a max pool with a clamp that meets it, and two activations in a row into the
  // same dense layer: all folded, bit-exact.
  const Network net = Parse(
      dir, {kConv, R"({"type": "pool", "window": [2, 2], "activation": "relu"})",
            R"({"type": "activation", "function": "clamp", "min": -50, "max": 40})",
            R"({"type": "flatten"})", kDense, R"({"type": "activation", "function": "relu"})",
            R"({"type": "activation", "function": "clamp", "max": 30})"});
  const FoldedNetwork f = FoldActivations(net);
  EXPECT_EQ(f.folded.size(), 3u);
  EXPECT_EQ(f.network.layers.size(), 4u);
  EXPECT_EQ(f.network.layers[3].dense.requant.act_min, 4);
  EXPECT_EQ(f.network.layers[3].dense.requant.act_max, 30);
  ExpectSameReference(net, f.network);
}

// The folded network on the ISA reference machine (bit-exact with the RTL by design) against
// the golden reference of the network as written, with one device program less.
TEST(Fold, FoldedNetworkOnTheDeviceModelMatchesTheReference) {
  ScratchDir dir;
  const Network net = LoadNetwork(WriteSmallNetwork(dir));  // ... dense -> relu
  const FoldedNetwork f = FoldActivations(net);
  ASSERT_EQ(f.folded.size(), 1u);
  const Tensor<int8_t> x = npy::Read<int8_t>(dir / "x.npy");
  testing::ModelBackend backend;
  const NetworkRun run = RunNetwork(f.network, x, backend);
  EXPECT_EQ(run.output.data, ReferenceNetwork(net, x).data);
  EXPECT_EQ(backend.programs(), 4);  // conv, pool, lut, dense: the relu rode on the dense
}

// ---------------------------------------------------------------------------------------------
// Batches

TEST(Batches, SizesShapesAndImageCounts) {
  EXPECT_EQ(BatchSizes(5, 2), (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(BatchSizes(4, 2), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(BatchSizes(1, 3), (std::vector<int64_t>{1}));
  EXPECT_EQ(BatchSizes(2000, 1).size(), 2000u);
  ScratchDir dir;
  const Network net = LoadNetwork(WriteSmallNetwork(dir));
  const Network n7 = WithBatch(net, 7);
  EXPECT_EQ(n7.input_shape, (std::vector<int64_t>{7, 6, 6, 3}));
  EXPECT_EQ(n7.layers[3].output_shape, (std::vector<int64_t>{7, 45}));
  EXPECT_EQ(n7.output_shape(), (std::vector<int64_t>{7, 7}));
  EXPECT_EQ(n7.layers[0].macs(), net.layers[0].macs() / 2 * 7);
  EXPECT_EQ(CountImages(net, {9, 6, 6, 3}, "x"), 9);
  ExpectNetworkError([&] { CountImages(net, {9, 6, 6, 4}, "--input: x.npy"); },
                     {"--input: x.npy: shape (9, 6, 6, 4)", "expected (n, 6, 6, 3)"});
  ExpectNetworkError([&] { CountImages(net, {9, 36, 3}, "x"); }, {"expected (n, 6, 6, 3)"});
  ExpectNetworkError([&] { CountImages(net, {0, 6, 6, 3}, "x"); }, {"no images"});
}

// Five images in batches of 2 (2, 2, 1) give what one batch of five gives, on the golden backend
// and on the device model; the figures and checks are the sums over the batches.
TEST(Batches, PartialLastBatchMatchesOneBigBatch) {
  ScratchDir dir;
  const Network net = FoldActivations(LoadNetwork(WriteSmallNetwork(dir))).network;
  std::mt19937 rng(11);
  const Tensor<int8_t> x = RandomInt8({5, 6, 6, 3}, rng);
  const Tensor<int8_t> want = ReferenceNetwork(WithBatch(net, 5), x);
  DatasetOptions options;
  options.run.check = true;
  std::vector<int64_t> seen;
  options.before_batch = [&](int64_t b, int64_t batches, int64_t done, int64_t images) {
    EXPECT_EQ(batches, 3);
    EXPECT_EQ(images, 5);
    EXPECT_EQ(done, 2 * b);
    seen.push_back(b);
  };
  const std::unique_ptr<runtime::LayerBackend> golden = runtime::MakeBackend("golden", {});
  const DatasetRun g = RunDataset(net, x, *golden, options);
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(g.images, 5);
  EXPECT_EQ(g.batch, 2);  // the network file's
  EXPECT_EQ(g.batches, 3);
  EXPECT_EQ(g.run.output.shape, (std::vector<int64_t>{5, 7}));
  EXPECT_EQ(g.run.output.data, want.data);
  ASSERT_TRUE(g.run.check.has_value());
  EXPECT_TRUE(g.run.check->ok());
  EXPECT_EQ(g.run.check->total, 35u);

  options.before_batch = nullptr;
  testing::ModelBackend model;
  const DatasetRun m = RunDataset(net, x, model, options);
  EXPECT_EQ(m.run.output.data, want.data);
  EXPECT_EQ(model.programs(), 3 * 4);  // 4 device layers per batch
  // Each layer's figures are the sums of its three runs.
  testing::ModelBackend one;
  std::vector<int64_t> cycles(net.layers.size(), 0);
  for (const auto& [first, size] : std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {2, 2}, {4, 1}}) {
    const Network nb = WithBatch(net, size);
    const Tensor<int8_t> xb(nb.input_shape,
                            std::vector<int8_t>(x.data.begin() + first * 108,
                                                x.data.begin() + (first + size) * 108));
    const NetworkRun r = RunNetwork(nb, xb, one);
    for (size_t i = 0; i < r.layers.size(); ++i) cycles[i] += r.layers[i].stats.cycles.value_or(0);
  }
  for (size_t i = 0; i < net.layers.size(); ++i) {
    EXPECT_EQ(m.run.layers[i].stats.cycles.value_or(0), cycles[i]) << i;
    if (m.run.layers[i].check) {
      EXPECT_TRUE(m.run.layers[i].check->ok()) << i;
    }
  }
  // --batch 3: 3 + 2.
  options.batch = 3;
  const DatasetRun b3 = RunDataset(net, x, *golden, options);
  EXPECT_EQ(b3.batches, 2);
  EXPECT_EQ(b3.run.output.data, want.data);
}

// A network of one image per batch and a data set of 2,000 images.
TEST(Batches, TwoThousandImagesOneAtATime) {
  ScratchDir dir;
  WriteSmallNetwork(dir);
  const Network net = ParseNetwork(NetworkJson({kDense}, R"({"shape": [1, 45]})"), dir.str(), "t");
  std::mt19937 rng(5);
  const Tensor<int8_t> x = RandomInt8({2000, 45}, rng);
  const std::unique_ptr<runtime::LayerBackend> golden = runtime::MakeBackend("golden", {});
  const DatasetRun d = RunDataset(net, x, *golden);
  EXPECT_EQ(d.batches, 2000);
  EXPECT_EQ(d.run.output.data, ReferenceNetwork(WithBatch(net, 2000), x).data);
}

// ---------------------------------------------------------------------------------------------
// Accuracy

TEST(Accuracy, TopOneConfusionAndPerClassByHand) {
  // Rows: argmax 1; a tie (7, 7) goes to the first, 0; 2; all equal: 0; 0.
  const Tensor<int8_t> out({5, 3}, {1, 5, 2, 7, 7, 0, -3, -2, -1, 0, 0, 0, 10, -5, 3});
  const Tensor<int64_t> labels({5}, {1, 0, 1, 2, 0});
  CheckLabels(labels, 5, 3, "y");
  const Accuracy a = ScoreTop1(out, labels);
  EXPECT_EQ(a.images, 5);
  EXPECT_EQ(a.correct, 3);
  EXPECT_DOUBLE_EQ(a.top1(), 0.6);
  EXPECT_EQ(a.per_class_images, (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(a.per_class_correct, (std::vector<int64_t>{2, 1, 0}));
  EXPECT_DOUBLE_EQ(a.class_accuracy(1), 0.5);
  EXPECT_DOUBLE_EQ(a.class_accuracy(2), 0.0);
  const std::vector<std::vector<int64_t>> confusion = {{2, 0, 0}, {0, 1, 1}, {1, 0, 0}};
  EXPECT_EQ(a.confusion, confusion);
}

TEST(Accuracy, LabelErrors) {
  ExpectNetworkError([] { CheckLabels(Tensor<int64_t>({4}, {0, 1, 2, 0}), 5, 3, "--labels: y.npy"); },
                     {"--labels: y.npy: shape (4,)", "expected (5,)", "one label per input image"});
  ExpectNetworkError([] { CheckLabels(Tensor<int64_t>({5, 1}), 5, 3, "y"); }, {"shape (5, 1)"});
  ExpectNetworkError([] { CheckLabels(Tensor<int64_t>({2}, {0, 3}), 2, 3, "y"); },
                     {"label[1] = 3", "0 .. 2", "3 columns"});
  ExpectNetworkError([] { CheckLabels(Tensor<int64_t>({2}, {-1, 0}), 2, 3, "y"); },
                     {"label[0] = -1"});
}

}  // namespace
}  // namespace tpu::network
