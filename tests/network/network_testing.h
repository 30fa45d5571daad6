// A small network written to a scratch directory for the network tests: every layer type, odd
// channel counts, a batch of 2, per-channel requantization, SAME padding and zero points that
// change along the way.
//
//   input (2, 6, 6, 3) zp 3 -> conv2d 5 3x3 same (per-channel, zp -> -2, relu) -> (2, 6, 6, 5)
//   -> pool max 2x2 -> (2, 3, 3, 5) -> activation lut (zp -> 1) -> flatten -> (2, 45)
//   -> dense 7 (scale, zp -> 4) -> (2, 7) -> activation relu
#ifndef TPU_TESTS_NETWORK_NETWORK_TESTING_H_
#define TPU_TESTS_NETWORK_NETWORK_TESTING_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "golden/tensor.h"
#include "npy/npy.h"
#include "npy/scratch_dir.h"

namespace tpu::network::testing {

inline golden::Tensor<int8_t> RandomInt8(std::vector<int64_t> shape, std::mt19937& rng,
                                         int lo = -128, int hi = 127) {
  golden::Tensor<int8_t> t(std::move(shape));
  std::uniform_int_distribution<int> d(lo, hi);
  for (auto& v : t.data) v = int8_t(d(rng));
  return t;
}

inline golden::Tensor<int32_t> RandomInt32(std::vector<int64_t> shape, std::mt19937& rng, int lo,
                                           int hi) {
  golden::Tensor<int32_t> t(std::move(shape));
  std::uniform_int_distribution<int> d(lo, hi);
  for (auto& v : t.data) v = d(rng);
  return t;
}

// The layers of the small network as JSON text (without the brackets), so that tests can edit
// one of them.
inline std::vector<std::string> SmallLayers() {
  return {
      R"({"type": "conv2d", "name": "conv", "weights": "cw.npy", "bias": "cb.npy",
          "strides": [1, 1], "padding": "same", "input_zero_point": 3, "output_zero_point": -2,
          "requant": {"multipliers": "cm.npy", "shifts": "cs.npy"}, "activation": "relu"})",
      R"({"type": "pool", "mode": "max", "window": [2, 2], "strides": [2, 2]})",
      R"({"type": "activation", "function": "lut", "lut": "lut.npy", "output_zero_point": 1})",
      R"({"type": "flatten"})",
      R"({"type": "dense", "name": "fc", "weights": "dw.npy", "bias": "db.npy",
          "requant": {"scale": 0.004}, "output_zero_point": 4})",
      R"({"type": "activation", "function": "relu"})",
  };
}

inline std::string NetworkJson(const std::vector<std::string>& layers,
                               const std::string& input = R"({"shape": [2, 6, 6, 3], "zero_point": 3})") {
  std::string text = "{\"name\": \"small\", \"input\": " + input + ", \"layers\": [\n";
  for (size_t i = 0; i < layers.size(); ++i) text += (i ? ",\n" : "") + layers[i];
  return text + "]}\n";
}

// Writes the .npy files of SmallLayers() and x.npy into `dir`; returns the path of net.json.
inline std::string WriteSmallNetwork(const tpu::testing::ScratchDir& dir, uint32_t seed = 1) {
  std::mt19937 rng(seed);
  npy::Write(dir / "x.npy", RandomInt8({2, 6, 6, 3}, rng));
  npy::Write(dir / "cw.npy", RandomInt8({3, 3, 3, 5}, rng));
  npy::Write(dir / "cb.npy", RandomInt32({5}, rng, -2000, 2000));
  npy::Write(dir / "cm.npy", RandomInt32({5}, rng, 1 << 30, INT32_MAX));
  npy::Write(dir / "cs.npy", RandomInt32({5}, rng, -9, -6));
  npy::Write(dir / "lut.npy", RandomInt8({256}, rng));
  npy::Write(dir / "dw.npy", RandomInt8({45, 7}, rng));
  npy::Write(dir / "db.npy", RandomInt32({7}, rng, -5000, 5000));
  return dir.WriteFile("net.json", NetworkJson(SmallLayers()));
}

// input (B, 8, 8, 2) -> conv2d 16 3x3 valid -> (B, 6, 6, 16) -> pool max 2x2 -> (B, 3, 3, 16)
// -> relu (unless `relu` is false) -> flatten (B, 144) -> dense 10: every intermediate can stay
// in the UB (the dense layer reads the flattened batch in place).
inline std::string WriteImageNetwork(const tpu::testing::ScratchDir& dir, int64_t batch = 1,
                                     uint32_t seed = 2, bool relu = true) {
  std::mt19937 rng(seed);
  npy::Write(dir / "x.npy", RandomInt8({batch, 8, 8, 2}, rng));
  npy::Write(dir / "cw.npy", RandomInt8({3, 3, 2, 16}, rng));
  npy::Write(dir / "cb.npy", RandomInt32({16}, rng, -500, 500));
  npy::Write(dir / "dw.npy", RandomInt8({144, 10}, rng));
  npy::Write(dir / "db.npy", RandomInt32({10}, rng, -2000, 2000));
  std::vector<std::string> layers = {
      R"({"type": "conv2d", "name": "conv", "weights": "cw.npy", "bias": "cb.npy",
          "padding": "valid", "requant": {"scale": 0.01}, "output_zero_point": -5})",
      R"({"type": "pool", "mode": "max", "window": [2, 2], "strides": [2, 2]})",
      R"({"type": "activation", "function": "relu"})", R"({"type": "flatten"})",
      R"({"type": "dense", "name": "fc", "weights": "dw.npy", "bias": "db.npy",
          "requant": {"scale": 0.002}, "output_zero_point": 1})"};
  if (!relu) layers.erase(layers.begin() + 2);
  return dir.WriteFile(
      "net.json",
      NetworkJson(
          layers, R"({"shape": [)" + std::to_string(batch) + R"(, 8, 8, 2], "zero_point": 1})"));
}

}  // namespace tpu::network::testing

#endif  // TPU_TESTS_NETWORK_NETWORK_TESTING_H_
