#include "golden_backend.h"

#include <stdexcept>

#include "golden/dense.h"
#include "golden/gemm.h"

namespace tpu::cli {

GoldenBackend::GoldenBackend(const BackendOptions& options) {
  if (!options.trace_path.empty()) {
    throw std::invalid_argument("--trace " + options.trace_path +
                                ": the golden backend computes in plain C++ and has no "
                                "waveform; traces come from --backend rtl");
  }
}

LayerResult<int8_t> GoldenBackend::RunDense(const golden::Tensor<int8_t>& x,
                                            const runtime::DenseLayer& layer) {
  return {golden::Dense(x, layer.weights, layer.bias, layer.input_zero_point, layer.requant), {}};
}

LayerResult<int32_t> GoldenBackend::RunGemm(const golden::Tensor<int8_t>& a,
                                            const golden::Tensor<int8_t>& b) {
  return {golden::Gemm(a, b), {}};
}

}  // namespace tpu::cli
