#include "model/host_memory.h"

namespace tpu::model {

bool HostMemory::Faults(uint64_t address, uint64_t length) const {
  for (const Range& fault : faults_) {
    if (address < fault.address + fault.length && fault.address < address + length) return true;
  }
  return false;
}

}  // namespace tpu::model
