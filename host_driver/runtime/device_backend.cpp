#include "runtime/device_backend.h"

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
  platform_->Run([&](device::DeviceBus& bus) {
    device::Device dev(bus);
    const device::DmaBuffer region = dev.dma_region();
    const compiler::DenseProgram p = lower(dev.info().limits, {region.address, region.size});
    Execution e = Execute(dev, p, macs(p), options_.progress.get());
    result.output = std::move(e.output);
    result.stats = std::move(e.stats);
    result.stats.lowering = p.lowering;
  });
  result.stats.trace_path = options_.trace_path;
  return result;
}

LayerResult<int8_t> DeviceBackend::RunDense(const golden::Tensor<int8_t>& x,
                                            const compiler::DenseLayer& layer) {
  LayerResult<int8_t> result = RunLowered(
      [&](const isa::DeviceLimits& limits, const compiler::HostRegion& region) {
        return compiler::LowerDense(x, layer, limits, region);
      },
      [&](const compiler::DenseProgram&) { return x.shape[0] * layer.k() * layer.nout(); });
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
