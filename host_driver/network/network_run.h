// Running a network layer by layer on a layer backend (golden or rtl), and its golden reference.
//
// This first version runs each layer as its own device program: the layer's input goes to the
// device, its output comes back to the host, and the next layer starts from there (flatten is
// a reshape on the host and runs nothing). Keeping intermediate tensors on the device is future
// work (docs/networks.md).
#ifndef TPU_NETWORK_NETWORK_RUN_H_
#define TPU_NETWORK_NETWORK_RUN_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "compare.h"
#include "golden/tensor.h"
#include "layer_backend.h"
#include "network/network.h"

namespace tpu::network {

// The golden reference of one layer on `input` (which must have layer.input_shape):
// golden::Dense, golden::Conv2d, golden::MaxPool2d / AvgPool2d, the clamp then golden::ApplyLut,
// or the reshape.
golden::Tensor<int8_t> ReferenceLayer(const Layer& layer, const golden::Tensor<int8_t>& input);

// The golden reference of the whole network.
golden::Tensor<int8_t> ReferenceNetwork(const Network& network,
                                        const golden::Tensor<int8_t>& input);

// Lowers every device layer (all but flatten) for `limits` on an input of zeros, as the rtl
// backend will lower it, so that a layer the device cannot hold (UB rows, weight DRAM, images
// beyond the accumulators for pooling) is reported before any layer runs. Throws NetworkError
// naming the layer and the lowering's message.
void CheckLowering(const Network& network, const isa::DeviceLimits& limits);

// The limits of the device the rtl backend simulates (cli/rtl_device_config.h): N = 16, 4096 UB
// rows, 1024 accumulator rows, 4 MiB of weight DRAM, 64 parameter sets.
isa::DeviceLimits RtlDeviceLimits();

struct LayerRun {
  golden::Tensor<int8_t> output;
  cli::RunStats stats;      // what the backend measured (empty for flatten: the host did it)
  bool on_host = false;     // flatten: a reshape, no backend call
  double wall_seconds = 0;  // wall-clock time of this layer's backend call
  // With check: this layer's output against ReferenceLayer on the same input (the backend's
  // output of the previous layer), so that the first wrong layer stands out.
  std::optional<cli::Comparison> check;
};

struct NetworkRun {
  std::vector<LayerRun> layers;
  golden::Tensor<int8_t> output;
  // With check: the final output against ReferenceNetwork from the network's input.
  std::optional<cli::Comparison> check;
};

struct RunOptions {
  bool check = false;
  // Called before each layer runs (progress messages); may be empty.
  std::function<void(const Layer&)> before_layer;
};

// Runs every layer in order on `backend`. Throws NetworkError, naming the layer, when the
// backend fails on it (e.g. a layer type it does not run, a shape the device cannot hold).
NetworkRun RunNetwork(const Network& network, const golden::Tensor<int8_t>& input,
                      cli::LayerBackend& backend, const RunOptions& options = {});

}  // namespace tpu::network

#endif  // TPU_NETWORK_NETWORK_RUN_H_
