#include "recording_backend.h"

#include <stdexcept>
#include <utility>

#include "compiler/dense_lowering.h"
#include "compiler/layers.h"

namespace tpu::bench {

runtime::LayerResult<int8_t> RecordingBackend::RunProgram(const Lowering& lower, int64_t macs) {
  RecordedRun run;
  run.label = label_;
  runtime::LayerResult<int8_t> r = inner_.RunProgram(
      [&](const isa::DeviceLimits& limits, const compiler::HostRegion& region) {
        compiler::DenseProgram p = lower(limits, region);
        run.program = p.instrs.Instrs();
        return p;
      },
      macs);
  run.stats = r.stats;
  runs_.push_back(std::move(run));
  return r;
}

runtime::LayerResult<int8_t> RecordingBackend::RunDense(const golden::Tensor<int8_t>& x,
                                                        const compiler::DenseLayer& layer) {
  return RunProgram(
      [&](const isa::DeviceLimits& limits, const compiler::HostRegion& region) {
        return compiler::LowerDense(x, layer, limits, region);
      },
      x.shape[0] * layer.k() * layer.nout());
}

runtime::LayerResult<int8_t> RecordingBackend::RunConv2d(const golden::Tensor<int8_t>& x,
                                                         const compiler::Conv2dLayer& layer) {
  return RunProgram(
      [&](const isa::DeviceLimits& limits, const compiler::HostRegion& region) {
        compiler::LoweringOptions options;
        options.conv = options_.conv;
        return compiler::LowerConv2d(x, layer, limits, region, options);
      },
      0);
}

runtime::LayerResult<int8_t> RecordingBackend::RunPool(const golden::Tensor<int8_t>& x,
                                                       const compiler::PoolLayer& layer) {
  return RunProgram(
      [&](const isa::DeviceLimits& limits, const compiler::HostRegion& region) {
        return compiler::LowerPool(x, layer, limits, region);
      },
      0);
}

runtime::LayerResult<int8_t> RecordingBackend::RunActivation(
    const golden::Tensor<int8_t>& x, const compiler::ActivationLayer& layer) {
  return RunProgram(
      [&](const isa::DeviceLimits& limits, const compiler::HostRegion& region) {
        return compiler::LowerActivation(x, layer, limits, region);
      },
      0);
}

runtime::LayerResult<int32_t> RecordingBackend::RunGemm(const golden::Tensor<int8_t>&,
                                                        const golden::Tensor<int8_t>&) {
  throw std::runtime_error("the calibration runs layers only: no int32 GEMM comes back");
}

}  // namespace tpu::bench
