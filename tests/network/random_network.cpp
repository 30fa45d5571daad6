// Seeded random networks for the network tests (random_network.h).
#include "random_network.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>

#include "golden/padding.h"
#include "golden/requant.h"
#include "network_testing.h"
#include "npy/npy.h"

namespace tpu::network::testing {
namespace {

using tpu::testing::ScratchDir;

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}
double Real(std::mt19937_64& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}
bool Chance(std::mt19937_64& rng, int percent) { return Uniform(rng, 0, 99) < percent; }

// A channel count: a multiple of the array size n one time in three (whole tiles), else any in
// 1..max.
int64_t Channels(std::mt19937_64& rng, int64_t max, int64_t n) {
  if (Chance(rng, 33)) return n * Uniform(rng, 1, std::max<int64_t>(1, max / n));
  return Uniform(rng, 1, max);
}

std::string Pair(int64_t a, int64_t b) {
  return "[" + std::to_string(a) + ", " + std::to_string(b) + "]";
}
std::string Shape(const std::vector<int64_t>& s) {
  std::string text = "(";
  for (size_t i = 0; i < s.size(); ++i) text += (i ? ", " : "") + std::to_string(s[i]);
  return text + ")";
}


class Generator {
 public:
  // n: the device's array size (channel counts on and off its multiples).
  Generator(int64_t seed, const ScratchDir& dir, int64_t n)
      : rng_(static_cast<uint64_t>(seed) * 1000003u + 4242u), dir_(dir),
        prefix_("s" + std::to_string(seed) + "_"), n_(n) {}

  // One attempt (the rng moves on, so a second call draws another network).
  RandomNetwork Make(int attempt) {
    layers_.clear();
    description_.clear();
    const std::string p = prefix_ + "a" + std::to_string(attempt) + "_";
    file_prefix_ = p;
    // One network in eight is (M, K) from the start (dense and activation layers only).
    const bool rank2 = Chance(rng_, 12);
    const int64_t batch = Uniform(rng_, 1, 2);
    if (rank2) {
      shape_ = {batch, Uniform(rng_, 1, 120)};
    } else {
      const bool large = Chance(rng_, 15);  // pools band, tensors overflow the UB
      const int64_t h = large ? Uniform(rng_, 33, 44) : Uniform(rng_, 3, 20);
      const int64_t w = large ? Uniform(rng_, 33, 44) : Uniform(rng_, 3, 20);
      shape_ = {large ? 1 : batch, h, w, Channels(rng_, 40, n_)};
    }
    zp_ = int32_t(Uniform(rng_, -20, 20));
    RandomNetwork net;
    net.input_shape = shape_;
    description_ = "input " + Shape(shape_) + " zp " + std::to_string(zp_) + "\n";
    const std::string input =
        "{\"shape\": " + ShapeJson(shape_) + ", \"zero_point\": " + std::to_string(zp_) + "}";
    const int64_t count = Uniform(rng_, 2, 7);
    for (int64_t i = 0; i < count; ++i) AddLayer();
    net.json = testing::NetworkJson(layers_, input);
    net.description = description_;
    return net;
  }

 private:
  static std::string ShapeJson(const std::vector<int64_t>& s) {
    std::string text = "[";
    for (size_t i = 0; i < s.size(); ++i) text += (i ? ", " : "") + std::to_string(s[i]);
    return text + "]";
  }

  std::string File(const std::string& what) {
    return file_prefix_ + std::to_string(layers_.size()) + "_" + what + ".npy";
  }

  void Add(const std::string& json, const std::string& text) {
    description_ += "  [" + std::to_string(layers_.size()) + "] " + text + " -> " +
                    Shape(shape_) + " zp " + std::to_string(zp_) + "\n";
    layers_.push_back(json);
  }

  // A requantization for K-long dot products of int8 values, keeping the outputs spread over
  // int8: per tensor ("scale") or per channel (inline multipliers and shifts).
  std::string Requant(int64_t k, int64_t cout, std::string* text) {
    const double base = Real(rng_, 0.5, 2.0) * 45.0 / (std::sqrt(double(k)) * 74.0 * 74.0);
    if (Chance(rng_, 60)) {
      *text = "scale " + std::to_string(base);
      return "{\"scale\": " + std::to_string(base) + "}";
    }
    std::string m = "[", s = "[";
    for (int64_t c = 0; c < cout; ++c) {
      const golden::QuantizedMultiplier q = golden::QuantizeMultiplier(base * Real(rng_, 0.5, 2));
      m += (c ? ", " : "") + std::to_string(q.multiplier);
      s += (c ? ", " : "") + std::to_string(q.shift);
    }
    *text = "per-channel";
    return "{\"multipliers\": " + m + "], \"shifts\": " + s + "]}";
  }

  // "activation": none / relu / relu6 (with its output_scale), fused.
  std::string Fused(std::string* text) {
    const int64_t a = Uniform(rng_, 0, 2);
    if (a == 0) return "";
    if (a == 1) {
      *text += ", relu";
      return ", \"activation\": \"relu\"";
    }
    const double scale = 6.0 / Real(rng_, 10, 150);
    *text += ", relu6";
    return ", \"activation\": \"relu6\", \"output_scale\": " + std::to_string(scale);
  }

