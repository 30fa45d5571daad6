#include "calibration_cases.h"

#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/dense_layer.h"
#include "compiler/layers.h"
#include "golden/requant.h"
#include "golden/tensor.h"
#include "layer_cases.h"
#include "network/network.h"
#include "network/network_run.h"
#include "npy/npy.h"

namespace tpu::bench {
namespace {

golden::Tensor<int8_t> RandomInt8(std::mt19937_64& rng, std::vector<int64_t> shape) {
  golden::Tensor<int8_t> t(std::move(shape));
  std::uniform_int_distribution<int> d(-128, 127);
  for (int8_t& v : t.data) v = static_cast<int8_t>(d(rng));
  return t;
}

// Requantization that keeps int8 products of K terms inside int8 (the figures do not depend on
// the values; the result is still checked nowhere here, the regression does that).
golden::RequantParams Requant(int64_t k) {
  golden::RequantParams rq;
  rq.multipliers.push_back(golden::QuantizeMultiplier(1.0 / (128.0 * static_cast<double>(k))));
  return rq;
}

void RunDense(RecordingBackend& backend, const std::string& label, int64_t m, int64_t k,
              int64_t n) {
  std::mt19937_64 rng(static_cast<uint64_t>(m * 1000003 + k * 1009 + n));
  compiler::DenseLayer layer;
  layer.weights = RandomInt8(rng, {k, n});
  layer.bias.assign(static_cast<size_t>(n), 0);
  layer.requant = Requant(k);
  backend.set_label(label);
  backend.RunDense(RandomInt8(rng, {m, k}), layer);
}

struct ConvShape {
  int64_t h, w, cin, cout, kernel;
  golden::Padding padding;
};

void RunConv(RecordingBackend& backend, const std::string& label, const ConvShape& s,
             compiler::ConvLowering lowering) {
  std::mt19937_64 rng(static_cast<uint64_t>(s.h * 7 + s.cin * 131 + s.cout * 17 + s.kernel));
  compiler::Conv2dLayer layer;
  layer.weights = RandomInt8(rng, {s.kernel, s.kernel, s.cin, s.cout});
  layer.params.stride_h = layer.params.stride_w = 1;
  layer.params.padding = s.padding;
  layer.requant = Requant(s.kernel * s.kernel * s.cin);
  const golden::Tensor<int8_t> x = RandomInt8(rng, {1, s.h, s.w, s.cin});
  backend.set_label(label);
  backend.RunProgram(
      [&](const isa::DeviceLimits& limits, const compiler::HostRegion& region) {
        compiler::LoweringOptions options;
        options.conv = lowering;
        return compiler::LowerConv2d(x, layer, limits, region, options);
      },
      0);
}

void RunRegression(RecordingBackend& backend, regression::LayerType type, int64_t seed,
                   int64_t n) {
  const regression::Case c = regression::MakeCase(type, seed, n);
  backend.set_label("regression/" + std::string(regression::TypeName(type)) + "_seed" +
                    std::to_string(seed));
  backend.RunProgram(
      [&](const isa::DeviceLimits& limits, const compiler::HostRegion& region) {
        return regression::Lower(c, limits, region);
      },
      0);
}

void RunExample(RecordingBackend& backend, const std::string& networks_dir,
                const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(networks_dir) / name;
  for (const char* file : {"net.json", "x.npy"}) {
    if (!std::filesystem::exists(dir / file)) {
      throw std::runtime_error((dir / file).string() +
                               " is missing: build the target calibration_networks, or pass "
                               "--networks DIR holding <example>/net.json and x.npy");
    }
  }
  const network::Network net = network::LoadNetwork((dir / "net.json").string());
  const golden::Tensor<int8_t> x = npy::Read<int8_t>((dir / "x.npy").string());
  network::RunOptions options;
  options.before_layer = [&](const network::Layer& layer) {
    backend.set_label("examples/" + name + "/" + layer.name);
  };
  network::RunNetwork(net, x, backend, options);
}

}  // namespace

void RunCalibrationCases(CaseSet set, int64_t n, const std::string& networks_dir,
                         RecordingBackend& backend) {
  using regression::LayerType;
  if (set == CaseSet::kShort) {
    for (LayerType type : {LayerType::kDense, LayerType::kConv2dWindow, LayerType::kPoolMax,
                           LayerType::kActivationClamp}) {
      RunRegression(backend, type, 1, n);
    }
    RunDense(backend, "bench/dense_4Nx8Nx8N", 4 * n, 8 * n, 8 * n);
    return;
  }
  for (LayerType type : regression::kAllTypes) {
    for (int64_t seed : regression::kShortSeeds) RunRegression(backend, type, seed, n);
  }
  for (const char* example : {"fashion_mnist_cnn", "deep_cnn"}) {
    RunExample(backend, networks_dir, example);
  }
  RunDense(backend, "bench/dense_256x512x256", 256, 512, 256);
  RunDense(backend, "bench/dense_256x256x256", 256, 256, 256);
  RunDense(backend, "bench/dense_4Nx8Nx8N", 4 * n, 8 * n, 8 * n);
  const struct {
    const char* name;
    ConvShape shape;
  } convs[] = {
      {"conv_14x14x64_128_k5", {14, 14, 64, 128, 5, golden::Padding::kSame}},
      {"conv_7x7x128_256_k5", {7, 7, 128, 256, 5, golden::Padding::kSame}},
      {"conv_28x28x1_64_k3_valid", {28, 28, 1, 64, 3, golden::Padding::kValid}},
  };
  for (const auto& conv : convs) {
    RunConv(backend, std::string("bench/") + conv.name + "_window", conv.shape,
            compiler::ConvLowering::kWindow);
    RunConv(backend, std::string("bench/") + conv.name + "_im2col", conv.shape,
            compiler::ConvLowering::kIm2col);
  }
}

}  // namespace tpu::bench
