// ActRequantHarness over one Verilated tpu_act_requant model. Compiled only inside that model's
// library.
#ifndef TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_HARNESS_IMPL_H_
#define TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_HARNESS_IMPL_H_

#include <stdexcept>

#include "act/requant/act_requant_harness.h"
#include "common/port_bits.h"
#include "common/verilated_harness.h"

namespace tpu::tb {

template <typename Vtop, int N>
class ActRequantHarnessImpl final : public ActRequantHarness {
 public:
  static constexpr int kLatency = 5;    // pipeline stages of tpu_act_requant
  static constexpr int kShiftBits = 6;  // tpu_pkg::ActShiftWidth
  static constexpr size_t kSize = N;

  explicit ActRequantHarnessImpl(const HarnessOptions& opts) : h_(opts) {}

  int n() const override { return N; }
  int latency() const override { return kLatency; }
  uint64_t cycle() const override { return h_.cycle(); }
  bool tracing() const override { return h_.tracing(); }

  void Reset() override {
    SetLutWrite(false, 0, 0);
    SetIn(false, nullptr, 0);
    SetOutReady(false);
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  void SetConfig(const ActRequantConfig& cfg) override {
    if (cfg.bias.size() != kSize || cfg.multiplier.size() != kSize || cfg.shift.size() != kSize) {
      throw std::invalid_argument("ActRequantHarness: bias, multiplier and shift need n() values");
    }
    auto& d = h_.dut();
    for (int c = 0; c < N; ++c) {
      SetBits(d.bias_i, 32 * c, 32, uint32_t(cfg.bias[c]));
      SetBits(d.multiplier_i, 32 * c, 32, uint32_t(cfg.multiplier[c]));
      SetBits(d.shift_i, kShiftBits * c, kShiftBits, uint32_t(cfg.shift[c]));
    }
    d.out_zero_point_i = uint8_t(cfg.out_zero_point);
    d.act_min_i = uint8_t(cfg.act_min);
    d.act_max_i = uint8_t(cfg.act_max);
    d.lut_enable_i = cfg.lut_enable;
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

#endif  // TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_HARNESS_IMPL_H_
