// The Verilated DMA test top (testbench/host_if/tpu_host_dma_tb.sv: receive, read engine,
// write engine, transmit) behind a pin-level interface that does not depend on its
// parameters: the bench sets every input, evaluates, reads the outputs, then clocks.
#ifndef TPU_TESTBENCH_HOST_IF_DMA_TB_MODEL_H_
#define TPU_TESTBENCH_HOST_IF_DMA_TB_MODEL_H_

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/harness_options.h"
#include "sc_models/pcie/tlp.h"

namespace tpu::tb {

// One DMA beat of the clients' ports: tlp_width_bits / 8 bytes, byte b at [8b +: 8].
using DmaBeat = std::vector<uint8_t>;

// The parameters the model was built with.
struct DmaTbConfig {
  int max_payload = 0;
  int max_read_req = 0;
  int num_tags = 0;
  int timeout = 0;
  int idle_gap = 0;
  int tlp_width_bits = 128;  // TLP streams and DMA beats: 128, 256 or 512
  int beat_bytes() const { return tlp_width_bits / 8; }
};

struct DmaTbInputs {
  bool rx_valid = false;
  sc::TlpBeat rx_beat;
  bool tx_ready = false;
  bool reg_req_ready = false;
  bool reg_rsp_valid = false;
  uint32_t reg_rsp_rdata = 0;
  std::array<bool, 2> rd_flush{}, rd_req_valid{}, rd_req_last{}, rd_rsp_ready{};
  std::array<uint64_t, 2> rd_req_addr{};
  bool wr_flush = false, wr_close = false, wr_req_valid = false;
  uint64_t wr_req_addr = 0;
  DmaBeat wr_req_data;    // beat_bytes() when wr_req_valid
  uint64_t wr_req_mask = 0;  // bit b: byte b written
  bool msi_request = false;
  uint64_t msi_addr = 0;
  uint16_t msi_data = 0;
};

struct DmaTbOutputs {
  bool rx_ready = false;
  bool tx_valid = false;
  sc::TlpBeat tx_beat;
  bool reg_req_valid = false, reg_req_write = false;
  uint16_t reg_req_addr = 0;
  uint32_t reg_req_wdata = 0;
  uint8_t reg_req_be = 0;
  bool reg_rsp_ready = false;
  std::array<bool, 2> rd_req_ready{}, rd_rsp_valid{}, rd_rsp_error{};
  std::array<DmaBeat, 2> rd_rsp_data;  // beat_bytes() each
  bool wr_req_ready = false, wr_empty = false;
  bool msi_sent = false, rd_busy = false, cpl_unexpected = false, timeout = false;
  uint16_t rx_drop_count = 0;
};

class DmaTbModel {
 public:
  virtual ~DmaTbModel() = default;
  virtual const DmaTbConfig& config() const = 0;
  virtual void Reset() = 0;  // rst_ni low for a few cycles (inputs idle)
  // Drives the inputs and evaluates; outputs reflect this cycle.
  virtual void Eval(const DmaTbInputs& in, DmaTbOutputs* out) = 0;
  virtual void Tick() = 0;  // the clock edge
  virtual uint64_t cycle() const = 0;
};

// One per built configuration K (testbench/host_if/CMakeLists.txt).
template <int K>
std::unique_ptr<DmaTbModel> MakeDmaTbModel(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_DMA_TB_MODEL_H_
