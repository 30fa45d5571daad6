// What runs a layer. A backend takes the layer exactly as the compiler lowers it
// (compiler::DenseLayer, the parameters golden::Dense takes) and returns the output and the
// figures it can measure. `golden` (runtime/golden_backend.h) computes in plain C++; a device
// backend (runtime/device_backend.h) lowers the layer with the compiler and runs it on a
// device::Platform: `rtl` is the Verilated device in the SystemC system model, composed by the
// program that links the simulator (host_driver/cli/tpu_main.cpp).
//
//   auto backend = MakeBackend("golden", options);
//   LayerResult<int8_t> y = backend->RunDense(x, layer);
#ifndef TPU_RUNTIME_LAYER_BACKEND_H_
#define TPU_RUNTIME_LAYER_BACKEND_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "compiler/dense_layer.h"
#include "compiler/dense_lowering.h"
#include "compiler/layers.h"
#include "device/pcie_faults.h"
#include "device/pcie_link.h"
#include "golden/tensor.h"

namespace tpu::runtime {

// Why `--backend rtl` fails in a program built without the system model (exit status 2).
inline constexpr const char* kRtlUnavailable =
    "not built into this program: the rtl backend needs the simulator, which the `tpu` tool "
    "links (host_driver/cli/tpu_main.cpp composes it)";

// Why `--pcie-faults` fails with a backend other than rtl (exit status 2): only the rtl backend
// simulates the link whose data link layer recovers from the faults.
inline constexpr const char* kPcieFaultsNeedRtl =
    "--pcie-faults needs --backend rtl: only the rtl backend simulates the PCIe link (and its "
    "data link layer) that the faults are injected on; the golden and model backends have none";

// Why `--backend model` fails in a program built without the model device (exit status 2).
inline constexpr const char* kModelUnavailable =
    "not built into this program: the model backend needs the model device "
    "(sc_models/model_device), which the `tpu` tool links (host_driver/cli/tpu_main.cpp "
    "composes it)";

// A device error the retry policy calls retryable (device::Retryable) that persisted through
// every rerun BackendOptions::retries allowed: the transport to the device keeps failing.
// what() is the last error's full text; `tpu` exits 1 with it (naming the layer in a network).
class DeviceFailure : public std::runtime_error {
 public:
  DeviceFailure(const std::string& what, int attempts)
      : std::runtime_error(what), attempts_(attempts) {}
  int attempts() const { return attempts_; }  // runs of the program, all failed

 private:
  int attempts_;
};

// Told how a long device run advances, for a progress line: Begin when a program starts (with
// the cycles it is expected to take), Update every few thousand device cycles, End when it
// stops (also on an error).
class ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  virtual void Begin(uint64_t expected_cycles) = 0;
  virtual void Update(uint64_t cycles) = 0;
  virtual void End() = 0;
};

// How a backend should run: the device configuration, the link a simulated machine models,
// the waveform it writes, how conv2d is lowered and who hears of progress.
struct BackendOptions {
  // The device configuration of isa/devices.json a device backend runs, by name (`tpu
  // --device`); "" = the list's default. The golden backend runs no device and ignores it.
  std::string device;
  device::PcieLink link;
  // Faults the rtl backend's link injects (`tpu --pcie-faults`); none when empty. Only a
  // simulated link can take them: the other backends refuse them.
  std::optional<device::PcieFaults> pcie_faults;
  std::string trace_path;    // "" = no waveform
  uint64_t trace_begin = 0;  // dump cycles [trace_begin, trace_end)
  uint64_t trace_end = std::numeric_limits<uint64_t>::max();
  // How a device backend lowers conv2d (`tpu conv2d --conv-lowering`).
  compiler::ConvLowering conv = compiler::ConvLowering::kAuto;
  std::shared_ptr<ProgressObserver> progress;  // may be null
  // Reruns a device backend allows a program after a device error the retry policy calls
  // retryable (device::Retryable: a failed completion, a completion timeout, the watchdog),
  // each after a soft reset (`tpu --retries`, docs/driver.md "Recovery").
  int retries = kDefaultRetries;
  static constexpr int kDefaultRetries = 2;
};