  void Conv() {
    const int64_t h = shape_[1], w = shape_[2], cin = shape_[3];
    const bool large = h * w > 400;
    const int64_t kernels[] = {1, 3, 5};
    int64_t kh = kernels[Uniform(rng_, 0, large ? 1 : 2)];
    int64_t kw = Chance(rng_, 75) ? kh : kernels[Uniform(rng_, 0, large ? 1 : 2)];
    const int64_t sh = Uniform(rng_, 1, 2), sw = Chance(rng_, 75) ? sh : Uniform(rng_, 1, 2);
    const bool same = Chance(rng_, 50) || kh > h || kw > w;
    const int64_t cout = large ? Uniform(rng_, 1, 16) : Channels(rng_, 48, n_);
    const golden::Padding pad = same ? golden::Padding::kSame : golden::Padding::kValid;
    const int64_t oh = golden::ComputePaddedAxis(pad, h, kh, sh, "conv2d", "height").out_size;
    const int64_t ow = golden::ComputePaddedAxis(pad, w, kw, sw, "conv2d", "width").out_size;
    npy::Write(dir_ / File("w"), RandomInt8({kh, kw, cin, cout}, rng_std()));
    npy::Write(dir_ / File("b"), RandomInt32({cout}, rng_std(), -3000, 3000));
    std::string text = "conv2d " + std::to_string(cout) + " " + std::to_string(kh) + "x" +
                       std::to_string(kw) + " stride " + std::to_string(sh) + "x" +
                       std::to_string(sw) + (same ? " same" : " valid") + ", ";
    std::string rq_text;
    const std::string rq = Requant(kh * kw * cin, cout, &rq_text);
    text += rq_text;
    const int32_t out_zp = int32_t(Uniform(rng_, -30, 30));
    const std::string fused = Fused(&text);
    std::string json = "{\"type\": \"conv2d\", \"weights\": \"" + File("w") + "\", \"bias\": \"" +
                       File("b") + "\", \"strides\": " + Pair(sh, sw) + ", \"padding\": \"" +
                       (same ? "same" : "valid") + "\", \"requant\": " + rq +
                       ", \"output_zero_point\": " + std::to_string(out_zp) + fused + "}";
    shape_ = {shape_[0], oh, ow, cout};
    zp_ = out_zp;
    Add(json, text);
  }

  void Pool() {
    const int64_t h = shape_[1], w = shape_[2];
    const bool avg = Chance(rng_, 50);
    const int64_t wh = Uniform(rng_, 2, 3), ww = Chance(rng_, 75) ? wh : Uniform(rng_, 2, 3);
    const int64_t sh = Uniform(rng_, 1, 2), sw = Chance(rng_, 75) ? sh : Uniform(rng_, 1, 2);
    // SAME average pooling of an image beyond the accumulators cannot be banded (layers.h).
    const bool banded = h * w > 1024;
    bool same = Chance(rng_, 50) || wh > h || ww > w;
    if (avg && banded) same = false;
    const golden::Padding pad = same ? golden::Padding::kSame : golden::Padding::kValid;
    const int64_t oh = golden::ComputePaddedAxis(pad, h, wh, sh, "pool", "height").out_size;
    const int64_t ow = golden::ComputePaddedAxis(pad, w, ww, sw, "pool", "width").out_size;
    std::string text = std::string("pool ") + (avg ? "avg " : "max ") + std::to_string(wh) +
                       "x" + std::to_string(ww) + " stride " + std::to_string(sh) + "x" +
                       std::to_string(sw) + (same ? " same" : " valid");
    const std::string fused = Chance(rng_, 30) ? Fused(&text) : "";
    const std::string json = std::string("{\"type\": \"pool\", \"mode\": \"") +
                             (avg ? "avg" : "max") + "\", \"window\": " + Pair(wh, ww) +
                             ", \"strides\": " + Pair(sh, sw) + ", \"padding\": \"" +
                             (same ? "same" : "valid") + "\"" + fused + "}";
    shape_ = {shape_[0], oh, ow, shape_[3]};
    Add(json, text);
  }

  void Activation() {
    const int64_t f = Uniform(rng_, 0, 2);
    if (f == 0) {
      Add(R"({"type": "activation", "function": "relu"})", "activation relu");
    } else if (f == 1) {
      const double scale = 6.0 / Real(rng_, 10, 150);
      Add("{\"type\": \"activation\", \"function\": \"relu6\", \"output_scale\": " +
              std::to_string(scale) + "}",
          "activation relu6 (scale " + std::to_string(scale) + ")");
    } else {
      npy::Write(dir_ / File("lut"), RandomInt8({256}, rng_std()));
      const std::string lut = File("lut");
      zp_ = int32_t(Uniform(rng_, -40, 40));
      Add("{\"type\": \"activation\", \"function\": \"lut\", \"lut\": \"" + lut +
              "\", \"output_zero_point\": " + std::to_string(zp_) + "}",
          "activation lut");
    }
  }

