// A layer backend on the ISA reference machine (tpu::model::Machine, bit-exact with the RTL by
// design) for the network tests: it runs device programs (LayerBackend::RunProgram) on one
// machine whose memories keep their contents between programs, as the device's do, and counts
// the PCIe payload bytes of each program as its READ_HOST and WRITE_HOST lengths (instruction
// fetches aside).
#ifndef TPU_TESTS_NETWORK_MODEL_BACKEND_H_
#define TPU_TESTS_NETWORK_MODEL_BACKEND_H_

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>

#include "compiler/layers.h"
#include "model/machine.h"
#include "runtime/layer_backend.h"

namespace tpu::network::testing {

class ModelBackend : public runtime::LayerBackend {
 public:
  explicit ModelBackend(const isa::DeviceLimits& limits = {})
      : machine_(std::make_unique<model::Machine>(limits)) {}

  std::string name() const override { return "model"; }
  std::optional<isa::DeviceLimits> device_limits() const override { return machine_->limits(); }
  model::Machine& machine() { return *machine_; }
  int programs() const { return programs_; }

  runtime::LayerResult<int8_t> RunProgram(const Lowering& lower, int64_t macs) override {
    const compiler::DenseProgram p = lower(machine_->limits(), {kRegionBase, kRegionSize});
    for (const auto& image : p.images) machine_->host().Write(image.address, image.bytes);
    const model::RunResult r = machine_->Run(p.instrs);
    if (!r.halted()) throw std::runtime_error("model: " + model::ToString(r));
    ++programs_;
    runtime::LayerResult<int8_t> result;
    const compiler::PcieBytes bytes = compiler::ProgramPcieBytes(p);
    result.stats.pcie_bytes_to_device = static_cast<int64_t>(bytes.to_device);
    result.stats.pcie_bytes_from_device = static_cast<int64_t>(bytes.from_device);
    result.stats.cycles = r.executed;  // instructions, for want of cycles
    (void)macs;
    if (p.ub_output) return result;
    result.output = compiler::ExtractLayerOutput(p, [&](uint64_t a, uint64_t length) {
      return machine_->host().Read(a, length);
    });
    return result;
  }

  runtime::LayerResult<int8_t> RunDense(const golden::Tensor<int8_t>&,
                                    const compiler::DenseLayer&) override {
    throw std::logic_error("ModelBackend runs lowered programs only");
  }
  runtime::LayerResult<int32_t> RunGemm(const golden::Tensor<int8_t>&,
                                    const golden::Tensor<int8_t>&) override {
    throw std::logic_error("ModelBackend runs lowered programs only");
  }

 private:
  static constexpr uint64_t kRegionBase = uint64_t{1} << 32;
  static constexpr uint64_t kRegionSize = uint64_t{1} << 28;
  std::unique_ptr<model::Machine> machine_;
  int programs_ = 0;
};

}  // namespace tpu::network::testing

#endif  // TPU_TESTS_NETWORK_MODEL_BACKEND_H_
