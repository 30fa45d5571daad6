// A quantized dense (fully connected) layer as the host driver lowers it: TFLite int8 semantics,
// Keras kernel layout, the same parameters tpu::golden::Dense takes.
#ifndef TPU_COMPILER_DENSE_LAYER_H_
#define TPU_COMPILER_DENSE_LAYER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "golden/requant.h"
#include "golden/tensor.h"

namespace tpu::compiler {

struct DenseLayer {
  golden::Tensor<int8_t> weights;  // (K, Nout), Keras Dense kernel layout
  std::vector<int32_t> bias;       // Nout values, or empty for none
  int32_t input_zero_point = 0;    // int8
  // One multiplier (per tensor) or Nout (per channel), the output zero point, and the clamp
  // bounds that implement the activation (none / ReLU / ReLU6:
  // golden::QuantizedActivationRange).
  golden::RequantParams requant;

  int64_t k() const { return weights.shape.size() == 2 ? weights.shape[0] : 0; }
  int64_t nout() const { return weights.shape.size() == 2 ? weights.shape[1] : 0; }
};

// Throws std::invalid_argument, prefixed with `what`, naming the first inconsistent parameter:
// weights not (K, Nout) with K, Nout >= 1, bias neither empty nor Nout values, a zero point or
// clamp bound outside int8, clamp bounds out of order, neither 1 nor Nout multipliers, or a
// shift outside [-31, 30] (the activation pipeline's range).
void CheckDenseLayer(const DenseLayer& layer, const std::string& what);

}  // namespace tpu::compiler

#endif  // TPU_COMPILER_DENSE_LAYER_H_
