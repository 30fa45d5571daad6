// The layer regression suite (issue 6, docs/regression.md): every layer type the runtime lowers
// (dense, conv2d, max pool, average pool, clamp activation, LUT activation) on seeded random
// shapes, lowered by the runtime (compiler/dense_lowering.h, compiler/layers.h) into the driver's
// DMA region, run on the RTL (the Verilated device on the modeled PCIe link, TpuSystem) through
// tpu::device::Device and compared bit for bit with the golden reference.
//
// Each test is (device, layer type, seed); the seed and the device's array size N alone
// determine the shape and the data, so a failure is reproduced by running that one test (the
// failure message prints the command). The devices are the suites' (tests/suite_devices.h: one
// per array size built, TPU_BUILD_DEVICES):
//   Short/LayerRegression.MatchesGolden/<device>_<type>_seed<S>   S = 1..4 on every short-suite
//        device (N up to the default device's: n8, n16), always instantiated (CI)
//   Long/LayerRegression.MatchesGolden/<device>_<type>_seed<S>    every long-suite device (n32,
//        n64 too), S = TPU_REGRESSION_SEED_BASE (default 1000) .. + TPU_REGRESSION_SEEDS - 1;
//        none unless TPU_REGRESSION_SEEDS is set (nightly)
// The discrete options rotate with the seed (kernels 1/3/5, stride 1/2, SAME/VALID, per-tensor
// and per-channel requantization, batch above 1) so that the four short seeds of a type cover
// each of them; sizes, channels, zero points and data are random. ShapeGenerator.* checks the
// generator itself (coverage of the short seeds, outputs spread over int8) without the RTL.
//
// One SystemC elaboration per process (tests/sc_models/sc_testing.h): sc_main builds one
// TpuSystem per suite device (the registry of built devices, testbench/host_if/built_devices.h),
// and every test runs its layer through a fresh tpu::device::Device on its device, so the tests
// pass in one process, in any order, and one per process (ctest). GoogleTest's sharding
// variables (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX) split the binary's tests over machines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/dense_lowering.h"
#include "compiler/layers.h"
#include "device/device.h"
#include "golden/activation.h"
#include "golden/conv.h"
#include "golden/dense.h"
#include "golden/pool.h"
#include "golden/requant.h"
#include "golden/tensor.h"
#include "devices/devices_gen.h"
#include "host_if/built_devices.h"
#include "regs/regs.h"
#include "runtime/executor.h"
#include "sc_models/system/tpu_system.h"
#include "suite_devices.h"

