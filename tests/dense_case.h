// A random quantized dense layer (TFLite int8 semantics) and its input, as the device tests
// draw them (tests/device/test_device.cpp over the driver, tests/rtl/host_if/test_tpu_top.cpp
// at register level): int8 input and weights, int32 bias, an input zero point, per-channel
// multipliers that keep typical sums inside the int8 range, an output zero point, and ReLU or
// no clamp.
#ifndef TPU_TESTS_DENSE_CASE_H_
#define TPU_TESTS_DENSE_CASE_H_

#include <cmath>
#include <cstdint>
#include <random>

#include "compiler/dense_layer.h"
#include "golden/requant.h"
#include "golden/tensor.h"

namespace tpu::testing {

inline int64_t UniformInt(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

struct DenseCase {
  golden::Tensor<int8_t> x;
  compiler::DenseLayer layer;
};

inline DenseCase RandomDense(std::mt19937_64& rng, int64_t m, int64_t k, int64_t nout) {
  DenseCase c;
  c.x = golden::Tensor<int8_t>({m, k});
  for (auto& v : c.x.data) v = static_cast<int8_t>(UniformInt(rng, -128, 127));
  c.layer.weights = golden::Tensor<int8_t>({k, nout});
  for (auto& v : c.layer.weights.data) v = static_cast<int8_t>(UniformInt(rng, -128, 127));
  c.layer.bias.resize(static_cast<size_t>(nout));
  for (auto& v : c.layer.bias) v = static_cast<int32_t>(UniformInt(rng, -30000, 30000));
  c.layer.input_zero_point = static_cast<int32_t>(UniformInt(rng, -20, 20));
  const double typical = std::sqrt(static_cast<double>(k)) * 128.0 * 80.0;
  for (int64_t o = 0; o < nout; ++o) {
    const double real = std::uniform_real_distribution<double>(20.0, 200.0)(rng) / typical;
    c.layer.requant.multipliers.push_back(golden::QuantizeMultiplier(real));
  }
  c.layer.requant.out_zero_point = static_cast<int32_t>(UniformInt(rng, -30, 30));
  c.layer.requant.act_min = UniformInt(rng, 0, 1) ? c.layer.requant.out_zero_point : -128;
  c.layer.requant.act_max = 127;
  return c;
}

}  // namespace tpu::testing

#endif  // TPU_TESTS_DENSE_CASE_H_
