// WfifoHarness over one Verilated tpu_wfifo model. Compiled only inside that model's library.
#ifndef TPU_TESTBENCH_WFIFO_WFIFO_HARNESS_IMPL_H_
#define TPU_TESTBENCH_WFIFO_WFIFO_HARNESS_IMPL_H_

#include "common/port_bits.h"
#include "common/verilated_harness.h"
#include "wfifo/wfifo_harness.h"

namespace tpu::tb {

template <typename Vtop, int N, int DW, int D>
class WfifoHarnessImpl final : public WfifoHarness {
 public:
  explicit WfifoHarnessImpl(const HarnessOptions& opts) : h_(opts) {}

  const WfifoConfig& config() const override { return config_; }
  uint64_t cycle() const override { return h_.cycle(); }
  bool tracing() const override { return h_.tracing(); }

  void Reset() override {
    SetDram(false, nullptr);
    SetWeightReady(false);
    SetFlush(false);
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  void SetDram(bool valid, const uint8_t* beat) override {
    auto& d = h_.dut();
    d.dram_valid_i = valid;
    for (int b = 0; b < DW / 8; ++b) SetBits(d.dram_data_i, 8 * b, 8, valid ? beat[b] : 0);
  }
  void SetWeightReady(bool ready) override { h_.dut().weight_ready_i = ready; }
  void SetFlush(bool flush) override { h_.dut().flush_i = flush; }

  bool dram_ready() override { return h_.dut().dram_ready_o; }
  bool weight_valid() override { return h_.dut().weight_valid_o; }
  void GetRow(uint8_t* row) override {
    for (int c = 0; c < N; ++c) row[c] = uint8_t(GetBits(h_.dut().weight_row_o, 8 * c, 8));
  }
  int rows() override { return int(h_.dut().rows_o); }
  int tiles() override { return int(h_.dut().tiles_o); }
  bool empty() override { return h_.dut().empty_o; }
  bool full() override { return h_.dut().full_o; }

 private:
  const WfifoConfig config_{N, DW, D};
  VerilatedHarness<Vtop> h_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_WFIFO_WFIFO_HARNESS_IMPL_H_
