// ActHarness over one Verilated tpu_act model. Compiled only inside that model's library.
#ifndef TPU_TESTBENCH_ACT_TOP_ACT_HARNESS_IMPL_H_
#define TPU_TESTBENCH_ACT_TOP_ACT_HARNESS_IMPL_H_

#include <stdexcept>

#include "act/top/act_harness.h"
#include "common/port_bits.h"
#include "common/verilated_harness.h"

namespace tpu::tb {

template <typename Vtop, int N>
class ActHarnessImpl final : public ActHarness {
 public:
  static constexpr int kLatency = 9;    // tpu_act_requant (5) + tpu_act_pool (4)
  static constexpr int kShiftBits = 6;  // tpu_pkg::ActShiftWidth
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
    const ActRequantConfig& rq = cfg.requant;
    if (rq.bias.size() != kSize || rq.multiplier.size() != kSize || rq.shift.size() != kSize) {
      throw std::invalid_argument("ActHarness: bias, multiplier and shift need n() values");
    }
    auto& d = h_.dut();
    for (int c = 0; c < N; ++c) {
      SetBits(d.bias_i, 32 * c, 32, uint32_t(rq.bias[c]));
      SetBits(d.multiplier_i, 32 * c, 32, uint32_t(rq.multiplier[c]));
      SetBits(d.shift_i, kShiftBits * c, kShiftBits, uint32_t(rq.shift[c]));
    }
    d.out_zero_point_i = uint8_t(rq.out_zero_point);
    d.act_min_i = uint8_t(rq.act_min);
    d.act_max_i = uint8_t(rq.act_max);
    d.lut_enable_i = rq.lut_enable;
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
    auto& d = h_.dut();
    d.lut_we_i = we;
    d.lut_addr_i = we ? addr : 0;
    d.lut_data_i = we ? uint8_t(data) : 0;
  }
  void SetIn(bool valid, const int32_t* row, uint32_t tag) override {
    auto& d = h_.dut();
    d.in_valid_i = valid;
    d.in_tag_i = valid ? tag : 0;
    for (int c = 0; c < N; ++c) SetBits(d.in_row_i, 32 * c, 32, valid ? uint32_t(row[c]) : 0);
  }
  void SetOutReady(bool ready) override { h_.dut().out_ready_i = ready; }

  bool in_ready() override { return h_.dut().in_ready_o; }
  bool out_valid() override { return h_.dut().out_valid_o; }
  bool busy() override { return h_.dut().busy_o; }
  uint32_t out_tag() override { return h_.dut().out_tag_o; }
  void GetOut(int8_t* row) override {
    for (int c = 0; c < N; ++c) row[c] = int8_t(GetBits(h_.dut().out_row_o, 8 * c, 8));
  }

 private:
  VerilatedHarness<Vtop> h_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACT_TOP_ACT_HARNESS_IMPL_H_
