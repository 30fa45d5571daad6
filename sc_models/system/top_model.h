// The device (rtl/tpu_top.sv: host interface + core) behind a pin-level interface that does not
// depend on its parameters: the bench sets every input, evaluates, reads the outputs, then
// clocks. Plain C++: RtlDevice (sc_models/system/rtl_device.h) drives it inside the system
// model; the Verilated implementations and their factory MakeTopModel<K> are in
// testbench/host_if/top_model.h.
#ifndef TPU_SC_MODELS_SYSTEM_TOP_MODEL_H_
#define TPU_SC_MODELS_SYSTEM_TOP_MODEL_H_

#include <cstdint>
#include <vector>

#include "isa/isa.h"
#include "sc_models/pcie/tlp.h"

namespace tpu::sys {

// The parameters the model was built with.
struct TopConfig {
  isa::DeviceLimits limits;  // n, ub_rows, acc_rows, dram_bytes, param_sets
  int dram_width = 0;        // weight-DRAM read beat, bits
  int max_payload = 0;
  int max_read_req = 0;
  int num_tags = 0;
  int timeout = 0;
  int tlp_width_bits = 128;  // TLP stream width (rx / tx beats), bits: 128, 256 or 512
};

struct TopInputs {
  bool rx_valid = false;
  sc::TlpBeat rx_beat;
  bool tx_ready = false;
  bool wd_req_ready = false;
  bool wd_rsp_valid = false;
  const std::vector<uint8_t>* wd_rsp_data = nullptr;  // dram_width / 8 bytes when valid
  bool wd_wr_ready = false;
};

struct TopOutputs {
  bool rx_ready = false;
  bool tx_valid = false;
  sc::TlpBeat tx_beat;
  bool wd_req_valid = false;
  uint64_t wd_req_addr = 0;
  bool wd_rsp_ready = false;
  bool wd_wr_valid = false;
  uint64_t wd_wr_addr = 0;
  std::vector<uint8_t> wd_wr_data;  // n bytes
  std::vector<bool> wd_wr_mask;     // n bits
  bool running = false, done = false, error = false, msi_sent = false, dma_busy = false;
  uint16_t rx_drop_count = 0, cpl_drop_count = 0, timeout_count = 0;
};

class TopModel {
 public:
  virtual ~TopModel() = default;
  virtual const TopConfig& config() const = 0;
  virtual void Reset() = 0;  // rst_ni low for a few cycles (inputs idle)
  virtual void Eval(const TopInputs& in, TopOutputs* out) = 0;
  virtual void Tick() = 0;  // the outputs are valid again after the next Eval()
  virtual uint64_t cycle() const = 0;
};

}  // namespace tpu::sys

#endif  // TPU_SC_MODELS_SYSTEM_TOP_MODEL_H_