namespace tpu::regression {
namespace {

// One system model per suite device, elaborated in sc_main (SystemC elaborates once, so every
// device a test may ask for is built up front; an idle one has no events).
std::map<std::string, sys::TpuSystem*> g_systems;

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
void PrintTo(LayerType type, std::ostream* os) { *os << TypeName(type); }

const char* TypeName(LayerType type) {
  switch (type) {
    case LayerType::kDense:
      return "dense";
    case LayerType::kConv2d:
      return "conv2d";
    case LayerType::kConv2dWindow:
      return "conv2d_window";
    case LayerType::kPoolMax:
      return "pool_max";
    case LayerType::kPoolAvg:
      return "pool_avg";
    case LayerType::kActivationClamp:
      return "activation_clamp";
    case LayerType::kActivationLut:
      return "activation_lut";
  }
  return "?";
}

// ---- Seeds ------------------------------------------------------------------------------------

constexpr int64_t kShortSeeds[] = {1, 2, 3, 4};

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return fallback;
  return std::strtoll(env, nullptr, 0);
}

// The long suite's seeds: TPU_REGRESSION_SEEDS of them (0 when unset: the binary then holds the
// short suite only) from TPU_REGRESSION_SEED_BASE (default 1000, above the short seeds; a
// nightly job may move it to test new shapes every night).
int64_t LongSeedBase() { return EnvInt("TPU_REGRESSION_SEED_BASE", 1000); }
int64_t LongSeedCount() { return std::max<int64_t>(0, EnvInt("TPU_REGRESSION_SEEDS", 0)); }

std::vector<int64_t> LongSeeds() {
  std::vector<int64_t> seeds;
  for (int64_t i = 0; i < LongSeedCount(); ++i) seeds.push_back(LongSeedBase() + i);
  return seeds;
}

// ---- Random layers ----------------------------------------------------------------------------

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A channel count in [1, max] that is not a multiple of the array size n (every tile has a
// partial edge), except on every seventh seed, which may draw any count (whole tiles too).
int64_t Channels(std::mt19937_64& rng, int64_t max, int64_t seed, int64_t n) {
  for (;;) {
    const int64_t c = Uniform(rng, 1, max);
    if (c % n != 0 || seed % 7 == 0) return c;
  }
}

// An image side in [lo, hi], odd two times out of three.
int64_t Side(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  int64_t s = Uniform(rng, lo, hi);
  if (s % 2 == 0 && Uniform(rng, 0, 2) != 0) s = s + 1 <= hi ? s + 1 : s - 1;
  return std::max(lo, s);
}

// Batch: above 1 on even seeds, 1..3 on odd ones.
int64_t Batch(std::mt19937_64& rng, int64_t seed, int64_t max) {
  return seed % 2 == 0 ? Uniform(rng, 2, max) : Uniform(rng, 1, max);
}

golden::Tensor<int8_t> RandomTensor(std::mt19937_64& rng, std::vector<int64_t> shape) {
  golden::Tensor<int8_t> t(std::move(shape));
  for (int8_t& v : t.data) v = static_cast<int8_t>(Uniform(rng, -128, 127));
  return t;
}

const char* kActivationNames[] = {"none", "relu", "relu6"};

// Requantization for accumulators over K products of (x - input_zp) * w: multipliers (per
// channel when asked) that spread their typical size (int8 data: sqrt(K) * 74 * sqrt(74^2 +
// zp^2), 74 being the deviation of uniform int8) over int8, a random output zero point, the
// clamp of activation none / ReLU / ReLU6 (rotating with the seed).
golden::RequantParams RandomRequant(std::mt19937_64& rng, int64_t k, int32_t input_zp,
                                    int64_t channels, bool per_channel, int64_t seed,
                                    std::string* text) {
  golden::RequantParams rq;
  const double typical = std::sqrt(static_cast<double>(k)) * 74.0 *
                         std::sqrt(74.0 * 74.0 + static_cast<double>(input_zp) * input_zp) * 1.9;
  const int64_t count = per_channel ? channels : 1;
  for (int64_t c = 0; c < count; ++c) {
    const double real = std::uniform_real_distribution<double>(20.0, 200.0)(rng) / typical;
    rq.multipliers.push_back(golden::QuantizeMultiplier(real));
  }
  rq.out_zero_point = static_cast<int32_t>(Uniform(rng, -60, 60));
  const int act = static_cast<int>((seed / 2) % 3);
  const golden::ActivationRange range = golden::QuantizedActivationRange(
      static_cast<golden::Activation>(act), 0.05f, rq.out_zero_point);
  rq.act_min = range.min;
  rq.act_max = range.max;
  *text += std::string(per_channel ? ", per-channel" : ", per-tensor") + " requant, output zp " +
           std::to_string(rq.out_zero_point) + ", activation " + kActivationNames[act] + " [" +
           std::to_string(rq.act_min) + ", " + std::to_string(rq.act_max) + "]";
  return rq;
}

// Bias or none (one case in four); values up to the accumulators' typical size for K products,
// so that they shift the outputs without saturating them.
std::vector<int32_t> RandomBias(std::mt19937_64& rng, int64_t k, int64_t channels,
                                std::string* text) {
  std::vector<int32_t> bias;
  if (Uniform(rng, 0, 3) != 0) {
    const int64_t bound = static_cast<int64_t>(std::sqrt(static_cast<double>(k)) * 5000.0);
    bias.resize(static_cast<size_t>(channels));
    for (int32_t& b : bias) b = static_cast<int32_t>(Uniform(rng, -bound, bound));
  }
  *text += bias.empty() ? ", no bias" : ", bias";
  return bias;
}

std::string ShapeText(const std::vector<int64_t>& shape) { return golden::ShapeToString(shape); }

const char* PaddingName(golden::Padding p) {
  return p == golden::Padding::kSame ? "SAME" : "VALID";
}

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

void MakeDense(std::mt19937_64& rng, Case* c) {
  const int64_t m = Batch(rng, c->seed, 60) + Uniform(rng, 0, 1) * Uniform(rng, 0, 60);
  const int64_t k = Channels(rng, 150, c->seed, c->n);
  const int64_t n = Channels(rng, 100, c->seed, c->n);
  const bool per_channel = (c->seed & 1) == 1;
  c->input = RandomTensor(rng, {m, k});
  c->dense.weights = RandomTensor(rng, {k, n});
  std::string& d = c->description;
  d = "dense x " + ShapeText(c->input.shape) + " w " + ShapeText(c->dense.weights.shape);
  c->dense.bias = RandomBias(rng, k, n, &d);
  c->dense.input_zero_point = static_cast<int32_t>(Uniform(rng, -128, 127));
  d += ", input zp " + std::to_string(c->dense.input_zero_point);
  c->dense.requant = RandomRequant(rng, k, c->dense.input_zero_point, n, per_channel, c->seed, &d);
  c->out_min = c->dense.requant.act_min;
  c->out_max = c->dense.requant.act_max;
  c->features = {per_channel ? "per-channel" : "per-tensor", m > 1 ? "batch>1" : "batch1"};
  if (n % c->n != 0) c->features.push_back("channels%N!=0");
}

void MakeConv(std::mt19937_64& rng, Case* c) {
  const int64_t s = c->seed;
  const int64_t kernels[] = {1, 3, 5};
  const int64_t kh = kernels[s % 3];
  // Non-square kernels on seeds 0 mod 4 (and at random), unequal strides on seeds 3 mod 4.
  const int64_t kw = s % 4 == 0                ? kernels[(s + 1) % 3]
                     : Uniform(rng, 0, 3) == 0 ? kernels[Uniform(rng, 0, 2)]
                                               : kh;
  const int64_t stride_h = 1 + (s & 1);
  const int64_t stride_w = s % 4 == 3 || Uniform(rng, 0, 3) == 0 ? 3 - stride_h : stride_h;
  const auto padding = ((s >> 1) & 1) == 0 ? golden::Padding::kSame : golden::Padding::kValid;
  const bool per_channel = (((s >> 1) ^ s) & 1) == 1;
  const bool valid = padding == golden::Padding::kValid;
  const int64_t h = Side(rng, valid ? kh : 1, 15);
  const int64_t w = Side(rng, valid ? kw : 1, 15);
  const int64_t cin = Channels(rng, 40, s, c->n);
  const int64_t cout = Channels(rng, 72, s, c->n);
  const int64_t batch = Batch(rng, s, 3);
  c->input = RandomTensor(rng, {batch, h, w, cin});
  c->conv.weights = RandomTensor(rng, {kh, kw, cin, cout});
  std::string& d = c->description;
  d = "conv2d x " + ShapeText(c->input.shape) + " w " + ShapeText(c->conv.weights.shape) +
      " stride " + std::to_string(stride_h) + "x" + std::to_string(stride_w) + " " +
      PaddingName(padding);
  c->conv.bias = RandomBias(rng, kh * kw * cin, cout, &d);
  c->conv.params = {stride_h, stride_w, padding, static_cast<int32_t>(Uniform(rng, -128, 127))};
  d += ", input zp " + std::to_string(c->conv.params.input_zero_point);
  // Scaled to the products a window holds at most inside the image (padding adds none).
  const int64_t inside_k = std::min(kh, h) * std::min(kw, w) * cin;
  c->conv.requant =
      RandomRequant(rng, inside_k, c->conv.params.input_zero_point, cout, per_channel, s, &d);
  c->out_min = c->conv.requant.act_min;
  c->out_max = c->conv.requant.act_max;
  c->features = {"kernel" + std::to_string(kh),
                 "stride" + std::to_string(stride_h),
                 kw != kh ? "kernel_w!=kernel_h" : "square",
                 stride_w != stride_h ? "stride_w!=stride_h" : "",
                 PaddingName(padding),
                 per_channel ? "per-channel" : "per-tensor",
                 batch > 1 ? "batch>1" : "batch1"};
  if (h % 2 == 1 || w % 2 == 1) c->features.push_back("odd");
  if (cin % c->n != 0 && cout % c->n != 0) c->features.push_back("channels%N!=0");
}

void MakePool(std::mt19937_64& rng, Case* c) {
  const int64_t s = c->seed;
  c->pool.kind = c->type == LayerType::kPoolMax ? compiler::PoolKind::kMax : compiler::PoolKind::kAvg;
  golden::Pool2dParams& p = c->pool.params;
  p.padding = ((s >> 1) & 1) == 0 ? golden::Padding::kSame : golden::Padding::kValid;
  const int64_t h = Side(rng, 1, 21);
  const int64_t w = Side(rng, 1, 21);
  p.window_h = Uniform(rng, 1, 4);
  // Non-square windows on seeds 0 mod 4 (and at random), unequal strides on seeds 3 mod 4.
  p.window_w = s % 4 == 0                ? p.window_h % 4 + 1
               : Uniform(rng, 0, 2) == 0 ? Uniform(rng, 1, 4)
                                         : p.window_h;
  if (p.padding == golden::Padding::kValid) {
    p.window_h = std::min(p.window_h, h);
    p.window_w = std::min(p.window_w, w);
  }
  p.stride_h = 1 + (s & 1);
  p.stride_w = s % 4 == 3                ? 3 - p.stride_h
               : Uniform(rng, 0, 2) == 0 ? Uniform(rng, 1, 3)
                                         : p.stride_h;
  // A clamp narrower than int8 on every other seed (for the average pool: the second pass).
  if (((s >> 1) ^ s) & 1) {
    p.act_min = static_cast<int32_t>(Uniform(rng, -128, 10));
    p.act_max = static_cast<int32_t>(Uniform(rng, std::max(p.act_min, 0), 127));
  }
  const int64_t batch = Batch(rng, s, 4);
  c->input = RandomTensor(rng, {batch, h, w, Channels(rng, 70, s, c->n)});
  c->out_min = p.act_min;
  c->out_max = p.act_max;
  c->description = std::string(c->pool.kind == compiler::PoolKind::kMax ? "max" : "avg") +
                   " pool x " + ShapeText(c->input.shape) + " window " +
                   std::to_string(p.window_h) + "x" + std::to_string(p.window_w) + " stride " +
                   std::to_string(p.stride_h) + "x" + std::to_string(p.stride_w) + " " +
                   PaddingName(p.padding) + " clamp [" + std::to_string(p.act_min) + ", " +
                   std::to_string(p.act_max) + "]";
  c->features = {"stride" + std::to_string(p.stride_h),
                 PaddingName(p.padding),
                 p.window_w != p.window_h ? "window_w!=window_h" : "square",
                 p.stride_w != p.stride_h ? "stride_w!=stride_h" : "",
                 batch > 1 ? "batch>1" : "batch1",
                 p.act_min > -128 || p.act_max < 127 ? "clamp" : "no-clamp"};
  if (h % 2 == 1 || w % 2 == 1) c->features.push_back("odd");
  if (c->input.shape[3] % c->n != 0) c->features.push_back("channels%N!=0");
}

void MakeActivation(std::mt19937_64& rng, Case* c) {
  const int64_t s = c->seed;
  std::vector<int64_t> shape;
  switch (s % 3) {
    case 0:
      shape = {Batch(rng, s, 3), Side(rng, 1, 16), Side(rng, 1, 16), Channels(rng, 70, s, c->n)};
      break;
    case 1:
      shape = {Uniform(rng, 1, 400), Channels(rng, 100, s, c->n)};
      break;
    default:
      shape = {Uniform(rng, 1, 1000)};
      break;
  }
  c->input = RandomTensor(rng, shape);
  compiler::ActivationLayer& a = c->activation;
  const int32_t zp = static_cast<int32_t>(Uniform(rng, -100, 100));
  const int act = static_cast<int>((s / 2) % 3);
  if (c->type == LayerType::kActivationClamp && act == 0) {
    // A clamp that cuts: random bounds instead of activation none.
    a.act_min = static_cast<int32_t>(Uniform(rng, -128, 0));
    a.act_max = static_cast<int32_t>(Uniform(rng, a.act_min, 127));
  } else {
    const golden::ActivationRange range =
        golden::QuantizedActivationRange(static_cast<golden::Activation>(act), 0.05f, zp);
    a.act_min = range.min;
    a.act_max = range.max;
  }
  if (c->type == LayerType::kActivationLut) {
    golden::Lut lut;
    if (s % 2 == 0) {
      for (int8_t& v : lut) v = static_cast<int8_t>(Uniform(rng, -128, 127));
    } else {
      lut = golden::BuildLut([](float v) { return std::tanh(v); }, 0.05f,
                             static_cast<int32_t>(Uniform(rng, -20, 20)), 1.0f / 128, 0);
    }
    a.lut = lut;
  }
  c->description = std::string(a.lut ? "LUT activation" : "clamp activation") + " x " +
                   ShapeText(c->input.shape) + " clamp [" + std::to_string(a.act_min) + ", " +
                   std::to_string(a.act_max) + "]" +
                   (a.lut ? (s % 2 == 0 ? ", random table" : ", tanh table") : "");
  c->features = {"rank" + std::to_string(shape.size())};
}

// The case of (type, seed) for a device of array size n (n changes only which channel counts
// are drawn: off multiples of n).
Case MakeCase(LayerType type, int64_t seed, int64_t n) {
  Case c;
  c.type = type;
  c.seed = seed;
  c.n = n;
  std::mt19937_64 rng(static_cast<uint64_t>(seed) * 1000003u + static_cast<uint64_t>(type) * 7919u);
  switch (type) {
    case LayerType::kDense:
      MakeDense(rng, &c);
      break;
    case LayerType::kConv2d:
    case LayerType::kConv2dWindow:
      MakeConv(rng, &c);
      break;
    case LayerType::kPoolMax:
    case LayerType::kPoolAvg:
      MakePool(rng, &c);
      break;
    case LayerType::kActivationClamp:
    case LayerType::kActivationLut:
      MakeActivation(rng, &c);
      break;
  }
  return c;
}

golden::Tensor<int8_t> Golden(const Case& c) {
  switch (c.type) {
    case LayerType::kDense:
      return golden::Dense(c.input, c.dense.weights, c.dense.bias, c.dense.input_zero_point,
                           c.dense.requant);
    case LayerType::kConv2d:
    case LayerType::kConv2dWindow:
      return golden::Conv2d(c.input, c.conv.weights, c.conv.bias, c.conv.params, c.conv.requant);
    case LayerType::kPoolMax:
      return golden::MaxPool2d(c.input, c.pool.params);
    case LayerType::kPoolAvg:
      return golden::AvgPool2d(c.input, c.pool.params);
    case LayerType::kActivationClamp:
    case LayerType::kActivationLut: {
      golden::Tensor<int8_t> y = c.input;
      for (int8_t& v : y.data) {
        v = static_cast<int8_t>(std::clamp<int32_t>(v, c.activation.act_min, c.activation.act_max));
      }
      return c.activation.lut ? golden::ApplyLut(y, *c.activation.lut) : y;
    }
  }
  return {};
}

compiler::DenseProgram Lower(const Case& c, const isa::DeviceLimits& limits,
                            const compiler::HostRegion& region) {
  switch (c.type) {
    case LayerType::kDense:
      return compiler::LowerDense(c.input, c.dense, limits, region);
    case LayerType::kConv2d:
    case LayerType::kConv2dWindow: {
      compiler::LoweringOptions options;
      options.conv = c.type == LayerType::kConv2d ? compiler::ConvLowering::kIm2col
                                                  : compiler::ConvLowering::kWindow;
      return compiler::LowerConv2d(c.input, c.conv, limits, region, options);
    }
    case LayerType::kPoolMax:
    case LayerType::kPoolAvg:
      return compiler::LowerPool(c.input, c.pool, limits, region);
    case LayerType::kActivationClamp:
    case LayerType::kActivationLut:
      return compiler::LowerActivation(c.input, c.activation, limits, region);
  }
  throw std::logic_error("unknown layer type");
}

// Index `flat` of a row-major tensor of `shape` as "(i, j, ...)".
std::string IndexText(const std::vector<int64_t>& shape, size_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = static_cast<int64_t>(flat) % shape[d];
    flat /= static_cast<size_t>(shape[d]);
  }
  std::string s = "(";
  for (size_t d = 0; d < index.size(); ++d) s += (d ? ", " : "") + std::to_string(index[d]);
  return s + ")";
}

// ---- The regression tests ---------------------------------------------------------------------

// (device, layer type, seed).
using Param = std::tuple<const devices::DeviceConfig*, LayerType, int64_t>;

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  return std::string(std::get<0>(info.param)->name) + "_" + TypeName(std::get<1>(info.param)) +
         "_seed" + std::to_string(std::get<2>(info.param));
}

