// QueueHarness over one Verilated tpu_fifo model. Compiled only inside that model's
// library.
#ifndef TPU_TESTBENCH_CTRL_QUEUE_HARNESS_IMPL_H_
#define TPU_TESTBENCH_CTRL_QUEUE_HARNESS_IMPL_H_

#include <algorithm>

#include "common/port_bits.h"
#include "common/verilated_harness.h"
#include "ctrl/queue_harness.h"

namespace tpu::tb {

template <typename Vtop>
class QueueHarnessImpl final : public QueueHarness {
 public:
  QueueHarnessImpl(const QueueConfig& config, const HarnessOptions& opts)
      : config_(config), words_((config.width + 31) / 32), h_(opts) {}

  const QueueConfig& config() const override { return config_; }
  void Reset() override {
    SetClear(false);
    SetIn(false, QueueEntry(words_, 0));
    SetOutReady(false);
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  void SetClear(bool clear) override { h_.dut().clear_i = clear; }
  void SetIn(bool valid, const QueueEntry& data) override {
    auto& d = h_.dut();
    d.in_valid_i = valid;
    for (int w = 0; w < words_; ++w) {
      SetBits(d.in_data_i, 32 * w, WordBits(w), w < int(data.size()) ? data[w] : 0);
    }
  }
  void SetOutReady(bool ready) override { h_.dut().out_ready_i = ready; }

  bool in_ready() override { return h_.dut().in_ready_o; }
  bool out_valid() override { return h_.dut().out_valid_o; }
  QueueEntry out_data() override {
    QueueEntry data(words_);
    for (int w = 0; w < words_; ++w) data[w] = GetBits(h_.dut().out_data_o, 32 * w, WordBits(w));
    return data;
  }
  int count() override { return int(h_.dut().count_o); }
  bool empty() override { return h_.dut().empty_o; }

 private:
  int WordBits(int w) const { return std::min(32, config_.width - 32 * w); }

  const QueueConfig config_;
  const int words_;
  VerilatedHarness<Vtop> h_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CTRL_QUEUE_HARNESS_IMPL_H_
