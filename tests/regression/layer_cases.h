// The layer regression's random layers (docs/regression.md): one case per (layer type, seed,
// array size N), its golden reference and its lowering. Shared by the regression suite
// (tests/regression/test_layer_regression.cpp) and the timing model's calibration against the
// RTL (bench/bench_calibration.cpp), so that both run the same layers.
#ifndef TPU_TESTS_REGRESSION_LAYER_CASES_H_
#define TPU_TESTS_REGRESSION_LAYER_CASES_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/dense_lowering.h"
#include "compiler/layers.h"
#include "golden/tensor.h"

namespace tpu::regression {

// kConv2d lowers by host im2col, kConv2dWindow by the MATMUL sliding window (shapes from the
// same generator). The values seed each case's generator: new types go at the end.
enum class LayerType {
  kDense,
  kConv2d,
  kPoolMax,
  kPoolAvg,
  kActivationClamp,
  kActivationLut,
  kConv2dWindow
};

constexpr LayerType kAllTypes[] = {LayerType::kDense,           LayerType::kConv2d,
                                   LayerType::kConv2dWindow,    LayerType::kPoolMax,         LayerType::kPoolAvg,
                                   LayerType::kActivationClamp, LayerType::kActivationLut};

const char* TypeName(LayerType type);

// Test names and GoogleTest's parameter printout show the type by name.
inline void PrintTo(LayerType type, std::ostream* os) { *os << TypeName(type); }

// The short suite's seeds: the four of each type cover every option (docs/regression.md).
constexpr int64_t kShortSeeds[] = {1, 2, 3, 4};

// One regression case: the input, the layer (one of the four kinds) and its golden output.
struct Case {
  LayerType type = LayerType::kDense;
  int64_t seed = 0;
  int64_t n = 16;  // the device's array size: channel counts avoid its multiples
  golden::Tensor<int8_t> input;
  compiler::DenseLayer dense;
  compiler::Conv2dLayer conv;
  compiler::PoolLayer pool;
  compiler::ActivationLayer activation;
  std::string description;
  // The clamp of the output values (for the spread check): outputs strictly inside it are
  // neither saturated nor cut by the activation.
  int32_t out_min = -128;
  int32_t out_max = 127;
  // Options the case exercises (ShapeGenerator.ShortSeedsCoverEveryOption).
  std::vector<std::string> features;
};

// The case of (type, seed) for a device of array size n (n changes only which channel counts
// are drawn: off multiples of n).
Case MakeCase(LayerType type, int64_t seed, int64_t n);

// The golden reference of the case's layer.
golden::Tensor<int8_t> Golden(const Case& c);

// The case lowered by the runtime for `limits` in the host DMA region `region`.
compiler::DenseProgram Lower(const Case& c, const isa::DeviceLimits& limits,
                            const compiler::HostRegion& region);

}  // namespace tpu::regression

#endif  // TPU_TESTS_REGRESSION_LAYER_CASES_H_
