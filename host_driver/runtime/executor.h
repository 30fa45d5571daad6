// The one run sequence of a lowered program on a device, whatever the device is behind its bus
// (the system model, a cycle bench, a real card): place the program's host images, run it
// (doorbell to interrupt), read its output back, gather the figures of the run. The device
// backend, the benches and the tests all run programs through Execute.
//
//   device::Device dev(bus);
//   const compiler::DenseProgram p = compiler::LowerDense(x, layer, dev.info().limits, region);
//   const runtime::Execution e = runtime::Execute(dev, p, macs);
//   // e.output, e.stats (cycles, utilization, stalls, PCIe bytes), e.result (raw counters)
#ifndef TPU_RUNTIME_EXECUTOR_H_
#define TPU_RUNTIME_EXECUTOR_H_

#include <cstdint>
#include <vector>

#include "compiler/dense_lowering.h"
#include "device/device.h"
#include "golden/tensor.h"
#include "runtime/layer_backend.h"

namespace tpu::runtime {

struct Execution {
  golden::Tensor<int8_t> output;  // empty when the program left its output in the UB
  RunStats stats;                 // the figures of this run
  device::RunResult result;       // the device's counters and the run's simulated times
};

// Runs `program` on `dev` and measures it; `macs` (the layer's useful multiply-accumulates)
// gives the MXU utilization. `progress`, if not null, hears how the run
// advances. Throws what Device::Run throws (device::DeviceError on a device error or a hang).
Execution Execute(device::Device& dev, const compiler::DenseProgram& program, int64_t macs,
                  ProgressObserver* progress = nullptr);

// The figures of a run: the device's performance counters in `result` and the difference of
// the bus counters read before and after it.
RunStats MeasureRun(const device::RunResult& result, const device::BusCounters& before,
                    const device::BusCounters& after, int64_t n, int64_t macs);

// MXU rows the program multiplies (its MATMULs' rows): the cycles it is expected to take at
// one row per cycle, the progress line's yardstick.
uint64_t MatmulRows(const isa::Program& program);

}  // namespace tpu::runtime

#endif  // TPU_RUNTIME_EXECUTOR_H_
