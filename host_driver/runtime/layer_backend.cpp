// LayerBackend's defaults and MakeBackend: the backends that need no simulator.
#include "runtime/layer_backend.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "runtime/golden_backend.h"

namespace tpu::runtime {

namespace {

[[noreturn]] void NotOnThisBackend(const LayerBackend& backend, const std::string& layer) {
  throw std::runtime_error("--backend " + backend.name() + ": " + layer +
                           " layers do not run on this backend");
}

// a + b, unknown if either is.
template <typename T>
std::optional<T> Sum(const std::optional<T>& a, const std::optional<T>& b) {
  if (!a || !b) return std::nullopt;
  return *a + *b;
}

}  // namespace

void AddRunStats(RunStats& total, const RunStats& part) {
  std::optional<double> busy;  // MXU-utilization-weighted cycles of both
  if (total.mxu_utilization && total.cycles && part.mxu_utilization && part.cycles) {
    busy = *total.mxu_utilization * double(*total.cycles) +
           *part.mxu_utilization * double(*part.cycles);
  }
  total.cycles = Sum(total.cycles, part.cycles);
  total.mxu_utilization.reset();
  if (busy && total.cycles && *total.cycles > 0) total.mxu_utilization = *busy / *total.cycles;
  if (total.clock_mhz != part.clock_mhz) total.clock_mhz.reset();
  total.device_seconds = Sum(total.device_seconds, part.device_seconds);
  for (const auto& stall : part.stalls) {  // (clang 14 cannot capture a structured binding)
    auto it = std::find_if(total.stalls.begin(), total.stalls.end(),
                           [&](const auto& s) { return s.first == stall.first; });
    if (it == total.stalls.end()) {
      total.stalls.push_back(stall);
    } else {
      it->second += stall.second;
    }
  }
  total.pcie_bytes_to_device = Sum(total.pcie_bytes_to_device, part.pcie_bytes_to_device);
  total.pcie_bytes_from_device = Sum(total.pcie_bytes_from_device, part.pcie_bytes_from_device);
  if (total.pcie_payload_limit_bytes_per_s != part.pcie_payload_limit_bytes_per_s) {
    total.pcie_payload_limit_bytes_per_s.reset();
  }
  total.simulated_cycles = Sum(total.simulated_cycles, part.simulated_cycles);
  const auto add_link = [](std::optional<device::LinkErrorCounters>& t,
                           const std::optional<device::LinkErrorCounters>& p) {
    if (t && p) {
      *t += *p;
    } else {
      t.reset();
    }
  };
  add_link(total.pcie_link_to_device, part.pcie_link_to_device);
  add_link(total.pcie_link_from_device, part.pcie_link_from_device);
  if (total.trace_path.empty()) total.trace_path = part.trace_path;
  if (total.lowering.empty()) total.lowering = part.lowering;
  total.timing_estimated = total.timing_estimated || part.timing_estimated;
  total.recovered_errors.insert(total.recovered_errors.end(), part.recovered_errors.begin(),
                                part.recovered_errors.end());
}

LayerResult<int8_t> LayerBackend::RunConv2d(const golden::Tensor<int8_t>&,
                                            const compiler::Conv2dLayer&) {
  NotOnThisBackend(*this, "conv2d");
}

LayerResult<int8_t> LayerBackend::RunPool(const golden::Tensor<int8_t>&,
                                          const compiler::PoolLayer&) {
  NotOnThisBackend(*this, "pool");
}

LayerResult<int8_t> LayerBackend::RunActivation(const golden::Tensor<int8_t>&,
                                                const compiler::ActivationLayer&) {
  NotOnThisBackend(*this, "activation");
}

LayerResult<int8_t> LayerBackend::RunProgram(const Lowering&, int64_t) {
  throw std::runtime_error("--backend " + name() + ": runs no device programs");
}

std::unique_ptr<LayerBackend> MakeBackend(const std::string& name, const BackendOptions& options) {
  if (name == "golden") {
    if (options.pcie_faults) throw std::invalid_argument(kPcieFaultsNeedRtl);
    return std::make_unique<GoldenBackend>(options);
  }
  if (name == "rtl") throw std::runtime_error(std::string("--backend rtl: ") + kRtlUnavailable);
  if (name == "model") {
    throw std::runtime_error(std::string("--backend model: ") + kModelUnavailable);
  }
  throw std::invalid_argument("--backend " + name + ": expected golden, rtl or model");
}

}  // namespace tpu::runtime
