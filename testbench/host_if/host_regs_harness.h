// The Verilated BAR0 register file (tpu_host_regs), behind an interface that does not depend on
// its parameters (the capabilities it reports), so that one test drives every configuration.
#ifndef TPU_TESTBENCH_HOST_IF_HOST_REGS_HARNESS_H_
#define TPU_TESTBENCH_HOST_IF_HOST_REGS_HARNESS_H_

#include <array>
#include <cstdint>
#include <memory>

#include "common/harness_options.h"

namespace tpu::tb {

// The parameters one Verilated tpu_host_regs was built with.
struct HostRegsConfig {
  uint32_t n = 0;
  uint32_t ub_rows = 0;
  uint32_t acc_rows = 0;
  uint64_t dram_bytes = 0;  // CAP_DRAM_BYTES_LO / _HI
  uint32_t param_sets = 0;
  uint32_t max_payload = 0;
  uint32_t max_read_req = 0;
  uint32_t hw_version = 0;
};

inline constexpr int kHostRegsPerfCounters = 10;

// What the core and the rest of the host interface tell the register file (inputs).
struct HostRegsStatus {
  bool running = false;
  bool done = false;
  bool error = false;
  uint8_t error_code = 0;
  uint32_t error_index = 0;
  bool irq = false;               // pulse when done or error rises
  std::array<uint64_t, kHostRegsPerfCounters> perf{};
  bool ring_fetch_error = false;  // pulse
  uint16_t ring_head = 0;
  bool dma_busy = false;
};

// What the register file drives besides the request/response handshake (outputs).
struct HostRegsOutputs {
  bool soft_reset = false;  // pulse
  bool irq_enable = false;
  uint8_t irq_mask = 0;     // [0] done, [1] error
  uint64_t msi_addr = 0;
  uint16_t msi_data = 0;
  uint64_t ring_base = 0;
  uint32_t ring_size = 0;   // 17 bits
  uint16_t ring_tail = 0;
  bool doorbell = false;     // pulse
  bool msi_request = false;  // pulse

  bool operator==(const HostRegsOutputs& o) const {
    return soft_reset == o.soft_reset && irq_enable == o.irq_enable && irq_mask == o.irq_mask &&
           msi_addr == o.msi_addr && msi_data == o.msi_data && ring_base == o.ring_base &&
           ring_size == o.ring_size && ring_tail == o.ring_tail && doorbell == o.doorbell &&
           msi_request == o.msi_request;
  }
  bool operator!=(const HostRegsOutputs& o) const { return !(*this == o); }
};

class HostRegsHarness {
 public:
  virtual ~HostRegsHarness() = default;

  virtual const HostRegsConfig& config() const = 0;
  virtual uint64_t cycle() const = 0;
  virtual void Reset() = 0;  // asynchronous reset; inputs go idle (stopped core, ring head 0)
  virtual void Tick() = 0;   // one clock cycle
  virtual void Eval() = 0;   // settle combinational outputs after changing inputs

  // Inputs hold their value until set again.
  virtual void SetRequest(bool valid, bool write, uint32_t addr, uint32_t wdata, uint8_t be) = 0;
  virtual void SetRspReady(bool ready) = 0;
  virtual void SetStatus(const HostRegsStatus& status) = 0;

  // Outputs, valid after Eval() or Tick().
  virtual bool req_ready() = 0;
  virtual bool rsp_valid() = 0;
  virtual uint32_t rsp_rdata() = 0;
  virtual HostRegsOutputs outputs() = 0;
  virtual uint64_t assertion_failures() const = 0;
};

// One instantiation per Verilated configuration K, all in library vtpu_host_regs (see
// testbench/host_if/CMakeLists.txt).
template <int K>
std::unique_ptr<HostRegsHarness> MakeHostRegsHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_HOST_REGS_HARNESS_H_
