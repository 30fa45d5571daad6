// TEMPORARY stand-in for the timing model (timing_model.h), so that the model device builds and
// its tests run before the timing model lands: it is replaced by the real one at merge. It
// counts one cycle per MXU row, per activated row and per weight row, plus the DMA bytes at the
// link's raw rate, all in sequence; no overlap, no stalls.
#include "sc_models/model_device/timing_model.h"

#include <variant>

namespace tpu::sc {

TimingModel::TimingModel(const devices::DeviceConfig& device, const device::PcieLink& link)
    : device_(device), link_(link) {}

TimingEstimate TimingModel::Estimate(const std::vector<isa::Instr>& program) const {
  TimingEstimate e;
  const double bytes_per_cycle = link_.BytesPerSecond() / (device_.clock_mhz * 1e6);
  double cycles = 0;
  e.pcie_bytes_to_device = 16 * program.size();
  for (const isa::Instr& instr : program) {
    if (const auto* m = std::get_if<isa::Matmul>(&instr)) {
      cycles += m->rows;
      e.mxu_active_cycles += m->rows;
    } else if (const auto* a = std::get_if<isa::Activate>(&instr)) {
      cycles += a->rows;
    } else if (const auto* w = std::get_if<isa::ReadWeights>(&instr)) {
      cycles += double(w->tiles) * double(device_.limits.n);
    } else if (const auto* r = std::get_if<isa::ReadHost>(&instr)) {
      cycles += r->length / bytes_per_cycle;
      e.pcie_bytes_to_device += r->length;
    } else if (const auto* wh = std::get_if<isa::WriteHost>(&instr)) {
      cycles += wh->length / bytes_per_cycle;
      e.pcie_bytes_from_device += wh->length;
    }
  }
  e.pcie_bytes_from_device += 4;  // the MSI
  e.cycles = static_cast<uint64_t>(cycles) + 1;
  e.stalls = {{"weights", 0}, {"act_in", 0}, {"dma", 0}, {"dep", 0}};
  return e;
}

}  // namespace tpu::sc