class LayerRegression : public ::testing::TestWithParam<Param> {};

// How to run this one test again (printed on failure).
std::string RerunText(const Case& c) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = std::string(info->test_suite_name()) + "." + info->name();
  std::string env;
  if (name.rfind("Long/", 0) == 0) {
    env = "TPU_REGRESSION_SEED_BASE=" + std::to_string(LongSeedBase()) +
          " TPU_REGRESSION_SEEDS=" + std::to_string(c.seed - LongSeedBase() + 1) + " ";
  }
  return "rerun: " + env + "tests/regression/test_layer_regression --gtest_filter='" + name +
         "'  (from the build directory)";
}

TEST_P(LayerRegression, MatchesGolden) {
  const devices::DeviceConfig& device = *std::get<0>(GetParam());
  const Case c = MakeCase(std::get<1>(GetParam()), std::get<2>(GetParam()), device.limits.n);
  const std::string where = "device " + std::string(device.name) + ", layer " +
                            TypeName(c.type) + ", seed " + std::to_string(c.seed) + ": " +
                            c.description + "\n" + RerunText(c);
  std::printf("device %s, seed %lld: %s\n", device.name, static_cast<long long>(c.seed),
              c.description.c_str());
  sys::TpuSystem* system = g_systems.at(device.name);
  const golden::Tensor<int8_t> want = Golden(c);

  golden::Tensor<int8_t> got;
  std::vector<int64_t> program_shape;
  std::string error;
  try {
    system->Run([&](device::DeviceBus& bus) {
      device::Device dev(bus);
      const device::DmaBuffer region = dev.dma_region();
      const compiler::DenseProgram p = Lower(c, dev.info().limits, {region.address, region.size});
      program_shape = p.output_shape;
      // Stale output bytes must not pass for results.
      dev.host_memory().Write(p.output.address, std::vector<uint8_t>(p.output.bytes(), 0x5A));
      const runtime::Execution e = runtime::Execute(dev, p, 0);
      got = e.output;
      std::printf("%zu instructions, %llu cycles, %.1f us simulated\n", p.instrs.size(),
                  static_cast<unsigned long long>(e.result.perf[regs::kPerfCycles]),
                  (e.result.end_ns - e.result.start_ns) / 1e3);
    });
  } catch (const std::exception& e) {
    error = e.what();
  }
  ASSERT_EQ(error, "") << where;
  ASSERT_EQ(ShapeText(program_shape), ShapeText(want.shape)) << "program output_shape; " << where;
  ASSERT_EQ(ShapeText(got.shape), ShapeText(want.shape)) << where;
  size_t wrong = 0, first = want.data.size();
  for (size_t i = 0; i < want.data.size(); ++i) {
    if (got.data[i] != want.data[i]) {
      if (wrong++ == 0) first = i;
    }
  }
  EXPECT_EQ(wrong, 0u) << "outputs differ from golden (of " << want.data.size() << ")"
                       << (wrong ? "; first at " + IndexText(want.shape, first) + ": rtl " +
                                       std::to_string(got.data[first]) + ", golden " +
                                       std::to_string(want.data[first])
                                 : std::string())
                       << "\n"
                       << where;
}

