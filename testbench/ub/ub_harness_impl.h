// UbHarness over one Verilated tpu_ub model. Compiled only inside that model's library.
#ifndef TPU_TESTBENCH_UB_UB_HARNESS_IMPL_H_
#define TPU_TESTBENCH_UB_UB_HARNESS_IMPL_H_

#include <limits>

#include "common/port_bits.h"
#include "common/verilated_harness.h"
#include "ub/ub_harness.h"

namespace tpu::tb {

template <typename Vtop, int N, uint32_t Depth>
class UbHarnessImpl final : public UbHarness {
 public:
  explicit UbHarnessImpl(const HarnessOptions& opts) : h_(opts) {
    // Keep a handle on the model's context to count assertion failures, and let them be
    // counted instead of aborting the process at the first one.
    ctx_ = &h_.context();
    ctx_->errorLimit(std::numeric_limits<int>::max());
  }

  int n() const override { return N; }
  uint32_t depth() const override { return Depth; }
  uint64_t cycle() const override { return h_.cycle(); }
  bool tracing() const override { return h_.tracing(); }

  void Reset() override {
    for (auto w : {UbWriter::kDma, UbWriter::kAct}) SetWrite(w, false, 0, nullptr, nullptr);
    for (auto r : {UbReader::kDma, UbReader::kMxu}) {
      SetReadReq(r, false, 0);
      SetReadRspReady(r, false);
    }
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  void SetWrite(UbWriter w, bool valid, uint32_t addr, const int8_t* row,
                const uint8_t* mask) override {
    auto& d = h_.dut();
    if (w == UbWriter::kDma) {
      d.dma_wr_valid_i = valid;
      d.dma_wr_addr_i = valid ? addr : 0;
      SetRow(d.dma_wr_data_i, valid ? row : nullptr);
      for (int i = 0; i < N; ++i) {
        SetBits(d.dma_wr_mask_i, i, 1, valid && (mask == nullptr || mask[i] != 0));
      }
    } else {
      d.act_wr_valid_i = valid;
      d.act_wr_addr_i = valid ? addr : 0;
      SetRow(d.act_wr_data_i, valid ? row : nullptr);
    }
  }
  void SetReadReq(UbReader r, bool valid, uint32_t addr) override {
    auto& d = h_.dut();
    if (r == UbReader::kDma) {
      d.dma_rd_req_valid_i = valid;
      d.dma_rd_req_addr_i = valid ? addr : 0;
    } else {
      d.mxu_rd_req_valid_i = valid;
      d.mxu_rd_req_addr_i = valid ? addr : 0;
    }
  }
  void SetReadRspReady(UbReader r, bool ready) override {
    if (r == UbReader::kDma) {
      h_.dut().dma_rd_rsp_ready_i = ready;
    } else {
      h_.dut().mxu_rd_rsp_ready_i = ready;
    }
  }

  bool write_ready(UbWriter w) override {
    return w == UbWriter::kDma ? h_.dut().dma_wr_ready_o : h_.dut().act_wr_ready_o;
  }
  bool read_req_ready(UbReader r) override {
    return r == UbReader::kDma ? h_.dut().dma_rd_req_ready_o : h_.dut().mxu_rd_req_ready_o;
  }
  bool read_rsp_valid(UbReader r) override {
    return r == UbReader::kDma ? h_.dut().dma_rd_rsp_valid_o : h_.dut().mxu_rd_rsp_valid_o;
  }
  void GetReadRsp(UbReader r, int8_t* row) override {
    if (r == UbReader::kDma) {
      GetRow(h_.dut().dma_rd_rsp_data_o, row);
    } else {
      GetRow(h_.dut().mxu_rd_rsp_data_o, row);
    }
  }
  bool busy() override { return h_.dut().busy_o; }
  uint64_t assertion_failures() const override { return uint64_t(ctx_->errorCount()); }

 private:
  template <typename Port>
  static void SetRow(Port& port, const int8_t* row) {
    for (int i = 0; i < N; ++i) SetBits(port, 8 * i, 8, row ? uint8_t(row[i]) : 0);
  }
  template <typename Port>
  static void GetRow(const Port& port, int8_t* row) {
    for (int i = 0; i < N; ++i) row[i] = int8_t(GetBits(port, 8 * i, 8));
  }

  VerilatedHarness<Vtop> h_;
  VerilatedContext* ctx_ = nullptr;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_UB_UB_HARNESS_IMPL_H_
