// Running a network layer by layer on a layer backend (golden or rtl), and its golden reference.
//
// Each device layer is its own device program (flatten is a reshape and runs nothing). On a
// backend that runs device programs (LayerBackend::device_limits(), the rtl backend), an
// intermediate tensor stays in the UB between two programs when the producer can leave it
// there, the consumer can read it from there and both fit next to the layers' work rows
// (PlanResidency, docs/networks.md "Residency"); every other tensor goes through host memory.
#ifndef TPU_NETWORK_NETWORK_RUN_H_
#define TPU_NETWORK_NETWORK_RUN_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "compiler/dense_lowering.h"
#include "golden/tensor.h"
#include "network/network.h"
#include "runtime/compare.h"
#include "runtime/layer_backend.h"

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

// Where a layer's input comes from and where its output goes.
enum class Residence { kHost, kUb };
const char* ResidenceName(Residence residence);  // "host", "ub"

// How one layer runs in a network: where its input and output live and the UB rows its program
// may use for its own buffers ([ub_begin, ub_end), outside the resident tensors).
struct LayerResidency {
  Residence input = Residence::kHost, output = Residence::kHost;
  std::optional<compiler::UbTensor> input_ub;  // input == kUb: where (the producer's output)
  std::optional<compiler::UbTensor> output_ub;  // output == kUb: where
  int64_t ub_begin = 0, ub_end = -1;          // -1: UB_ROWS
  // Output through the host although a device layer consumes it: why (the lowering's message,
  // or "--check-layers"); empty otherwise.
  std::string fallback;
};

struct ResidencyPlan {
  std::vector<LayerResidency> layers;  // one per network layer
  int ub_tensors = 0;                  // intermediate tensors that stay in the UB (flatten aside)
};

// Lowers one device layer (not flatten) on `input` (its values, or only its shape when
// options.input_in_ub is set) as the network runs it: LowerDense, LowerConv2d, LowerPool,
// LowerActivation.
compiler::DenseProgram LowerLayer(const Layer& layer, const golden::Tensor<int8_t>& input,
                                 const isa::DeviceLimits& limits,
                                 const compiler::HostRegion& region,
                                 const compiler::LoweringOptions& options);

// Decides, layer by layer, where each intermediate tensor lives. A device layer's output stays
// in the UB when (a) a device layer consumes it (through flatten layers: a reshape of a
// resident tensor is the same rows), (b) the producer lowers with that output resident and
// its input as already decided, and (c) the consumer lowers with that input resident and its
// output going to the host. Resident tensors alternate between the two ends of the UB (the
// first at row 0, the next ending at UB_ROWS, ...), so a layer's input and output never
// overlap and its work rows are the rows between them. The network's input and final output
// always cross PCIe. keep_in_ub = false (--check-layers) sends every tensor through the host.
ResidencyPlan PlanResidency(const Network& network, const isa::DeviceLimits& limits,
                            bool keep_in_ub = true);

struct LayerRun {
  golden::Tensor<int8_t> output;
  runtime::RunStats stats;      // what the backend measured (empty for flatten: the host did it)
  bool on_host = false;     // flatten: a reshape, no backend call
  // Where the input came from and the output went (kUb: `output` is empty, the tensor stayed
  // on the device; a flatten of a resident tensor stays resident).
  Residence input_from = Residence::kHost, output_to = Residence::kHost;
  double wall_seconds = 0;  // wall-clock time of this layer's backend call
  // With check, for a layer whose output reached the host: this output against the golden
  // reference of the layers since the last tensor that reached the host, run from that tensor
  // (ReferenceLayer on the backend's previous output when the input came from the host), so
  // that the first wrong layer stands out. nullopt for outputs that stayed in the UB.
  std::optional<runtime::Comparison> check;
};

struct NetworkRun {
  std::vector<LayerRun> layers;
  ResidencyPlan residency;  // all host for a backend without device programs (golden)
  golden::Tensor<int8_t> output;
  // With check: the final output against ReferenceNetwork from the network's input.
  std::optional<runtime::Comparison> check;
};

struct RunOptions {
  bool check = false;
  // Intermediate tensors may stay in the UB (PlanResidency) on a backend that runs device
  // programs; false (`--check-layers`) sends every one through the host, so every layer is
  // checked on its own input.
  bool keep_in_ub = true;
  // Called before each layer runs (progress messages); may be empty.
  std::function<void(const Layer&)> before_layer;
  // PlanResidency of this network for the backend's device, made once for many runs of the
  // same shapes (a data set's batches); null: planned here.
  const ResidencyPlan* plan = nullptr;
};

// Runs every layer in order on `backend`: through LayerBackend::RunProgram with the residency
// plan when the backend runs device programs, else its Run* calls (every tensor on the host).
// Throws NetworkError, naming the layer, when the
// backend fails on it (e.g. a layer type it does not run, a shape the device cannot hold).
NetworkRun RunNetwork(const Network& network, const golden::Tensor<int8_t>& input,
                      runtime::LayerBackend& backend, const RunOptions& options = {});

}  // namespace tpu::network

#endif  // TPU_NETWORK_NETWORK_RUN_H_
