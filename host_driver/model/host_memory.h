// Host memory as the device's DMA sees it: the 48-bit byte address space (sparse, unwritten
// bytes read as 0) plus optional fault ranges, where an access fails as a PCIe completion error
// or timeout would (DMA_ERROR). It is the store behind the driver's device::HostMemory in every
// simulated machine (the reference machine, the system model's root complex, the cycle benches).
#ifndef TPU_MODEL_HOST_MEMORY_H_
#define TPU_MODEL_HOST_MEMORY_H_

#include <cstdint>
#include <vector>

#include "device/host_memory.h"
#include "isa/isa_gen.h"
#include "model/sparse_memory.h"

namespace tpu::model {

class HostMemory : public device::HostMemory {
 public:
  HostMemory() : store_(uint64_t{1} << isa::kHostAddrBits) {}

  using device::HostMemory::Read;
  using device::HostMemory::Write;
  void Write(uint64_t address, const uint8_t* data, uint64_t length) override {
    store_.Write(address, data, length);
  }
  void Read(uint64_t address, uint8_t* out, uint64_t length) const override {
    store_.Read(address, out, length);
  }
  uint64_t size() const { return store_.size(); }
  // Forgets every byte (all read as 0 again); the fault ranges stay.
  void Clear() { store_.Clear(); }

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
  SparseMemory store_;
  std::vector<Range> faults_;
};

}  // namespace tpu::model

#endif  // TPU_MODEL_HOST_MEMORY_H_
