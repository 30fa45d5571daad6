#include "runtime/executor.h"

#include <cstddef>
#include <variant>

#include "regs/regs.h"

namespace tpu::runtime {
namespace {

// Device cycles between progress updates.
constexpr uint64_t kProgressEvery = 1 << 15;

// Stops the bus's cycle hook and ends the progress however the run ends. The expected
// cycles (the program's MATMUL rows) are counted only for a progress: the walk decodes the
// program's MATMULs once more (a 1024^3 layer has 139,264).
class ProgressScope {
 public:
  ProgressScope(device::DeviceBus& bus, ProgressObserver* progress,
                const isa::Program& program)
      : bus_(bus), progress_(progress) {
    if (!progress_) return;
    const uint64_t start = bus_.counters().device_cycles.value_or(0);
    progress_->Begin(MatmulRows(program));
    bus_.SetCycleHook(kProgressEvery,
                      [this, start](uint64_t cycle) { progress_->Update(cycle - start); });
  }
  ~ProgressScope() {
    if (!progress_) return;
    bus_.SetCycleHook(0, nullptr);
    progress_->End();
  }
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

 private:
  device::DeviceBus& bus_;
  ProgressObserver* progress_;
};

template <typename T>
std::optional<int64_t> Difference(const std::optional<T>& before, const std::optional<T>& after) {
  if (!before || !after) return std::nullopt;
  return static_cast<int64_t>(*after - *before);
}

}  // namespace

uint64_t MatmulRows(const isa::Program& program) {
  uint64_t rows = 0;
  for (std::size_t i = 0; i < program.size(); ++i) {
    if (program.OpcodeAt(i) == isa::Opcode::kMatmul) rows += std::get<isa::Matmul>(program[i]).rows;
  }
  return rows;
}

RunStats MeasureRun(const device::RunResult& r, const device::BusCounters& before,
                    const device::BusCounters& after, int64_t n, int64_t macs) {
  RunStats s;
  s.cycles = static_cast<int64_t>(r.perf[regs::kPerfCycles]);
  s.clock_mhz = after.clock_mhz;
  if (*s.cycles > 0) s.mxu_utilization = double(macs) / (double(n * n) * double(*s.cycles));
  s.device_seconds = (r.end_ns - r.start_ns) * 1e-9;
  s.stalls = {{"weights", int64_t(r.perf[regs::kPerfStallWeights])},
              {"act_in", int64_t(r.perf[regs::kPerfStallActIn])},
              {"dma", int64_t(r.perf[regs::kPerfStallDma])},
              {"dep", int64_t(r.perf[regs::kPerfStallDep])}};
  s.pcie_bytes_to_device =
      Difference(before.payload_bytes_to_device, after.payload_bytes_to_device);
  s.pcie_bytes_from_device =
      Difference(before.payload_bytes_from_device, after.payload_bytes_from_device);
  s.pcie_payload_limit_bytes_per_s = after.payload_limit_bytes_per_s;
  s.simulated_cycles = Difference(before.device_cycles, after.device_cycles);
  if (before.link_to_device && after.link_to_device) {
    s.pcie_link_to_device = after.link_to_device->Since(*before.link_to_device);
  }
  if (before.link_from_device && after.link_from_device) {
    s.pcie_link_from_device = after.link_from_device->Since(*before.link_from_device);
  }
  s.timing_estimated = after.timing_estimated;
  return s;
}

Execution Execute(device::Device& dev, const compiler::DenseProgram& program, int64_t macs,
                  ProgressObserver* progress) {
  device::DeviceBus& bus = dev.bus();
  for (const auto& image : program.images) dev.host_memory().Write(image.address, image.bytes);
  Execution e;
  const device::BusCounters before = bus.counters();
  {
    ProgressScope scope(bus, progress, program.instrs);
    e.result = dev.Run(program.instrs);
  }
  e.stats = MeasureRun(e.result, before, bus.counters(), dev.info().limits.n, macs);
  if (!program.ub_output) {
    e.output = compiler::ExtractLayerOutput(program, [&](uint64_t address, uint64_t length) {
      return dev.host_memory().Read(address, length);
    });
  }
  return e;
}

}  // namespace tpu::runtime
