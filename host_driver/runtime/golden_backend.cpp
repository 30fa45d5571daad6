#include "runtime/golden_backend.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "golden/activation.h"
#include "golden/conv.h"
#include "golden/dense.h"
#include "golden/gemm.h"
#include "golden/pool.h"

namespace tpu::runtime {

GoldenBackend::GoldenBackend(const BackendOptions& options) {
  if (!options.trace_path.empty()) {
    throw std::invalid_argument("--trace " + options.trace_path +
                                ": the golden backend computes in plain C++ and has no "
                                "waveform; traces come from --backend rtl");
  }
}

LayerResult<int8_t> GoldenBackend::RunDense(const golden::Tensor<int8_t>& x,
                                            const compiler::DenseLayer& layer) {
  return {golden::Dense(x, layer.weights, layer.bias, layer.input_zero_point, layer.requant), {}};
}

LayerResult<int32_t> GoldenBackend::RunGemm(const golden::Tensor<int8_t>& a,
                                            const golden::Tensor<int8_t>& b) {
  return {golden::Gemm(a, b), {}};
}

LayerResult<int8_t> GoldenBackend::RunConv2d(const golden::Tensor<int8_t>& x,
                                             const compiler::Conv2dLayer& layer) {
  return {golden::Conv2d(x, layer.weights, layer.bias, layer.params, layer.requant), {}};
}

LayerResult<int8_t> GoldenBackend::RunPool(const golden::Tensor<int8_t>& x,
                                           const compiler::PoolLayer& layer) {
  return {layer.kind == compiler::PoolKind::kMax ? golden::MaxPool2d(x, layer.params)
                                                 : golden::AvgPool2d(x, layer.params),
          {}};
}

LayerResult<int8_t> GoldenBackend::RunActivation(const golden::Tensor<int8_t>& x,
                                                 const compiler::ActivationLayer& layer) {
  // The clamp, then the table (the order of the activation pipeline, docs/isa.md ACTIVATE).
  golden::Tensor<int8_t> y = x;
  for (int8_t& v : y.data) {
    v = static_cast<int8_t>(std::clamp<int32_t>(v, layer.act_min, layer.act_max));
  }
  if (layer.lut) y = golden::ApplyLut(y, *layer.lut);
  return {std::move(y), {}};
}

}  // namespace tpu::runtime