// Every short-suite device (tests/suite_devices.h: n8 and n16 when built).
INSTANTIATE_TEST_SUITE_P(
    Short, LayerRegression,
    ::testing::Combine(::testing::ValuesIn(testing::SuiteDevices(testing::SuiteLength::kShort)),
                       ::testing::ValuesIn(kAllTypes), ::testing::ValuesIn(kShortSeeds)),
    ParamName);

// Every long-suite device (every size built); empty unless TPU_REGRESSION_SEEDS is set (the
// generator runs once, in InitGoogleTest).
INSTANTIATE_TEST_SUITE_P(
    Long, LayerRegression,
    ::testing::Combine(::testing::ValuesIn(testing::SuiteDevices(testing::SuiteLength::kLong)),
                       ::testing::ValuesIn(kAllTypes), ::testing::ValuesIn(LongSeeds())),
    ParamName);

// ---- The generator itself (golden only, no simulation) -----------------------------------------

// The four short seeds of each type cover every option the suite promises.
TEST(ShapeGenerator, ShortSeedsCoverEveryOption) {
  const std::vector<std::pair<LayerType, std::vector<std::string>>> wanted = {
      {LayerType::kDense, {"per-channel", "per-tensor", "batch>1", "channels%N!=0"}},
      {LayerType::kConv2d,
       {"kernel1", "kernel3", "kernel5", "kernel_w!=kernel_h", "stride1", "stride2",
        "stride_w!=stride_h", "SAME", "VALID", "per-channel", "per-tensor", "batch>1", "odd",
        "channels%N!=0"}},
      {LayerType::kConv2dWindow,
       {"kernel1", "kernel3", "kernel5", "kernel_w!=kernel_h", "stride1", "stride2",
        "stride_w!=stride_h", "SAME", "VALID", "per-channel", "per-tensor", "batch>1", "odd",
        "channels%N!=0"}},
      {LayerType::kPoolMax,
       {"stride1", "stride2", "stride_w!=stride_h", "window_w!=window_h", "SAME", "VALID",
        "batch>1", "odd", "channels%N!=0", "clamp", "no-clamp"}},
      {LayerType::kPoolAvg,
       {"stride1", "stride2", "stride_w!=stride_h", "window_w!=window_h", "SAME", "VALID",
        "batch>1", "odd", "channels%N!=0", "clamp", "no-clamp"}},
      {LayerType::kActivationClamp, {"rank1", "rank2", "rank4"}},
      {LayerType::kActivationLut, {"rank1", "rank2", "rank4"}},
  };
  for (const auto& [type, features] : wanted) {
    std::vector<std::string> seen;
    for (int64_t seed : kShortSeeds) {
      const Case c = MakeCase(type, seed, devices::DefaultDevice().limits.n);
      seen.insert(seen.end(), c.features.begin(), c.features.end());
    }
    for (const std::string& f : features) {
      EXPECT_NE(std::find(seen.begin(), seen.end(), f), seen.end())
          << TypeName(type) << ": no short seed has " << f;
    }
  }
}

