// MxuHarness over one Verilated tpu_mxu model. Compiled only inside that model's library.
#ifndef TPU_TESTBENCH_MXU_MXU_HARNESS_IMPL_H_
#define TPU_TESTBENCH_MXU_MXU_HARNESS_IMPL_H_

#include "common/port_bits.h"
#include "common/verilated_harness.h"
#include "mxu/mxu_harness.h"

namespace tpu::tb {

template <typename Vtop, int N>
class MxuHarnessImpl final : public MxuHarness {
 public:
  explicit MxuHarnessImpl(const HarnessOptions& opts) : h_(opts) {}

  int n() const override { return N; }
  int latency() const override { return 2 * N + 1; }  // tpu_mxu: 2N + 1
  uint64_t cycle() const override { return h_.cycle(); }
  bool tracing() const override { return h_.tracing(); }

  void Reset() override {
    SetWeight(false, nullptr);
    SetAct(false, false, nullptr, 0);
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  // The MXU ignores its data inputs while their valid bit is low (docs/mxu.md): they carry
  // junk then, not zeros, so that a test fails if a result depends on them.
  void SetWeight(bool valid, const int8_t* row) override {
    auto& d = h_.dut();
    d.weight_valid_i = valid;
    for (int c = 0; c < N; ++c)
      SetBits(d.weight_row_i, 8 * c, 8, valid ? uint8_t(row[c]) : Junk(c));
  }
  void SetAct(bool valid, bool new_tile, const int8_t* row, uint32_t tag) override {
    auto& d = h_.dut();
    d.act_valid_i = valid;
    d.act_new_tile_i = valid && new_tile;
    d.act_tag_i = valid ? tag : Junk(N) | uint32_t(Junk(N + 1)) << 8;
    for (int k = 0; k < N; ++k)
      SetBits(d.act_row_i, 8 * k, 8, valid ? uint8_t(row[k]) : Junk(k));
  }

  bool weight_ready() override { return h_.dut().weight_ready_o; }
  bool act_ready() override { return h_.dut().act_ready_o; }
  bool tile_loaded() override { return h_.dut().tile_loaded_o; }
  bool out_valid() override { return h_.dut().out_valid_o; }
  uint32_t out_tag() override { return h_.dut().out_tag_o; }
  void GetOut(int32_t* row) override {
    for (int c = 0; c < N; ++c) row[c] = int32_t(GetBits(h_.dut().out_row_o, 32 * c, 32));
  }

 private:
  // A byte that changes with the lane and the cycle.
  uint8_t Junk(int lane) const {
    return uint8_t(0x5Bu + 37u * uint32_t(lane) + 101u * h_.cycle());
  }

  VerilatedHarness<Vtop> h_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_MXU_MXU_HARNESS_IMPL_H_
