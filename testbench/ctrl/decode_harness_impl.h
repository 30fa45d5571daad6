// DecodeHarness over one Verilated tpu_ctrl_decode model. Compiled only inside that model's
// library.
#ifndef TPU_TESTBENCH_CTRL_DECODE_HARNESS_IMPL_H_
#define TPU_TESTBENCH_CTRL_DECODE_HARNESS_IMPL_H_

#include "common/verilated_harness.h"
#include "ctrl/decode_harness.h"

namespace tpu::tb {

template <typename Vtop>
class DecodeHarnessImpl final : public DecodeHarness {
 public:
  DecodeHarnessImpl(const DecodeConfig& config, const HarnessOptions& opts)
      : config_(config), h_(opts) {}

  const DecodeConfig& config() const override { return config_; }
  void Reset() override {
    SetIn(false, InstrWords{});
    SetOutReady(false);
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  void SetIn(bool valid, const InstrWords& words) override {
    auto& d = h_.dut();
    d.in_valid_i = valid;
    for (int w = 0; w < 4; ++w) d.in_instr_i[w] = words[w];
  }
  void SetOutReady(bool ready) override { h_.dut().out_ready_i = ready; }

  bool in_ready() override { return h_.dut().in_ready_o; }
  bool out_valid() override { return h_.dut().out_valid_o; }
  InstrWords out_instr() override {
    InstrWords words;
    for (int w = 0; w < 4; ++w) words[w] = h_.dut().out_instr_o[w];
    return words;
  }
  int out_error() override { return h_.dut().out_error_o; }

 private:
  const DecodeConfig config_;
  VerilatedHarness<Vtop> h_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CTRL_DECODE_HARNESS_IMPL_H_