// Over many seeds: every case is valid for the default device (the golden function accepts it),
// and conv / dense outputs spread over int8 (not mostly saturated or clamped) so that bit
// exactness checks the arithmetic, not just the clamp: over all cases of a type at least 40%
// of the outputs lie strictly inside the clamp range (ReLU clamps about half by design), and so
// does at least 10% of every case with 8 or more channels and 64 or more outputs (with fewer
// channels a case may fall on the bounds by chance: each channel's bias and zero-point offset
// is one constant).
TEST(ShapeGenerator, CasesAreValidAndSpread) {
  for (LayerType type : kAllTypes) {
    std::vector<int64_t> seeds;  // the short seeds and the default long ones, and more
    for (int64_t seed = 1; seed <= 100; ++seed) seeds.push_back(seed);
    for (int64_t seed = 1000; seed < 1200; ++seed) seeds.push_back(seed);
    size_t all_inside = 0, all = 0;
    for (int64_t seed : seeds) {
      const Case c = MakeCase(type, seed, devices::DefaultDevice().limits.n);
      golden::Tensor<int8_t> y;
      ASSERT_NO_THROW(y = Golden(c)) << TypeName(type) << " seed " << seed << ": " << c.description;
      ASSERT_FALSE(y.data.empty()) << c.description;
      if (type != LayerType::kDense && type != LayerType::kConv2d &&
          type != LayerType::kConv2dWindow) {
        continue;
      }
      size_t inside = 0;
      for (int8_t v : y.data) inside += v > c.out_min && v < c.out_max;
      all_inside += inside;
      all += y.data.size();
      if (y.shape.back() >= 8 && y.data.size() >= 64) {
        EXPECT_GE(inside * 10, y.data.size())
            << TypeName(type) << " seed " << seed << ": " << c.description
            << ": over 90% of the outputs on the clamp bounds";
      }
    }
    if (all > 0) {
      std::printf("%s: %.1f%% of %zu outputs inside the clamp range\n", TypeName(type),
                  100.0 * static_cast<double>(all_inside) / static_cast<double>(all), all);
      EXPECT_GE(all_inside * 10, all * 4) << TypeName(type);
    }
  }
}

}  // namespace
}  // namespace tpu::regression

