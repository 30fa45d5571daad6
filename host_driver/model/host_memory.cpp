#include "model/host_memory.h"

namespace tpu::model {

bool HostMemory::Faults(uint64_t address, uint64_t length) const {
  for (const Range& fault : faults_) {
    if (address < fault.address + fault.length && fault.address < address + length) return true;
  }
  return false;
}

std::optional<HostMemory::FaultKind> HostMemory::TakeFault(uint64_t address, uint64_t length) {
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (!(address < it->address + it->length && it->address < address + length)) continue;
    const FaultKind kind = it->kind;
    if (it->times > 0 && --it->times == 0) faults_.erase(it);
    if (!taken_fault_) taken_fault_ = kind;
    return kind;
  }
  return std::nullopt;
}

}  // namespace tpu::model
