// A layer backend that runs every layer on another device backend (the rtl one) and keeps
// each device program it ran with the figures that run measured, so that the calibration
// (bench_calibration.cpp) can replay the same program on the timing model. Every layer goes
// through the inner backend's RunProgram, lowered as the device backend lowers it.
#ifndef TPU_BENCH_RECORDING_BACKEND_H_
#define TPU_BENCH_RECORDING_BACKEND_H_

#include <optional>
#include <string>
#include <vector>

#include "isa/isa_gen.h"
#include "runtime/layer_backend.h"

namespace tpu::bench {

struct RecordedRun {
  std::string label;                // what the caller called the run (set_label)
  std::vector<isa::Instr> program;  // as the device ran it
  runtime::RunStats stats;          // the device's figures
};

class RecordingBackend final : public runtime::LayerBackend {
 public:
  explicit RecordingBackend(runtime::LayerBackend& inner, runtime::BackendOptions options = {})
      : inner_(inner), options_(std::move(options)) {}

  // The label the next runs are recorded under.
  void set_label(std::string label) { label_ = std::move(label); }
  const std::vector<RecordedRun>& runs() const { return runs_; }

  std::string name() const override { return inner_.name(); }
  std::optional<isa::DeviceLimits> device_limits() const override {
    return inner_.device_limits();
  }
  runtime::LayerResult<int8_t> RunProgram(const Lowering& lower, int64_t macs) override;
  runtime::LayerResult<int8_t> RunDense(const golden::Tensor<int8_t>& x,
                                        const compiler::DenseLayer& layer) override;
  runtime::LayerResult<int8_t> RunConv2d(const golden::Tensor<int8_t>& x,
                                         const compiler::Conv2dLayer& layer) override;
  runtime::LayerResult<int8_t> RunPool(const golden::Tensor<int8_t>& x,
                                       const compiler::PoolLayer& layer) override;
  runtime::LayerResult<int8_t> RunActivation(const golden::Tensor<int8_t>& x,
                                             const compiler::ActivationLayer& layer) override;
  // Throws std::runtime_error: no device program returns int32 products.
  runtime::LayerResult<int32_t> RunGemm(const golden::Tensor<int8_t>& a,
                                        const golden::Tensor<int8_t>& b) override;

 private:
  runtime::LayerBackend& inner_;
  runtime::BackendOptions options_;
  std::string label_;
  std::vector<RecordedRun> runs_;
};

}  // namespace tpu::bench

#endif  // TPU_BENCH_RECORDING_BACKEND_H_