namespace tpu::regression {
namespace {

// A device's system model under a module of the device's name (the systems' parts are then
// n8.link, n16.link, ...: SystemC names are unique per process).
class DeviceSystem : public sc_core::sc_module {
 public:
  DeviceSystem(sc_core::sc_module_name name, const devices::DeviceConfig& device)
      : sc_core::sc_module(name), system(ConfigFor(device), tb::MakeBuiltTopModel(device)) {}
  sys::TpuSystem system;

 private:
  static sys::SystemConfig ConfigFor(const devices::DeviceConfig& device) {
    sys::SystemConfig config;
    config.clock_mhz = device.clock_mhz;
    config.link.max_payload = static_cast<uint32_t>(device.max_payload);
    config.link.max_read_request = static_cast<uint32_t>(device.max_read_request);
    return config;
  }
};

}  // namespace
}  // namespace tpu::regression

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::vector<std::unique_ptr<tpu::regression::DeviceSystem>> systems;
  for (const tpu::devices::DeviceConfig* d :
       tpu::testing::SuiteDevices(tpu::testing::SuiteLength::kLong)) {
    systems.push_back(std::make_unique<tpu::regression::DeviceSystem>(d->name, *d));
    tpu::regression::g_systems[d->name] = &systems.back()->system;
  }
  return RUN_ALL_TESTS();
}
