// The golden backend: layers computed directly by the golden reference (tpu::golden), no device.
// It measures nothing but wall-clock time and writes no waveform.
#ifndef TPU_HOST_DRIVER_CLI_GOLDEN_BACKEND_H_
#define TPU_HOST_DRIVER_CLI_GOLDEN_BACKEND_H_

#include "layer_backend.h"

namespace tpu::cli {

class GoldenBackend : public LayerBackend {
 public:
  // Throws std::invalid_argument if `options` asks for a waveform.
  explicit GoldenBackend(const BackendOptions& options);

  std::string name() const override { return "golden"; }
  LayerResult<int8_t> RunDense(const golden::Tensor<int8_t>& x,
                               const runtime::DenseLayer& layer) override;
  LayerResult<int32_t> RunGemm(const golden::Tensor<int8_t>& a,
                               const golden::Tensor<int8_t>& b) override;
  LayerResult<int8_t> RunConv2d(const golden::Tensor<int8_t>& x,
                                const runtime::Conv2dLayer& layer) override;
  LayerResult<int8_t> RunPool(const golden::Tensor<int8_t>& x,
                              const runtime::PoolLayer& layer) override;
  LayerResult<int8_t> RunActivation(const golden::Tensor<int8_t>& x,
                                    const runtime::ActivationLayer& layer) override;
};

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_GOLDEN_BACKEND_H_
