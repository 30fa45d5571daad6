// What runs a layer for the `tpu` layer commands. A backend takes the layer exactly as the runtime
// lowers it (runtime::DenseLayer, the parameters golden::Dense takes) and returns the output and
// the figures it can measure. `golden` computes in plain C++; `rtl` (rtl_backend.h) lowers the
// layer with runtime::LowerDense and runs it on the Verilated device in the SystemC system
// model.
//
//   auto backend = MakeBackend("golden", options);
//   LayerResult<int8_t> y = backend->RunDense(x, layer);
#ifndef TPU_HOST_DRIVER_CLI_LAYER_BACKEND_H_
#define TPU_HOST_DRIVER_CLI_LAYER_BACKEND_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "golden/tensor.h"
#include "pcie_link.h"
#include "runtime/dense_layer.h"
#include "runtime/layers.h"

namespace tpu::cli {

// Why `--backend rtl` fails in a program built without the system model (exit status 2).
inline constexpr const char* kRtlUnavailable =
    "not built into this program: link the rtl backend (host_driver/cli/rtl_backend.h), as the "
    "`tpu` tool does";

// How a backend should run: the link to model and the waveform to write.
struct BackendOptions {
  PcieLink link;
  std::string trace_path;    // "" = no waveform
  uint64_t trace_begin = 0;  // dump cycles [trace_begin, trace_end)
  uint64_t trace_end = std::numeric_limits<uint64_t>::max();
  // How a device backend lowers conv2d (`tpu conv2d --conv-lowering`).
  runtime::ConvLowering conv = runtime::ConvLowering::kAuto;
};

// Figures a run measured. Empty optionals are what this backend cannot know; the report marks
// them n/a. Wall-clock time is measured by the command around the call.
struct RunStats {
  std::optional<int64_t> cycles;                  // device cycles the queue ran
  std::optional<double> clock_mhz;                // the clock those cycles are at
  std::optional<double> mxu_utilization;          // useful MACs / (cycles * N * N)
  std::optional<double> device_seconds;           // simulated: doorbell -> completion interrupt
  std::vector<std::pair<std::string, int64_t>> stalls;  // stall cycles by cause
  std::optional<int64_t> pcie_bytes_to_device;    // payload bytes, host -> device
  std::optional<int64_t> pcie_bytes_from_device;  // payload bytes, device -> host
  std::optional<double> pcie_payload_limit_bytes_per_s;  // the configured link's, per direction
  std::optional<int64_t> simulated_cycles;        // RTL cycles simulated (wall-clock speed)
  std::string trace_path;                         // waveform written, "" = none
  std::string lowering;  // how the device ran the layer (DenseProgram::lowering), "" = n/a
};

template <typename T>
struct LayerResult {
  golden::Tensor<T> output;
  RunStats stats;
};

class LayerBackend {
 public:
  virtual ~LayerBackend() = default;

  // "golden", "rtl".
  virtual std::string name() const = 0;

  // y = golden::Dense(x, layer.weights, layer.bias, layer.input_zero_point, layer.requant):
  // x is (M, K) int8, the result (M, Nout) int8. The layer has passed runtime::CheckDenseLayer
  // and x matches it. Throws std::exception with a clear message on failure.
  virtual LayerResult<int8_t> RunDense(const golden::Tensor<int8_t>& x,
                                       const runtime::DenseLayer& layer) = 0;

  // C = A x B (golden::Gemm): A (M, K) int8, B (K, N) int8, C (M, N) int32.
  virtual LayerResult<int32_t> RunGemm(const golden::Tensor<int8_t>& a,
                                       const golden::Tensor<int8_t>& b) = 0;

  // The other layers (runtime/layers.h), each as its golden function computes it: x is NHWC
  // (B, H, W, C) for conv2d and pooling, any shape (last dimension = channels) for the
  // activation; the layer has passed its runtime::Check*Layer and x matches it. A backend
  // that does not run a layer type throws std::runtime_error saying so (the default).
  virtual LayerResult<int8_t> RunConv2d(const golden::Tensor<int8_t>& x,
                                        const runtime::Conv2dLayer& layer);
  virtual LayerResult<int8_t> RunPool(const golden::Tensor<int8_t>& x,
                                      const runtime::PoolLayer& layer);
  virtual LayerResult<int8_t> RunActivation(const golden::Tensor<int8_t>& x,
                                            const runtime::ActivationLayer& layer);

  // For programs lowered by the caller (the network runner, network/network_run.h, keeping
  // tensors in the UB between layers): the device's limits, or nullopt for a backend that runs
  // no device programs (golden, the default).
  virtual std::optional<isa::DeviceLimits> device_limits() const { return std::nullopt; }
  using Lowering = std::function<runtime::DenseProgram(const isa::DeviceLimits& limits,
                                                       const runtime::HostRegion& region)>;
  // Runs the program `lower` makes for the device's limits and host DMA region, on the same
  // device as every earlier RunProgram: its UB keeps what earlier programs left there (a tensor
  // left by LoweringOptions::output_ub is read by the next program's input_in_ub). The output is
  // read back (runtime::ExtractLayerOutput) unless the program left it in the UB
  // (DenseProgram::ub_output; the result's output is then empty). `macs` gives the MXU
  // utilization. The default throws std::runtime_error (no device).
  virtual LayerResult<int8_t> RunProgram(const Lowering& lower, int64_t macs);
};

// The backend called `name` ("golden" or "rtl"). Throws std::invalid_argument for unknown names
// and for options the backend cannot honour (a waveform from golden), std::runtime_error for
// "rtl" (kRtlUnavailable): this library carries no SystemC; MakeBackendWithRtl
// (rtl_backend.h) does.
std::unique_ptr<LayerBackend> MakeBackend(const std::string& name, const BackendOptions& options);

// Commands take their backend from a factory so that tests can substitute one.
using BackendFactory =
    std::function<std::unique_ptr<LayerBackend>(const std::string&, const BackendOptions&)>;

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_LAYER_BACKEND_H_