  void Flatten() {
    int64_t rest = 1;
    for (size_t i = 1; i < shape_.size(); ++i) rest *= shape_[i];
    shape_ = {shape_[0], rest};
    Add(R"({"type": "flatten"})", "flatten");
  }

  void Dense() {
    const int64_t k = shape_[1];
    const int64_t n = Channels(rng_, 48, n_);
    npy::Write(dir_ / File("w"), RandomInt8({k, n}, rng_std()));
    npy::Write(dir_ / File("b"), RandomInt32({n}, rng_std(), -3000, 3000));
    std::string text = "dense " + std::to_string(k) + " -> " + std::to_string(n) + ", ";
    std::string rq_text;
    const std::string rq = Requant(k, n, &rq_text);
    text += rq_text;
    const int32_t out_zp = int32_t(Uniform(rng_, -30, 30));
    const std::string fused = Fused(&text);
    const std::string json = "{\"type\": \"dense\", \"weights\": \"" + File("w") +
                             "\", \"bias\": \"" + File("b") + "\", \"requant\": " + rq +
                             ", \"output_zero_point\": " + std::to_string(out_zp) + fused + "}";
    shape_ = {shape_[0], n};
    zp_ = out_zp;
    Add(json, text);
  }

  void AddLayer() {
    if (shape_.size() == 2) {  // dense (mostly) or an activation
      if (Chance(rng_, 70)) {
        Dense();
      } else {
        Activation();
      }
      return;
    }
    const int64_t elements = shape_[1] * shape_[2] * shape_[3];
    const int64_t pick = Uniform(rng_, 0, 99);
    if (pick < 38) {
      Conv();
    } else if (pick < 63) {
      Pool();
    } else if (pick < 83) {
      Activation();
    } else if (elements <= 3000) {
      Flatten();  // a flatten may end the network (its output goes to the host)
    } else {
      Conv();
    }
  }

  // The test helpers take a std::mt19937; seed one from the network's generator.
  std::mt19937& rng_std() {
    data_rng_.seed(static_cast<uint32_t>(rng_()));
    return data_rng_;
  }

  std::mt19937_64 rng_;
  std::mt19937 data_rng_;
  const ScratchDir& dir_;
  std::string prefix_, file_prefix_;
  std::vector<int64_t> shape_;
  int32_t zp_ = 0;
  int64_t n_;
  std::vector<std::string> layers_;
  std::string description_;
};

}  // namespace

DrawnNetwork DrawNetwork(int64_t seed, const ScratchDir& dir, const isa::DeviceLimits& limits) {
  Generator gen(seed, dir, limits.n);
  DrawnNetwork out;
  for (int attempt = 0;; ++attempt) {
    out.drawn = gen.Make(attempt);
    try {
      out.network = ParseNetwork(out.drawn.json, dir.str(), "seed " + std::to_string(seed));
      CheckLowering(out.network, limits);
      return out;
    } catch (const NetworkError& e) {
      ++out.rejected;
      std::printf("seed %lld attempt %d rejected: %s\n%s", static_cast<long long>(seed), attempt,
                  e.what(), out.drawn.description.c_str());
      if (attempt >= 4) {
        throw std::runtime_error("seed " + std::to_string(seed) +
                                 ": the generator keeps drawing networks that do not lower");
      }
    }
  }
}

golden::Tensor<int8_t> RandomNetworkInput(int64_t seed, const std::vector<int64_t>& shape) {
  std::mt19937 data(static_cast<uint32_t>(seed) * 7u + 1u);
  return RandomInt8(shape, data);
}

void ExpectRunMatches(const NetworkRun& run, const golden::Tensor<int8_t>& want) {
  EXPECT_EQ(run.output.shape, want.shape);
  EXPECT_TRUE(run.output.data == want.data) << "output differs from ReferenceNetwork";
  ASSERT_TRUE(run.check.has_value());
  EXPECT_TRUE(run.check->ok());
  for (size_t i = 0; i < run.layers.size(); ++i) {
    const LayerRun& lr = run.layers[i];
    EXPECT_EQ(lr.output_to, run.residency.layers[i].output) << "layer " << i;
    if (lr.output_to == Residence::kHost) {
      ASSERT_TRUE(lr.check.has_value()) << "layer " << i;
      EXPECT_TRUE(lr.check->ok()) << "layer " << i << ": " << lr.check->mismatches << " of "
                                  << lr.check->total << " differ, first at " << lr.check->first
                                  << ": " << lr.check->got << " vs " << lr.check->want;
    }
  }
}

int64_t PcieBytes(const NetworkRun& run) {
  int64_t bytes = 0;
  for (const LayerRun& lr : run.layers) {
    if (lr.on_host) continue;
    bytes += lr.stats.pcie_bytes_to_device.value_or(0) + lr.stats.pcie_bytes_from_device.value_or(0);
  }
  return bytes;
}

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* env = std::getenv(name);
  return env && *env ? std::strtoll(env, nullptr, 10) : fallback;
}

}  // namespace tpu::network::testing
