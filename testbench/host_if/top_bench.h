// The device (tpu_top) in a bench, free of Verilator: the root-complex model with host memory
// on the TLP streams (testbench/host_if/root_complex.h), the weight-DRAM port model of the core
// tests (sc_models/ports/memory_ports.h) on the DRAM pins, and the host's side of the driver
// contract (docs/host_if.md): register reads and writes as TLPs, the instruction ring in host
// memory, the doorbell, soft reset and waiting for MSIs.
#ifndef TPU_TESTBENCH_HOST_IF_TOP_BENCH_H_
#define TPU_TESTBENCH_HOST_IF_TOP_BENCH_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "host_if/root_complex.h"
#include "host_if/top_model.h"
#include "isa/isa.h"
#include "model/host_memory.h"
#include "sc_models/ports/memory_ports.h"

namespace tpu::tb {

// A root complex that matches the device's MPS, MRRS and tags, with a fixed 40-cycle latency:
// the plain host of the device's benches (tests stress it from there).
RcConfig DeviceRc(const TopConfig& device, uint64_t seed);

class TopBench {
 public:
  TopBench(std::unique_ptr<TopModel> model, const RcConfig& rc_config, uint64_t seed);

  const TopConfig& config() const { return model_->config(); }
  model::HostMemory& host() { return host_; }
  RootComplex& rc() { return rc_; }
  sc::DramPortModel& dram() { return dram_; }
  uint64_t cycle() const { return model_->cycle(); }
  const TopOutputs& out() const { return out_; }

  void Step();
  void Idle(uint64_t cycles);

  // BAR0 accesses, as TLPs through the root complex. ReadReg clocks until the completion is
  // back (throws std::runtime_error if it never comes).
  void WriteReg(uint32_t offset, uint32_t value);
  uint32_t ReadReg(uint32_t offset);
  // Clocks until the root complex holds `count` MSIs in all; false if max_cycles pass first.
  bool WaitMsi(size_t count, uint64_t max_cycles);

  // MSI_ADDR / MSI_DATA, both interrupt events unmasked, CONTROL.irq_enable.
  void EnableMsi(uint64_t addr, uint16_t data);
  // RING_BASE / RING_SIZE; the host's tail starts at the device's (0 after reset).
  void SetupRing(uint64_t base, uint32_t slots);
  // Writes the words into the ring slots from the tail on (wrapping) and writes RING_TAIL
  // once (the doorbell). They must fit (at most slots - 1 waiting).
  void Submit(const std::vector<isa::Words>& program);
  // Feeds a program longer than the ring: reads RING_HEAD and fills the free slots, ringing
  // the doorbell after each batch, until every word is in. False if max_cycles pass first.
  bool Stream(const std::vector<isa::Words>& program, uint64_t max_cycles);
  // CONTROL.soft_reset (irq_enable stays set); the host's tail returns to 0 with the device's.
  void SoftReset();
  uint32_t tail() const { return tail_; }
  // The host's next slot to write (to overwrite slots the device has not run, from RING_HEAD).
  void RewindTail(uint32_t slot) { tail_ = slot % ring_slots_; }

 private:
  void WriteSlot(uint32_t slot, const isa::Words& words);

  std::unique_ptr<TopModel> model_;
  model::HostMemory host_;
  RootComplex rc_;
  sc::DramPortModel dram_;
  TopOutputs out_;
  uint64_t ring_base_ = 0;
  uint32_t ring_slots_ = 0, tail_ = 0;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_TOP_BENCH_H_
