// WfifoMxuHarness over one Verilated tpu_wfifo_mxu_tb_top. Compiled only inside its library.
#ifndef TPU_TESTBENCH_WFIFO_WFIFO_MXU_HARNESS_IMPL_H_
#define TPU_TESTBENCH_WFIFO_WFIFO_MXU_HARNESS_IMPL_H_

#include "common/port_bits.h"
#include "common/verilated_harness.h"
#include "wfifo/wfifo_mxu_harness.h"

namespace tpu::tb {

template <typename Vtop, int N, int DW, int D>
class WfifoMxuHarnessImpl final : public WfifoMxuHarness {
 public:
  explicit WfifoMxuHarnessImpl(const HarnessOptions& opts) : h_(opts) {}

  const WfifoConfig& config() const override { return config_; }
  int latency() const override { return 2 * N + 1; }  // tpu_mxu: 2N + 1
  uint64_t cycle() const override { return h_.cycle(); }
  bool tracing() const override { return h_.tracing(); }

  void Reset() override {
    SetDram(false, nullptr);
    SetAct(false, false, nullptr, 0);
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
  void SetAct(bool valid, bool new_tile, const int8_t* row, uint32_t tag) override {
    auto& d = h_.dut();
    d.act_valid_i = valid;
    d.act_new_tile_i = valid && new_tile;
    d.act_tag_i = valid ? tag : 0;
    for (int k = 0; k < N; ++k) SetBits(d.act_row_i, 8 * k, 8, valid ? uint8_t(row[k]) : 0);
  }
  void SetFlush(bool flush) override { h_.dut().flush_i = flush; }

  bool dram_ready() override { return h_.dut().dram_ready_o; }
  bool act_ready() override { return h_.dut().act_ready_o; }
  bool out_valid() override { return h_.dut().out_valid_o; }
  uint32_t out_tag() override { return h_.dut().out_tag_o; }
  void GetOut(int32_t* row) override {
    for (int c = 0; c < N; ++c) row[c] = int32_t(GetBits(h_.dut().out_row_o, 32 * c, 32));
  }
  bool tile_loaded() override { return h_.dut().tile_loaded_o; }
  bool weight_valid() override { return h_.dut().weight_valid_o; }
  bool weight_ready() override { return h_.dut().weight_ready_o; }
  int fifo_rows() override { return int(h_.dut().fifo_rows_o); }
  int fifo_tiles() override { return int(h_.dut().fifo_tiles_o); }

 private:
  const WfifoConfig config_{N, DW, D};
  VerilatedHarness<Vtop> h_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_WFIFO_WFIFO_MXU_HARNESS_IMPL_H_
