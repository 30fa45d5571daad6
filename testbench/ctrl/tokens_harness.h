// The Verilated dependency-token counters (tpu_ctrl_tokens, 8 tokens, 5 ports).
#ifndef TPU_TESTBENCH_CTRL_TOKENS_HARNESS_H_
#define TPU_TESTBENCH_CTRL_TOKENS_HARNESS_H_

#include <cstdint>
#include <memory>

#include "common/harness_options.h"

namespace tpu::tb {

class TokensHarness {
 public:
  static constexpr int kTokens = 8;
  static constexpr int kPorts = 5;

  virtual ~TokensHarness() = default;

  virtual void Reset() = 0;  // asynchronous reset; inputs go idle
  virtual void Tick() = 0;   // one clock cycle
  virtual void Eval() = 0;   // settle combinational outputs after changing inputs

  // Inputs hold their value until set again; masks are 8 bits, bit t = token t.
  virtual void SetClear(bool clear) = 0;
  virtual void SetTake(int port, bool valid, uint8_t mask) = 0;
  virtual void SetGive(int port, bool valid, uint8_t mask) = 0;

  // Outputs, valid after Eval() or Tick().
  virtual bool grant(int port) = 0;
  virtual int count(int token) = 0;
  virtual uint8_t avail() = 0;
  virtual bool overflow() = 0;
};

// In library vtpu_ctrl_tokens.
std::unique_ptr<TokensHarness> MakeTokensHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CTRL_TOKENS_HARNESS_H_