// Figures a run measured. Empty optionals are what this backend cannot know; the report marks
// them n/a. Wall-clock time is measured by the caller around the call.
struct RunStats {
  std::optional<int64_t> cycles;          // device cycles the queue ran
  std::optional<double> clock_mhz;        // the clock those cycles are at
  std::optional<double> mxu_utilization;  // useful MACs / (cycles * N * N)
  std::optional<double> device_seconds;   // simulated: doorbell -> completion interrupt
  std::vector<std::pair<std::string, int64_t>> stalls;   // stall cycles by cause
  std::optional<int64_t> pcie_bytes_to_device;           // payload bytes, host -> device
  std::optional<int64_t> pcie_bytes_from_device;         // payload bytes, device -> host
  std::optional<double> pcie_payload_limit_bytes_per_s;  // the configured link's, per direction
  std::optional<int64_t> simulated_cycles;               // RTL cycles simulated (wall-clock speed)
  // The PCIe data link layer's counters of the run per direction (a simulated link's).
  std::optional<device::LinkErrorCounters> pcie_link_to_device;
  std::optional<device::LinkErrorCounters> pcie_link_from_device;
  std::string trace_path;                                // waveform written, "" = none
  std::string lowering;  // how the device ran the layer (DenseProgram::lowering), "" = n/a
  // The cycles, times and bytes are the model device's timing model's estimate (BusCounters).
  bool timing_estimated = false;
  // Device errors the retry policy recovered from (each followed by a soft reset and a rerun
  // of the program that succeeded), in order: what the device reported. The figures above are
  // those of the successful runs only.
  std::vector<std::string> recovered_errors;
};

// Adds the figures of `part`, a run that followed the runs in `total` on the same device, to
// `total`: counts, times and stalls (by cause) add up, the MXU utilization is weighted by
// cycles, and a figure either side lacks becomes unknown. Lowering and trace path are kept from
// `total` (or taken from `part` if `total` has none); estimated if either is.
void AddRunStats(RunStats& total, const RunStats& part);

template <typename T>
struct LayerResult {
  golden::Tensor<T> output;
  RunStats stats;
};

class LayerBackend {
 public:
  virtual ~LayerBackend() = default;

  // "golden", "rtl", "model".
  virtual std::string name() const = 0;

  // y = golden::Dense(x, layer.weights, layer.bias, layer.input_zero_point, layer.requant):
  // x is (M, K) int8, the result (M, Nout) int8. The layer has passed compiler::CheckDenseLayer
  // and x matches it. Throws std::exception with a clear message on failure.
  virtual LayerResult<int8_t> RunDense(const golden::Tensor<int8_t>& x,
                                       const compiler::DenseLayer& layer) = 0;

  // C = A x B (golden::Gemm): A (M, K) int8, B (K, N) int8, C (M, N) int32.
  virtual LayerResult<int32_t> RunGemm(const golden::Tensor<int8_t>& a,
                                       const golden::Tensor<int8_t>& b) = 0;

  // The other layers (compiler/layers.h), each as its golden function computes it: x is NHWC
  // (B, H, W, C) for conv2d and pooling, any shape (last dimension = channels) for the
  // activation; the layer has passed its compiler::Check*Layer and x matches it. A backend
  // that does not run a layer type throws std::runtime_error saying so (the default).
  virtual LayerResult<int8_t> RunConv2d(const golden::Tensor<int8_t>& x,
                                        const compiler::Conv2dLayer& layer);
  virtual LayerResult<int8_t> RunPool(const golden::Tensor<int8_t>& x,
                                      const compiler::PoolLayer& layer);
  virtual LayerResult<int8_t> RunActivation(const golden::Tensor<int8_t>& x,
                                            const compiler::ActivationLayer& layer);

  // For programs lowered by the caller (the network runner, network/network_run.h, keeping
  // tensors in the UB between layers): the device's limits, or nullopt for a backend that runs
  // no device programs (golden, the default).
  virtual std::optional<isa::DeviceLimits> device_limits() const { return std::nullopt; }
  using Lowering = std::function<compiler::DenseProgram(const isa::DeviceLimits& limits,
                                                        const compiler::HostRegion& region)>;
  // Runs the program `lower` makes for the device's limits and host DMA region, on the same
  // device as every earlier RunProgram: its UB keeps what earlier programs left there (a tensor
  // left by LoweringOptions::output_ub is read by the next program's input_in_ub). The output is
  // read back (compiler::ExtractLayerOutput) unless the program left it in the UB
  // (DenseProgram::ub_output; the result's output is then empty). `macs` gives the MXU
  // utilization. The default throws std::runtime_error (no device).
  virtual LayerResult<int8_t> RunProgram(const Lowering& lower, int64_t macs);
};

// The backend called `name` that needs no simulator: "golden". Throws std::invalid_argument for
// unknown names and for options the backend cannot honour (a waveform from golden),
// std::runtime_error for "rtl" and "model" (kRtlUnavailable, kModelUnavailable): the program
// that links the simulator and the model device composes those.
std::unique_ptr<LayerBackend> MakeBackend(const std::string& name, const BackendOptions& options);

// Commands take their backend from a factory so that the composition root (and tests) choose.
using BackendFactory =
    std::function<std::unique_ptr<LayerBackend>(const std::string&, const BackendOptions&)>;

}  // namespace tpu::runtime

#endif  // TPU_RUNTIME_LAYER_BACKEND_H_
