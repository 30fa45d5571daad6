// The golden backend: layers computed directly by the golden reference (tpu::golden), no device.
// It measures nothing but wall-clock time and writes no waveform.
#ifndef TPU_RUNTIME_GOLDEN_BACKEND_H_
#define TPU_RUNTIME_GOLDEN_BACKEND_H_

#include "runtime/layer_backend.h"

namespace tpu::runtime {

class GoldenBackend : public LayerBackend {
 public:
  // Throws std::invalid_argument if `options` asks for a waveform.
  explicit GoldenBackend(const BackendOptions& options);

  std::string name() const override { return "golden"; }
  LayerResult<int8_t> RunDense(const golden::Tensor<int8_t>& x,
                               const compiler::DenseLayer& layer) override;
  LayerResult<int32_t> RunGemm(const golden::Tensor<int8_t>& a,
                               const golden::Tensor<int8_t>& b) override;
  LayerResult<int8_t> RunConv2d(const golden::Tensor<int8_t>& x,
                                const compiler::Conv2dLayer& layer) override;
  LayerResult<int8_t> RunPool(const golden::Tensor<int8_t>& x,
                              const compiler::PoolLayer& layer) override;
  LayerResult<int8_t> RunActivation(const golden::Tensor<int8_t>& x,
                                    const compiler::ActivationLayer& layer) override;
};

}  // namespace tpu::runtime

#endif  // TPU_RUNTIME_GOLDEN_BACKEND_H_
