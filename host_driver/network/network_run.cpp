#include "network/network_run.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "golden/activation.h"
#include "golden/conv.h"
#include "golden/dense.h"
#include "golden/pool.h"
#include "runtime/dense_lowering.h"
#include "runtime/layers.h"
#include "rtl_device_config.h"

namespace tpu::network {

golden::Tensor<int8_t> ReferenceLayer(const Layer& layer, const golden::Tensor<int8_t>& input) {
  switch (layer.type) {
    case LayerType::kDense: {
      const runtime::DenseLayer& d = layer.dense;
      return golden::Dense(input, d.weights, d.bias, d.input_zero_point, d.requant);
    }
    case LayerType::kConv2d: {
      const runtime::Conv2dLayer& c = layer.conv;
      return golden::Conv2d(input, c.weights, c.bias, c.params, c.requant);
    }
    case LayerType::kPool:
      return layer.pool.kind == runtime::PoolKind::kMax
                 ? golden::MaxPool2d(input, layer.pool.params)
                 : golden::AvgPool2d(input, layer.pool.params);
    case LayerType::kActivation: {
      const runtime::ActivationLayer& a = layer.activation;
      golden::Tensor<int8_t> y = input;
      for (int8_t& v : y.data) v = int8_t(std::clamp<int32_t>(v, a.act_min, a.act_max));
      if (a.lut) y = golden::ApplyLut(y, *a.lut);
      return y;
    }
    case LayerType::kFlatten:
      return golden::Tensor<int8_t>(layer.output_shape, input.data);
  }
  throw std::logic_error("ReferenceLayer: unknown layer type");
}

golden::Tensor<int8_t> ReferenceNetwork(const Network& network,
                                        const golden::Tensor<int8_t>& input) {
  golden::Tensor<int8_t> x = input;
  for (const Layer& layer : network.layers) x = ReferenceLayer(layer, x);
  return x;
}

isa::DeviceLimits RtlDeviceLimits() { return cli::RtlDevice().limits; }

void CheckLowering(const Network& network, const isa::DeviceLimits& limits) {
  // Host memory is not what limits a layer here: a region far larger than any image.
  const runtime::HostRegion region{uint64_t{1} << 32, uint64_t{1} << 40};
  for (const Layer& layer : network.layers) {
    const golden::Tensor<int8_t> zeros(layer.input_shape);
    try {
      switch (layer.type) {
        case LayerType::kDense:
          runtime::LowerDense(zeros, layer.dense, limits, region);
          break;
        case LayerType::kConv2d:
          runtime::LowerConv2d(zeros, layer.conv, limits, region);
          break;
        case LayerType::kPool:
          runtime::LowerPool(zeros, layer.pool, limits, region);
          break;
        case LayerType::kActivation:
          runtime::LowerActivation(zeros, layer.activation, limits, region);
          break;
        case LayerType::kFlatten:
          break;
      }
    } catch (const std::invalid_argument& e) {
      throw NetworkError(layer.Where() + ": cannot be lowered to the device (input " +
                         golden::ShapeToString(layer.input_shape) + "): " + e.what());
    }
  }
}

NetworkRun RunNetwork(const Network& network, const golden::Tensor<int8_t>& input,
                      cli::LayerBackend& backend, const RunOptions& options) {
  CheckNetworkInput(network, input, "input");
  NetworkRun run;
  run.layers.reserve(network.layers.size());  // `x` points into it
  const golden::Tensor<int8_t>* x = &input;
  for (const Layer& layer : network.layers) {
    if (options.before_layer) options.before_layer(layer);
    LayerRun lr;
    const auto start = std::chrono::steady_clock::now();
    try {
      cli::LayerResult<int8_t> r;
      switch (layer.type) {
        case LayerType::kDense:
          r = backend.RunDense(*x, layer.dense);
          break;
        case LayerType::kConv2d:
          r = backend.RunConv2d(*x, layer.conv);
          break;
        case LayerType::kPool:
          r = backend.RunPool(*x, layer.pool);
          break;
        case LayerType::kActivation:
          r = backend.RunActivation(*x, layer.activation);
          break;
        case LayerType::kFlatten:
          r.output = golden::Tensor<int8_t>(layer.output_shape, x->data);
          lr.on_host = true;
          break;
      }
      lr.output = std::move(r.output);
      lr.stats = std::move(r.stats);
    } catch (const std::exception& e) {
      throw NetworkError(layer.Where() + ": " + e.what());
    }
    lr.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (lr.output.shape != layer.output_shape) {
      throw NetworkError(layer.Where() + ": the " + backend.name() + " backend returned shape " +
                         golden::ShapeToString(lr.output.shape) + ", expected " +
                         golden::ShapeToString(layer.output_shape));
    }
    if (options.check) lr.check = cli::Compare(lr.output, ReferenceLayer(layer, *x));
    run.layers.push_back(std::move(lr));
    x = &run.layers.back().output;
  }
  run.output = *x;
  if (options.check) run.check = cli::Compare(run.output, ReferenceNetwork(network, input));
  return run;
}

}  // namespace tpu::network
