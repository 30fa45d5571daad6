// Networks for `tpu run` (docs/networks.md): a JSON file that lists layers (dense, conv2d, pool,
// activation, flatten) with their parameters and .npy weight files, parsed and checked before
// anything runs. Every layer's input and output shape and zero point are known after parsing:
// shapes propagate from the network's input, zero points flow from each layer's output to the
// next layer's input.
//
//   tpu::network::Network net = tpu::network::LoadNetwork("net.json");  // examples/README.md
//   for (const auto& layer : net.layers) ... layer.output_shape ...
#ifndef TPU_NETWORK_NETWORK_H_
#define TPU_NETWORK_NETWORK_H_

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/dense_layer.h"
#include "compiler/layers.h"
#include "golden/tensor.h"

namespace tpu::network {

// A network description that cannot be used: the message names the file, the layer (its index
// in "layers" and its name), the field and what was expected.
class NetworkError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class LayerType { kDense, kConv2d, kPool, kActivation, kFlatten };

// The bytes a layer run on its own cannot avoid moving over PCIe: its input and output (int8,
// one byte per element), its weights (int8) and its parameters: the bias (int32, 4 bytes per
// value given), the requantization (an int32 multiplier and an int8 shift, 5 bytes, per tensor
// or per output channel) and a LUT (256 bytes). Not counted: padding to N, the device's own
// layouts (im2col rows, parameter sets of N channels), instructions.
struct EssentialBytes {
  int64_t input = 0, weights = 0, params = 0, output = 0;
  int64_t total() const { return input + weights + params + output; }
};

// "dense", "conv2d", "pool", "activation", "flatten".
const char* LayerTypeName(LayerType type);

struct Layer {
  LayerType type = LayerType::kFlatten;
  int index = 0;     // position in "layers", from 0
  std::string name;  // "name" in the JSON, else "<type><index>" (e.g. "conv2d0")
  std::vector<int64_t> input_shape, output_shape;
  int32_t input_zero_point = 0;   // the zero point of the tensor flowing in
  int32_t output_zero_point = 0;  // ... and out (the next layer's input_zero_point)
  // The real value of one int8 step flowing in and out: the network input's "scale", a conv2d's
  // or dense's "output_scale", kept by pool, relu, relu6, clamp and flatten, a lut's
  // "output_scale"; nullopt where unknown (the format does not require scales).
  std::optional<double> input_scale, output_scale;
  std::string summary;            // one line for reports, e.g. "64 3x3, valid, stride 1x1, relu"

  // The parameters of this layer's type (the others are empty).
  compiler::DenseLayer dense;
  compiler::Conv2dLayer conv;
  compiler::PoolLayer pool;
  compiler::ActivationLayer activation;

  // The layer's useful multiply-accumulates: M x K x N for dense, B x OH x OW x KH x KW x Cin x
  // Cout for conv2d, 0 for the others (they do no arithmetic the MXU is for).
  int64_t macs() const;
  // EssentialBytes of this layer's run; all zero for flatten (a reshape on the host).
  EssentialBytes essential_bytes() const;
  // "layers[2] (conv2d \"conv1\")", for messages.
  std::string Where() const;
};

struct Network {
  std::string name;    // "name" in the JSON, else the file's stem
  std::string source;  // the file it came from ("" when parsed from text)
  std::vector<int64_t> input_shape;
  int32_t input_zero_point = 0;
  std::optional<double> input_scale;  // "input": {"scale"}: the real value of one input step
  std::vector<Layer> layers;  // at least one

  const std::vector<int64_t>& output_shape() const { return layers.back().output_shape; }
  int32_t output_zero_point() const { return layers.back().output_zero_point; }
  const std::optional<double>& output_scale() const { return layers.back().output_scale; }
};

// The bytes the whole network cannot avoid moving over PCIe when intermediate tensors stay on
// the device: the network's input, every layer's weights and parameters, the final output.
EssentialBytes NetworkEssentialBytes(const Network& network);

// Parses `json_text` (named `source` in messages), loading the .npy files it names relative to
// `base_dir` ("" = the current directory; absolute paths are used as given). Checks every field
// (unknown fields are errors, to catch typos), every file's dtype and shape, and propagates the
// shapes and zero points through the layers. Throws NetworkError.
Network ParseNetwork(const std::string& json_text, const std::string& base_dir,
                     const std::string& source);

// ParseNetwork of the file at `path`, .npy paths relative to its directory.
Network LoadNetwork(const std::string& path);

// Throws NetworkError unless `input` has the network's input shape; `what` names the input
// (e.g. "--input x.npy").
void CheckNetworkInput(const Network& network, const golden::Tensor<int8_t>& input,
                       const std::string& what);

}  // namespace tpu::network

#endif  // TPU_NETWORK_NETWORK_H_
