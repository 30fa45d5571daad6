#include "network/quantization.h"

#include <algorithm>
#include <cmath>

#include "network/network.h"

namespace tpu::network {

golden::Tensor<int8_t> QuantizeReal(const golden::Tensor<double>& x, double scale,
                                    int32_t zero_point, const std::string& what) {
  golden::Tensor<int8_t> q(x.shape);
  const float s = float(scale);
  for (size_t i = 0; i < x.data.size(); ++i) {
    const float v = float(x.data[i]);
    if (!std::isfinite(v)) {
      throw NetworkError(what + ": element " + std::to_string(i) + " is " +
                         std::to_string(x.data[i]) +
                         " (as float32): expected finite numbers to quantize");
    }
    // Clamped in float first: beyond int8 the result is -128 or 127 anyway, and the cast to
    // int32 stays defined.
    const float steps = std::clamp(std::round(v / s), -1024.0f, 1024.0f);
    q.data[i] = int8_t(std::clamp<int32_t>(int32_t(steps) + zero_point, -128, 127));
  }
  return q;
}

golden::Tensor<float> DequantizeInt8(const golden::Tensor<int8_t>& q, double scale,
                                     int32_t zero_point) {
  golden::Tensor<float> y(q.shape);
  for (size_t i = 0; i < q.data.size(); ++i) {
    y.data[i] = float(scale * double(int32_t(q.data[i]) - zero_point));
  }
  return y;
}

}  // namespace tpu::network
