// A network's two ends in real numbers: float input quantized to the network input's int8
// (`tpu run --input-float`) and the int8 output dequantized (`--output-float`), with the scales
// and zero points of the network format (docs/networks.md "Scales").
#ifndef TPU_NETWORK_QUANTIZATION_H_
#define TPU_NETWORK_QUANTIZATION_H_

#include <cstdint>
#include <string>

#include "golden/tensor.h"

namespace tpu::network {

// TFLite's Quantize (the reference kernel's AffineQuantize): q = clamp(round(x / scale) + z,
// -128, 127) with x and scale as float32, x / scale in float32 and round = std::round (half away
// from zero). float64 values are taken as float32 first, as a float32 model would see them.
// Throws NetworkError naming `what` and the first element that is NaN or infinite.
golden::Tensor<int8_t> QuantizeReal(const golden::Tensor<double>& x, double scale,
                                    int32_t zero_point, const std::string& what);

// TFLite's Dequantize: float32(scale * (q - z)), the product in double.
golden::Tensor<float> DequantizeInt8(const golden::Tensor<int8_t>& q, double scale,
                                     int32_t zero_point);

}  // namespace tpu::network

#endif  // TPU_NETWORK_QUANTIZATION_H_
