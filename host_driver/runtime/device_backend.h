// A layer backend that runs on a device: every layer lowered by the compiler for the device's
// limits in its host DMA region, then run by Execute (runtime/executor.h) on the platform's
// device. The platform decides what the device is: `rtl` is the Verilated device inside the
// SystemC system model (composed in host_driver/cli/tpu_main.cpp).
#ifndef TPU_RUNTIME_DEVICE_BACKEND_H_
#define TPU_RUNTIME_DEVICE_BACKEND_H_

#include <memory>
#include <optional>
#include <string>

#include "device/platform.h"
#include "runtime/layer_backend.h"

namespace tpu::runtime {

class DeviceBackend final : public LayerBackend {
 public:
  // `name` is what reports call the backend ("rtl").
  DeviceBackend(std::string name, std::unique_ptr<device::Platform> platform,
                const BackendOptions& options);

  std::string name() const override { return name_; }
  LayerResult<int8_t> RunDense(const golden::Tensor<int8_t>& x,
                               const compiler::DenseLayer& layer) override;
  LayerResult<int8_t> RunConv2d(const golden::Tensor<int8_t>& x,
                                const compiler::Conv2dLayer& layer) override;
  // Pooling and activation layers do no multiply-accumulates of their own (the MXU passes the
  // input through identity tiles): 0 MACs.
  LayerResult<int8_t> RunPool(const golden::Tensor<int8_t>& x,
                              const compiler::PoolLayer& layer) override;
  LayerResult<int8_t> RunActivation(const golden::Tensor<int8_t>& x,
                                    const compiler::ActivationLayer& layer) override;
  // The device's memories keep their contents across programs (the UB SRAM has no reset;
  // Device::Run's soft reset only restarts the queue), so tensors stay in the UB.
  std::optional<isa::DeviceLimits> device_limits() const override { return platform_->limits(); }
  LayerResult<int8_t> RunProgram(const Lowering& lower, int64_t macs) override;
  // Throws std::runtime_error: every result leaves the device through the activation
  // pipeline's requantization, so no int32 product comes back.
  LayerResult<int32_t> RunGemm(const golden::Tensor<int8_t>& a,
                               const golden::Tensor<int8_t>& b) override;

 private:
  // Lowers with `lower(limits, region)` in the device's DMA region and executes the program;
  // `macs(program)` is the layer's useful multiply-accumulates.
  LayerResult<int8_t> RunLowered(const Lowering& lower,
                                 const std::function<int64_t(const compiler::DenseProgram&)>& macs);

  std::string name_;
  std::unique_ptr<device::Platform> platform_;
  BackendOptions options_;
};

}  // namespace tpu::runtime

#endif  // TPU_RUNTIME_DEVICE_BACKEND_H_
