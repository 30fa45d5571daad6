// TokensHarness over the Verilated tpu_ctrl_tokens. Compiled only inside vtpu_ctrl_tokens.
#include "ctrl/tokens_harness.h"

#include "Vtpu_ctrl_tokens.h"
#include "common/port_bits.h"
#include "common/verilated_harness.h"

namespace tpu::tb {
namespace {

class TokensHarnessImpl final : public TokensHarness {
 public:
  explicit TokensHarnessImpl(const HarnessOptions& opts) : h_(opts) {}

  void Reset() override {
    SetClear(false);
    for (int p = 0; p < kPorts; ++p) {
      SetTake(p, false, 0);
      SetGive(p, false, 0);
    }
    h_.Reset();
  }
  void Tick() override { h_.Tick(); }
  void Eval() override { h_.Eval(); }

  void SetClear(bool clear) override { h_.dut().clear_i = clear; }
  void SetTake(int port, bool valid, uint8_t mask) override {
    auto& d = h_.dut();
    SetBits(d.take_valid_i, port, 1, valid);
    SetBits(d.take_mask_i, port * kTokens, kTokens, mask);
  }
  void SetGive(int port, bool valid, uint8_t mask) override {
    auto& d = h_.dut();
    SetBits(d.give_valid_i, port, 1, valid);
    SetBits(d.give_mask_i, port * kTokens, kTokens, mask);
  }

  bool grant(int port) override { return GetBits(h_.dut().take_grant_o, port, 1); }
  int count(int token) override { return int(GetBits(h_.dut().counts_o, token * 8, 8)); }
  uint8_t avail() override { return uint8_t(h_.dut().avail_o); }
  bool overflow() override { return h_.dut().overflow_o; }

 private:
  VerilatedHarness<Vtpu_ctrl_tokens> h_;
};

}  // namespace

std::unique_ptr<TokensHarness> MakeTokensHarness(const HarnessOptions& opts) {
  return std::make_unique<TokensHarnessImpl>(opts);
}

}  // namespace tpu::tb
