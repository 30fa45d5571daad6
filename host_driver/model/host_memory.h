// Host memory as the device's DMA sees it: the 48-bit byte address space (sparse, unwritten
// bytes read as 0) plus optional fault ranges, where an access fails as a PCIe completion error
// or timeout would (DMA_ERROR).
#ifndef TPU_MODEL_HOST_MEMORY_H_
#define TPU_MODEL_HOST_MEMORY_H_

#include <cstdint>
#include <vector>

#include "isa/isa_gen.h"
#include "model/sparse_memory.h"

namespace tpu::model {

class HostMemory : public SparseMemory {
 public:
  HostMemory() : SparseMemory(uint64_t{1} << isa::kHostAddrBits) {}

  // Every later DMA access touching a byte of [address, address + length) fails.
  void AddFault(uint64_t address, uint64_t length) { faults_.push_back({address, length}); }
  void ClearFaults() { faults_.clear(); }
  // True if [address, address + length) touches a fault range.
  bool Faults(uint64_t address, uint64_t length) const;

 private:
  struct Range {
    uint64_t address;
    uint64_t length;
  };
  std::vector<Range> faults_;
};

}  // namespace tpu::model

#endif  // TPU_MODEL_HOST_MEMORY_H_
