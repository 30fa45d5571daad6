// The weight FIFO chained into the MXU (test-bench top tpu_wfifo_mxu_tb_top): weights enter as
// weight-DRAM beats, activations and results as on the bare MXU. Independent of the
// configuration, like MxuHarness.
#ifndef TPU_TESTBENCH_WFIFO_WFIFO_MXU_HARNESS_H_
#define TPU_TESTBENCH_WFIFO_WFIFO_MXU_HARNESS_H_

#include <cstdint>
#include <memory>

#include "common/harness_options.h"
#include "wfifo/wfifo_harness.h"

namespace tpu::tb {

class WfifoMxuHarness {
 public:
  virtual ~WfifoMxuHarness() = default;

  virtual const WfifoConfig& config() const = 0;  // FIFO parameters; the MXU is N x N
  virtual int latency() const = 0;                // MXU: accepted row to result, cycles
  virtual uint64_t cycle() const = 0;
  virtual bool tracing() const = 0;

  virtual void Reset() = 0;
  virtual void Tick() = 0;
  virtual void Eval() = 0;

  // Inputs hold their value until set again; ignored when !valid.
  virtual void SetDram(bool valid, const uint8_t* beat) = 0;  // config().beat_bytes() bytes
  virtual void SetAct(bool valid, bool new_tile, const int8_t* row, uint32_t tag) = 0;
  virtual void SetFlush(bool flush) = 0;

  // Outputs, valid after Eval() or Tick().
  virtual bool dram_ready() = 0;
  virtual bool act_ready() = 0;
  virtual bool out_valid() = 0;
  virtual uint32_t out_tag() = 0;
  virtual void GetOut(int32_t* row) = 0;  // config().n values
  virtual bool tile_loaded() = 0;
  virtual bool weight_valid() = 0;  // the FIFO offers a row to the MXU
  virtual bool weight_ready() = 0;  // the MXU would take it
  virtual int fifo_rows() = 0;
  virtual int fifo_tiles() = 0;
};

// One instantiation per Verilated configuration, each in its own library
// vtpu_wfifo_mxu_n<N>_dw<DW>_d<D>.
template <int N, int DW, int D>
std::unique_ptr<WfifoMxuHarness> MakeWfifoMxuHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_WFIFO_WFIFO_MXU_HARNESS_H_
