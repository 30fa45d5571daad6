// The Verilated DMA unit sequencer (tpu_ctrl_dma), port by port, behind an interface that does
// not depend on its size N, so that one test drives every model. Byte b of a row or beat is
// data[b]; byte masks are bit b = byte b (N <= 64).
#ifndef TPU_TESTBENCH_CTRL_DMA_HARNESS_H_
#define TPU_TESTBENCH_CTRL_DMA_HARNESS_H_

#include <array>
#include <cstdint>
#include <memory>

#include "common/harness_options.h"

namespace tpu::tb {

using DmaWords = std::array<uint32_t, 4>;  // word w = instruction bits [32w +: 32]

class DmaHarness {
 public:
  virtual ~DmaHarness() = default;

  virtual int n() const = 0;             // bytes per row and per host beat
  virtual uint32_t ub_rows() const = 0;  // UbRows the model was built with
  virtual uint64_t cycle() const = 0;    // clock cycles since construction
  virtual bool tracing() const = 0;

  virtual void Reset() = 0;  // clears every input, then resets the model
  virtual void Tick() = 0;   // one clock cycle
  virtual void Eval() = 0;   // settle combinational outputs after changing inputs

  // Inputs hold their value until set again. Data pointers hold n() bytes (ignored when !valid).
  virtual void SetAbort(bool abort) = 0;
  virtual void SetInstr(bool valid, const DmaWords& words, uint32_t index) = 0;
  virtual void SetTakeGrant(bool grant) = 0;
  virtual void SetHmReqReady(bool ready) = 0;
  virtual void SetHmRsp(bool valid, const uint8_t* data, bool error) = 0;
  virtual void SetDstReady(bool ready) = 0;
  virtual void SetUbReqReady(bool ready) = 0;
  virtual void SetUbRsp(bool valid, const uint8_t* data) = 0;

  // Outputs, valid after Eval() or Tick(). Data getters write n() bytes.
  virtual bool instr_ready() = 0;
  virtual bool take_valid() = 0;
  virtual uint8_t take_mask() = 0;
  virtual bool give_valid() = 0;
  virtual uint8_t give_mask() = 0;
  virtual bool idle() = 0;
  virtual bool blocked() = 0;
  virtual bool error() = 0;
  virtual int error_code() = 0;
  virtual uint32_t error_index() = 0;
  virtual bool stall_dep() = 0;
  virtual bool stall() = 0;
  virtual bool row() = 0;

  virtual bool hm_req_valid() = 0;
  virtual bool hm_req_write() = 0;
  virtual uint64_t hm_req_addr() = 0;
  virtual void GetHmReqWdata(uint8_t* data) = 0;
  virtual uint64_t hm_req_wmask() = 0;
  virtual bool hm_rsp_ready() = 0;

  virtual bool dst_valid() = 0;
  virtual int dst_target() = 0;
  virtual uint64_t dst_row() = 0;  // 33 bits: a DRAM byte address / N
  virtual void GetDstData(uint8_t* data) = 0;
  virtual uint64_t dst_mask() = 0;

  virtual bool ub_req_valid() = 0;
  virtual uint32_t ub_req_addr() = 0;
  virtual bool ub_rsp_ready() = 0;

  // RTL assertions that failed since construction (the simulation goes on after one; tests
  // check this count).
  virtual uint64_t assertion_failures() const = 0;
};

// One instantiation per Verilated size, each in its own library vtpu_ctrl_dma_n<N> (UbRows is
// set in testbench/ctrl/CMakeLists.txt).
template <int N>
std::unique_ptr<DmaHarness> MakeDmaHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CTRL_DMA_HARNESS_H_
