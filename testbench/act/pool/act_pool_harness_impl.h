// ActPoolHarness over one Verilated tpu_act_pool model. Compiled only inside that model's library.
#ifndef TPU_TESTBENCH_ACT_POOL_ACT_POOL_HARNESS_IMPL_H_
#define TPU_TESTBENCH_ACT_POOL_ACT_POOL_HARNESS_IMPL_H_

#include "act/pool/act_pool_harness.h"
#include "common/port_bits.h"
#include "common/verilated_harness.h"

namespace tpu::tb {

template <typename Vtop, int N>
class ActPoolHarnessImpl final : public ActPoolHarness {
 public:
  explicit ActPoolHarnessImpl(const HarnessOptions& opts) : h_(opts) {}

  int n() const override { return N; }
  int latency() const override { return 6; }
  ActPoolLimits limits() const override { return ActPoolLimits{}; }
  uint64_t cycle() const override { return h_.cycle(); }
  bool tracing() const override { return h_.tracing(); }

  void Reset() override {
    SetConfigInputs(ActPoolConfig{});  // registered during the reset's cycles
    SetIn(false, nullptr, 0);
    SetOutReady(true);
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  void SetConfig(const ActPoolConfig& cfg) override {
    SetConfigInputs(cfg);
    SetIn(false, nullptr, 0);
    for (int i = 0; i < 2; ++i) {
      Eval();
      Tick();
    }
  }
  void SetIn(bool valid, const int8_t* row, uint32_t tag) override {
    auto& d = h_.dut();
    d.in_valid_i = valid;
    d.in_tag_i = valid ? tag : 0;
    for (int c = 0; c < N; ++c) SetBits(d.in_row_i, 8 * c, 8, valid ? uint8_t(row[c]) : 0);
  }
  void SetOutReady(bool ready) override { h_.dut().out_ready_i = ready; }

  bool in_ready() override { return h_.dut().in_ready_o; }
  bool out_valid() override { return h_.dut().out_valid_o; }
  bool busy() override { return h_.dut().busy_o; }
  uint32_t out_tag() override { return h_.dut().out_tag_o; }
  void GetOut(int8_t* row) override {
    for (int c = 0; c < N; ++c) row[c] = int8_t(GetBits(h_.dut().out_row_o, 8 * c, 8));
  }

  void SetConfigInputs(const ActPoolConfig& cfg) override {
    auto& d = h_.dut();
    d.cfg_mode_i = static_cast<uint8_t>(cfg.mode);
    d.cfg_in_h_i = static_cast<uint16_t>(cfg.in_h);
    d.cfg_in_w_i = static_cast<uint16_t>(cfg.in_w);
    d.cfg_window_h_i = static_cast<uint8_t>(cfg.window_h);
    d.cfg_window_w_i = static_cast<uint8_t>(cfg.window_w);
    d.cfg_stride_h_i = static_cast<uint8_t>(cfg.stride_h);
    d.cfg_stride_w_i = static_cast<uint8_t>(cfg.stride_w);
    d.cfg_same_i = cfg.same;
    d.cfg_act_min_i = static_cast<uint8_t>(cfg.act_min);
    d.cfg_act_max_i = static_cast<uint8_t>(cfg.act_max);
  }

 private:
  VerilatedHarness<Vtop> h_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACT_POOL_ACT_POOL_HARNESS_IMPL_H_
