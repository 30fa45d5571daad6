// LayerBackend's defaults and MakeBackend: the backends that need no simulator.
#include "runtime/layer_backend.h"

#include <stdexcept>

#include "runtime/golden_backend.h"

namespace tpu::runtime {

namespace {

[[noreturn]] void NotOnThisBackend(const LayerBackend& backend, const std::string& layer) {
  throw std::runtime_error("--backend " + backend.name() + ": " + layer +
                           " layers do not run on this backend");
}

}  // namespace

LayerResult<int8_t> LayerBackend::RunConv2d(const golden::Tensor<int8_t>&,
                                            const compiler::Conv2dLayer&) {
  NotOnThisBackend(*this, "conv2d");
}

LayerResult<int8_t> LayerBackend::RunPool(const golden::Tensor<int8_t>&,
                                          const compiler::PoolLayer&) {
  NotOnThisBackend(*this, "pool");
}

LayerResult<int8_t> LayerBackend::RunActivation(const golden::Tensor<int8_t>&,
                                                const compiler::ActivationLayer&) {
  NotOnThisBackend(*this, "activation");
}

LayerResult<int8_t> LayerBackend::RunProgram(const Lowering&, int64_t) {
  throw std::runtime_error("--backend " + name() + ": runs no device programs");
}

std::unique_ptr<LayerBackend> MakeBackend(const std::string& name, const BackendOptions& options) {
  if (name == "golden") return std::make_unique<GoldenBackend>(options);
  if (name == "rtl") throw std::runtime_error(std::string("--backend rtl: ") + kRtlUnavailable);
  if (name == "model") {
    throw std::runtime_error(std::string("--backend model: ") + kModelUnavailable);
  }
  throw std::invalid_argument("--backend " + name + ": expected golden, rtl or model");
}

}  // namespace tpu::runtime
