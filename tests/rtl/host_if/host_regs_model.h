// Reference model of the BAR0 register file (docs/registers.md, docs/host_if.md section 2),
// clock edge by clock edge, written against the generated C++ map (tpu::regs). The test bench
// calls Clock() once per clock edge with what the register file sees before that edge; the
// model returns the data of a read taken at that edge and then holds the outputs expected in
// the cycle after it.
#ifndef TPU_TESTS_RTL_HOST_IF_HOST_REGS_MODEL_H_
#define TPU_TESTS_RTL_HOST_IF_HOST_REGS_MODEL_H_

#include <array>
#include <cstdint>

#include "host_if/host_regs_harness.h"

namespace tpu::tb {

// A register access taken at a clock edge.
struct RegAccess {
  bool take = false;  // a request is taken at this edge
  bool write = false;
  uint32_t addr = 0;
  uint32_t wdata = 0;
  uint8_t be = 0;
};

class HostRegsModel {
 public:
  explicit HostRegsModel(const HostRegsConfig& config) : config_(config) { Reset(); }

  void Reset();
  // One clock edge: `access` is the request taken at it (if any), `status` the inputs during
  // the cycle before it. Returns the data of a read (0 for a write or no access).
  uint32_t Clock(const RegAccess& access, const HostRegsStatus& status);
  // What a read of `addr` would return in the current cycle.
  uint32_t Read(uint32_t addr, const HostRegsStatus& status) const;
  // Outputs expected in the current cycle.
  const HostRegsOutputs& outputs() const { return out_; }

  // The value a register with a parameter reset reports (VERSION, CAP_*).
  uint32_t ParameterValue(uint32_t offset) const;
  bool fetch_error() const { return fetch_err_; }
  uint32_t irq_status() const { return irq_status_; }

 private:
  void UpdateOutputs();

  HostRegsConfig config_;
  // Register images at their bit positions (tpu::regs masks apply).
  uint32_t control_ = 0;  // irq_enable only
  uint32_t irq_status_ = 0, irq_mask_ = 0;
  uint32_t msi_addr_lo_ = 0, msi_addr_hi_ = 0, msi_data_ = 0;
  uint32_t ring_base_lo_ = 0, ring_base_hi_ = 0, ring_size_ = 0, ring_tail_ = 0;
  // WATCHDOG, its count of cycles without progress (the harness drives no progress, so every
  // running cycle counts) and the watchdog error it latched.
  uint32_t watchdog_ = 0, wdog_count_ = 0;
  bool wdog_err_ = false;
  std::array<uint32_t, kHostRegsPerfCounters> perf_hi_{};
  bool fetch_err_ = false;
  bool soft_reset_pulse_ = false, doorbell_pulse_ = false, msi_pulse_ = false;
  HostRegsOutputs out_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTS_RTL_HOST_IF_HOST_REGS_MODEL_H_
