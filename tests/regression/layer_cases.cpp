#include "layer_cases.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/activation.h"
#include "golden/conv.h"
#include "golden/dense.h"
#include "golden/pool.h"
#include "golden/requant.h"

namespace tpu::regression {

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

namespace {

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
}  // namespace


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


}  // namespace tpu::regression
