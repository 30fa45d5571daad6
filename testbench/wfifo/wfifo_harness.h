// The Verilated weight FIFO (tpu_wfifo), behind an interface that does not depend on its
// parameters (N, DRAM beat width, depth), so that one test drives every configuration.
#ifndef TPU_TESTBENCH_WFIFO_WFIFO_HARNESS_H_
#define TPU_TESTBENCH_WFIFO_WFIFO_HARNESS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "common/harness_options.h"

namespace tpu::tb {

// The parameters one Verilated tpu_wfifo was built with.
struct WfifoConfig {
  int n = 0;            // weights (bytes) per row and rows per tile
  int dram_width = 0;   // DRAM beat bits
  int depth_tiles = 0;  // memory depth in tiles

  int beat_bytes() const { return dram_width / 8; }
  std::string Name() const;  // e.g. "N8_DW32_D4", usable in test names
};

class WfifoHarness {
 public:
  virtual ~WfifoHarness() = default;

  virtual const WfifoConfig& config() const = 0;
  virtual uint64_t cycle() const = 0;  // clock cycles since construction
  virtual bool tracing() const = 0;

  virtual void Reset() = 0;  // asynchronous reset; inputs go idle
  virtual void Tick() = 0;   // one clock cycle
  virtual void Eval() = 0;   // settle combinational outputs after changing inputs

  // Inputs hold their value until set again. `beat` has config().beat_bytes() bytes, byte b
  // at bits [8b +: 8]; ignored when !valid.
  virtual void SetDram(bool valid, const uint8_t* beat) = 0;
  virtual void SetWeightReady(bool ready) = 0;
  virtual void SetFlush(bool flush) = 0;

  // Outputs, valid after Eval() or Tick().
  virtual bool dram_ready() = 0;
  virtual bool weight_valid() = 0;
  virtual void GetRow(uint8_t* row) = 0;  // config().n bytes, byte c = output column c
  virtual int rows() = 0;
  virtual int tiles() = 0;
  virtual bool empty() = 0;
  virtual bool full() = 0;
};

// One instantiation per Verilated configuration, each in its own library
// vtpu_wfifo_n<N>_dw<DW>_d<D>: link the library of every configuration you call.
template <int N, int DW, int D>
std::unique_ptr<WfifoHarness> MakeWfifoHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_WFIFO_WFIFO_HARNESS_H_
