#include "runtime/device_backend.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "device/device.h"
#include "runtime/executor.h"

namespace tpu::runtime {

DeviceBackend::DeviceBackend(std::string name, std::unique_ptr<device::Platform> platform,
                             const BackendOptions& options)
    : name_(std::move(name)), platform_(std::move(platform)), options_(options) {}

LayerResult<int8_t> DeviceBackend::RunLowered(
    const Lowering& lower, const std::function<int64_t(const compiler::DenseProgram&)>& macs) {
  LayerResult<int8_t> result;
  std::vector<std::string> recovered;
  // The retry policy (docs/driver.md, "Recovery"): a retryable device error is followed by a
  // rerun of the same program, up to options_.retries times; each run's Device handle starts
  // with a soft reset (Device::Run), and the program's host images are written again
  // (Execute). The device's memories keep their contents, so a program that reads a tensor
  // an earlier program left in the UB reads it again.
  for (int attempt = 1;; ++attempt) {
    try {
      platform_->Run([&](device::DeviceBus& bus) {
        device::Device dev(bus);
        const device::DmaBuffer region = dev.dma_region();
        const compiler::DenseProgram p = lower(dev.info().limits, {region.address, region.size});
        Execution e = Execute(dev, p, macs(p), options_.progress.get());
        result.output = std::move(e.output);
        result.stats = std::move(e.stats);
        result.stats.lowering = p.lowering;
      });
      break;
    } catch (const device::DeviceError& e) {
      if (!device::Retryable(e)) throw;
      if (attempt > options_.retries) {
        throw DeviceFailure(std::string(e.what()) + " (retryable, but the program failed " +
                                std::to_string(attempt) + " time" + (attempt == 1 ? "" : "s") +
                                ": the retry policy allows " + std::to_string(options_.retries) +
                                " rerun" + (options_.retries == 1 ? "" : "s") + ", --retries)",
                            attempt);
      }
      recovered.push_back(device::ErrorSummary(e));
    }
  }
  result.stats.recovered_errors = std::move(recovered);
  result.stats.trace_path = options_.trace_path;
  return result;
}

namespace {

// Output columns [begin, end) of `layer`: their weights, biases and (per channel) multipliers.
compiler::DenseLayer ColumnSlice(const compiler::DenseLayer& layer, int64_t begin, int64_t end) {
  compiler::DenseLayer part = layer;
  const int64_t k = layer.k(), nout = layer.nout(), cols = end - begin;
  part.weights = golden::Tensor<int8_t>({k, cols});
  for (int64_t r = 0; r < k; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      part.weights.data[r * cols + c] = layer.weights.data[r * nout + begin + c];
    }
  }
  if (!layer.bias.empty()) {
    part.bias.assign(layer.bias.begin() + begin, layer.bias.begin() + end);
  }
  if (layer.requant.multipliers.size() > 1) {
    part.requant.multipliers.assign(layer.requant.multipliers.begin() + begin,
                                    layer.requant.multipliers.begin() + end);
  }
  return part;
}

}  // namespace

LayerResult<int8_t> DeviceBackend::RunDense(const golden::Tensor<int8_t>& x,
                                            const compiler::DenseLayer& layer) {
  // One program holds as many output columns as the device has parameter sets for (one set per
  // N columns); a wider layer runs as several programs over column groups, whose outputs are
  // independent, side by side.
  const isa::DeviceLimits limits = platform_->limits();
  const int64_t group = limits.param_sets * limits.n, m = x.shape[0], nout = layer.nout();
  LayerResult<int8_t> result;
  for (int64_t begin = 0; begin < nout; begin += group) {
    const int64_t end = std::min(nout, begin + group);
    const compiler::DenseLayer part = end - begin == nout ? layer : ColumnSlice(layer, begin, end);
    LayerResult<int8_t> r = RunLowered(
        [&](const isa::DeviceLimits& l, const compiler::HostRegion& region) {
          return compiler::LowerDense(x, part, l, region);
        },
        [&](const compiler::DenseProgram&) { return m * part.k() * part.nout(); });
    if (end - begin == nout) {
      result.output = std::move(r.output);  // one program: its output is the layer's
    } else {
      if (begin == 0) result.output = golden::Tensor<int8_t>({m, nout});
      for (int64_t row = 0; row < m; ++row) {
        std::copy_n(r.output.data.begin() + row * (end - begin), end - begin,
                    result.output.data.begin() + row * nout + begin);
      }
    }
    if (begin == 0) {
      result.stats = std::move(r.stats);
    } else {
      AddRunStats(result.stats, r.stats);
    }
  }
  result.stats.lowering.clear();  // a dense layer has one lowering: the report names none
  return result;
}

LayerResult<int8_t> DeviceBackend::RunConv2d(const golden::Tensor<int8_t>& x,
                                             const compiler::Conv2dLayer& layer) {
  const auto& w = layer.weights.shape;  // (KH, KW, Cin, Cout)
  return RunLowered(
      [&](const isa::DeviceLimits& limits, const compiler::HostRegion& region) {
        compiler::LoweringOptions options;
        options.conv = options_.conv;
        return compiler::LowerConv2d(x, layer, limits, region, options);
      },
      [&](const compiler::DenseProgram& p) {
        // B * OH * OW * KH * KW * Cin * Cout: the output pixels times one window's products.
        const auto& y = p.output_shape;
        return y.size() == 4 ? y[0] * y[1] * y[2] * w[0] * w[1] * w[2] * w[3] : 0;
      });
}

LayerResult<int8_t> DeviceBackend::RunPool(const golden::Tensor<int8_t>& x,
                                           const compiler::PoolLayer& layer) {
  return RunLowered(
      [&](const isa::DeviceLimits& limits, const compiler::HostRegion& region) {
        return compiler::LowerPool(x, layer, limits, region);
      },
      [](const compiler::DenseProgram&) { return int64_t{0}; });
}

LayerResult<int8_t> DeviceBackend::RunActivation(const golden::Tensor<int8_t>& x,
                                                 const compiler::ActivationLayer& layer) {
  return RunLowered(
      [&](const isa::DeviceLimits& limits, const compiler::HostRegion& region) {
        return compiler::LowerActivation(x, layer, limits, region);
      },
      [](const compiler::DenseProgram&) { return int64_t{0}; });
}

LayerResult<int8_t> DeviceBackend::RunProgram(const Lowering& lower, int64_t macs) {
  return RunLowered(lower, [macs](const compiler::DenseProgram&) { return macs; });
}

LayerResult<int32_t> DeviceBackend::RunGemm(const golden::Tensor<int8_t>&,
                                            const golden::Tensor<int8_t>&) {
  throw std::runtime_error(
      "--backend " + name_ +
      ": the device returns int8 results only (every result leaves through the activation "
      "pipeline's requantization), so an int32 GEMM cannot come back from it; run the product "
      "as a layer with `tpu dense --backend " +
      name_ + "`, or use --backend golden");
}

}  // namespace tpu::runtime
