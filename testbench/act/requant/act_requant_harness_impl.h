// ActRequantHarness over one Verilated tpu_act_requant model. Compiled only inside that model's
// library.
#ifndef TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_HARNESS_IMPL_H_
#define TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_HARNESS_IMPL_H_

#include <stdexcept>

#include "act/requant/act_requant_harness.h"
#include "act/requant/act_requant_ports.h"
#include "common/port_bits.h"
#include "common/verilated_harness.h"

namespace tpu::tb {

template <typename Vtop, int N>
class ActRequantHarnessImpl final : public ActRequantHarness {
 public:
  static constexpr int kLatency = 7;    // pipeline stages of tpu_act_requant

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
    DriveRequantConfig<N>(h_.dut(), cfg, "ActRequantHarness");
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

#endif  // TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_HARNESS_IMPL_H_
