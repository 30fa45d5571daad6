// The Verilated beat-width adapter of the host interface (rtl/host_if/tpu_host_beat_adapter.sv)
// behind an interface that does not depend on its parameters, so that one test drives every
// core beat size N: the core's host-memory port on one side, the read engine's client 0 and the
// write engine (beats of TlpWidth / 8 bytes: 16, 32 or 64) on the other.
#ifndef TPU_TESTBENCH_HOST_IF_BEAT_ADAPTER_HARNESS_H_
#define TPU_TESTBENCH_HOST_IF_BEAT_ADAPTER_HARNESS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "common/harness_options.h"

namespace tpu::tb {

// The parameters one Verilated adapter was built with.
struct BeatAdapterConfig {
  int n = 0;                 // core beat bytes
  int use_depth = 0;         // N < engine beat: core reads that may wait for data
  int tlp_width_bits = 128;  // engine beat bits (TlpWidth)
  int engine_bytes() const { return tlp_width_bits / 8; }
};

// Every input, set before each Eval.
struct BeatAdapterInputs {
  bool flush = false;
  // Core requests and response handshake.
  bool hm_req_valid = false;
  bool hm_req_write = false;
  uint64_t hm_req_addr = 0;
  std::vector<uint8_t> hm_req_wdata;  // n bytes (empty: zeros)
  std::vector<bool> hm_req_wmask;     // n bits (empty: none)
  bool hm_rsp_ready = false;
  // Read engine, client 0.
  bool rd_req_ready = false;
  bool rd_rsp_valid = false;
  std::vector<uint8_t> rd_rsp_data;  // engine_bytes() (empty: zeros)
  bool rd_rsp_error = false;
  // Write engine.
  bool wr_req_ready = false;
};

// Every output, read after Eval.
struct BeatAdapterOutputs {
  bool hm_req_ready = false;
  bool hm_rsp_valid = false;
  std::vector<uint8_t> hm_rsp_rdata;  // n bytes
  bool hm_rsp_error = false;
  bool rd_req_valid = false;
  uint64_t rd_req_addr = 0;
  bool rd_rsp_ready = false;
  bool wr_req_valid = false;
  uint64_t wr_req_addr = 0;
  std::vector<uint8_t> wr_req_data;  // engine_bytes()
  uint64_t wr_req_mask = 0;          // bit b: byte b
  bool wr_held = false;
};

class BeatAdapterHarness {
 public:
  virtual ~BeatAdapterHarness() = default;
  virtual const BeatAdapterConfig& config() const = 0;
  virtual uint64_t cycle() const = 0;
  virtual void Reset() = 0;  // asynchronous reset with idle inputs
  // Sets the inputs, settles the logic and reads the outputs; then Tick clocks.
  virtual void Eval(const BeatAdapterInputs& in, BeatAdapterOutputs* out) = 0;
  virtual void Tick() = 0;
  virtual uint64_t assertion_failures() const = 0;
};

// One instantiation per Verilated configuration K, all in library vtpu_beat_adapter (see
// testbench/host_if/CMakeLists.txt).
template <int K>
std::unique_ptr<BeatAdapterHarness> MakeBeatAdapterHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_BEAT_ADAPTER_HARNESS_H_
