// Both Verilated divider models. Compiled only inside their library (vtpu_act_pool_div).
#include "act/pool/act_pool_div_model.h"

#include <verilated.h>

#include "Vtpu_act_pool_div_c16.h"
#include "Vtpu_act_pool_div_c9.h"

namespace tpu::tb {
namespace {

template <typename Vtop, int SumWidth, int MaxCount>
class ActPoolDivModelImpl final : public ActPoolDivModel {
 public:
  ActPoolDivModelImpl() {
    ctx_ = std::make_unique<VerilatedContext>();
    // Keep our context current around construction and destruction (see VerilatedHarness).
    Verilated::threadContextp(ctx_.get());
    top_ = std::make_unique<Vtop>(ctx_.get(), "TOP");
  }
  ~ActPoolDivModelImpl() override {
    top_->final();
    Verilated::threadContextp(ctx_.get());
    top_.reset();
  }

  int sum_width() const override { return SumWidth; }
  int max_count() const override { return MaxCount; }

  int32_t Avg(int32_t sum, int count) override {
    const uint32_t mask = (1u << SumWidth) - 1;
    // The preparation half first, its constants handed back as the pooling unit registers them.
    top_->count_i = uint32_t(count);
    top_->eval();
    top_->recip_i = top_->recip_o;
    top_->sum_i = uint32_t(sum) & mask;
    top_->eval();
    const uint32_t raw = uint32_t(top_->avg_o) & mask;
    // Sign-extend SumWidth bits.
    return int32_t(raw << (32 - SumWidth)) >> (32 - SumWidth);
  }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtop> top_;
};

}  // namespace

std::unique_ptr<ActPoolDivModel> MakeActPoolDivModel16() {
  return std::make_unique<ActPoolDivModelImpl<Vtpu_act_pool_div_c16, 12, 16>>();
}

std::unique_ptr<ActPoolDivModel> MakeActPoolDivModel9() {
  return std::make_unique<ActPoolDivModelImpl<Vtpu_act_pool_div_c9, 12, 9>>();
}

}  // namespace tpu::tb
