// The timing model of the model device (`--backend model`): how many device cycles a program
// takes on a device configuration over a PCIe link, without simulating the RTL. It replays the
// program as the controller runs it: the dispatcher issuing in order into the four units' queues
// (dma, weights, matrix, activation), each unit in order, tokens between them, the weight FIFO
// and its capacity, MXU rows and tile switches, weight DRAM bandwidth and latency, the
// accumulator and activation pipelines, DMA at the link's rate with its TLP overheads, and
// instruction fetch over the link. Its figures are estimates, calibrated against the RTL
// (docs/model_calibration.md gives the method, the table and the bound the calibration tests
// hold it to; bench/bench_calibration.cpp measures it).
//
// Plain C++ (no SystemC): the model device (model_device.h) calls it once per program.
#ifndef TPU_SC_MODELS_MODEL_DEVICE_TIMING_MODEL_H_
#define TPU_SC_MODELS_MODEL_DEVICE_TIMING_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "devices/devices_gen.h"
#include "device/pcie_link.h"
#include "isa/isa_gen.h"

namespace tpu::sc {

// What the timing model estimates for one program, in device clock cycles from the doorbell
// (the queue starting) to the completion interrupt.
struct TimingEstimate {
  uint64_t cycles = 0;
  // Cycles the MXU streams rows (the RTL's PERF_MXU_ACTIVE counter).
  uint64_t mxu_active_cycles = 0;
  // Stall cycles by cause, the names and meanings of the RTL's counters (runtime/executor.cpp):
  // "weights", "act_in", "dma", "dep".
  std::vector<std::pair<std::string, uint64_t>> stalls;
  // PCIe payload bytes the program moves, host -> device (instruction fetch and READ_HOST) and
  // device -> host (WRITE_HOST, the completion MSI).
  uint64_t pcie_bytes_to_device = 0;
  uint64_t pcie_bytes_from_device = 0;
};

class TimingModel {
 public:
  friend class TimingRun;
  // `device` gives the sizes, the clock, the weight-DRAM beat, MPS/MRRS and DMA tags; `link`
  // the PCIe generation and width.
  TimingModel(const devices::DeviceConfig& device, const device::PcieLink& link);

  // The estimate for a program that runs to its HALT without a device error (the caller, the
  // model device, has executed it functionally first).
  TimingEstimate Estimate(const std::vector<isa::Instr>& program) const;

 private:
  devices::DeviceConfig device_;
  device::PcieLink link_;
};

// One program's estimate made as its instructions arrive (the model device's ring brings a long
// program in pieces): Add() them in program order, each call replaying as far as the
// instructions known decide, then Finish(). The estimate is Estimate()'s of the whole program,
// however it was split.
class TimingRun {
 public:
  // `model` must outlive the run.
  explicit TimingRun(const TimingModel& model);
  ~TimingRun();
  TimingRun(const TimingRun&) = delete;
  TimingRun& operator=(const TimingRun&) = delete;

  void Add(const isa::Instr* instrs, size_t count);
  // The program is complete: its estimate (call once).
  TimingEstimate Finish();
  // Starts again with no instructions, keeping the run's storage: a long program's per
  // instruction records (megabytes for a 1024^3 layer) are then neither allocated, grown and
  // copied, nor mapped again by the next program.
  void Restart();

 private:
  class Impl;
  const TimingModel& model_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tpu::sc

#endif  // TPU_SC_MODELS_MODEL_DEVICE_TIMING_MODEL_H_
