// ActHarness over one Verilated tpu_act model. Compiled only inside that model's library.
#ifndef TPU_TESTBENCH_ACT_TOP_ACT_HARNESS_IMPL_H_
#define TPU_TESTBENCH_ACT_TOP_ACT_HARNESS_IMPL_H_

#include <stdexcept>

#include "act/requant/act_requant_ports.h"
#include "act/top/act_harness.h"
#include "common/port_bits.h"
#include "common/verilated_harness.h"

namespace tpu::tb {

template <typename Vtop, int N>
class ActHarnessImpl final : public ActHarness {
 public:
  static constexpr int kLatency = 13;   // tpu_act_requant (7) + tpu_act_pool (6)
  static constexpr size_t kSize = N;

  explicit ActHarnessImpl(const HarnessOptions& opts) : h_(opts) {}

  int n() const override { return N; }
  int latency() const override { return kLatency; }
  uint64_t cycle() const override { return h_.cycle(); }
  bool tracing() const override { return h_.tracing(); }

  void Reset() override {
    ActConfig cfg;
    cfg.requant.bias.assign(kSize, 0);
    cfg.requant.multiplier.assign(kSize, 0);
    cfg.requant.shift.assign(kSize, 0);
    SetConfig(cfg);
    SetLutWrite(false, 0, 0);
    SetIn(false, nullptr, 0);
    SetOutReady(false);
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  void SetConfig(const ActConfig& cfg) override {
    DriveRequantConfig<N>(h_.dut(), cfg.requant, "ActHarness");
    auto& d = h_.dut();
    const ActPoolConfig& p = cfg.pool;
    d.pool_mode_i = static_cast<uint8_t>(p.mode);
    d.pool_in_h_i = static_cast<uint16_t>(p.in_h);
    d.pool_in_w_i = static_cast<uint16_t>(p.in_w);
    d.pool_window_h_i = static_cast<uint8_t>(p.window_h);
    d.pool_window_w_i = static_cast<uint8_t>(p.window_w);
    d.pool_stride_h_i = static_cast<uint8_t>(p.stride_h);
    d.pool_stride_w_i = static_cast<uint8_t>(p.stride_w);
    d.pool_same_i = p.same;
  }
  void SetLutWrite(bool we, uint8_t addr, int8_t data) override {
    DriveLutWrite(h_.dut(), we, addr, data);
  }
  void SetIn(bool valid, const int32_t* row, uint32_t tag) override {
    DriveRowIn<N>(h_.dut(), valid, row, tag);
  }
  void SetOutReady(bool ready) override { h_.dut().out_ready_i = ready; }

  bool in_ready() override { return h_.dut().in_ready_o; }
  bool out_valid() override { return h_.dut().out_valid_o; }
  bool busy() override { return h_.dut().busy_o; }
  uint32_t out_tag() override { return h_.dut().out_tag_o; }
  void GetOut(int8_t* row) override { ReadRowOut<N>(h_.dut(), row); }

 private:
  VerilatedHarness<Vtop> h_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACT_TOP_ACT_HARNESS_IMPL_H_
