// Host memory as the device's DMA sees it: the 48-bit byte address space (sparse, unwritten
// bytes read as 0) plus optional fault ranges, where an access fails as a PCIe completion error
// or timeout would (DMA_ERROR). It is the store behind the driver's device::HostMemory in every
// simulated machine (the reference machine, the system model's root complex, the cycle benches).
#ifndef TPU_MODEL_HOST_MEMORY_H_
#define TPU_MODEL_HOST_MEMORY_H_

#include <cstdint>
#include <optional>
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

  // How a DMA read of a fault range is answered (a write to one is dropped, or fails where the
  // model has no posted writes).
  enum class FaultKind : uint8_t {
    kUnsupported,   // a completion with status UR
    kAbort,         // a completion with status CA
    kPoisoned,      // CplDs with EP set (poisoned data)
    kNoCompletion,  // never answered: the device's completion timeout
  };

  // DMA accesses touching a byte of [address, address + length) fail as `kind`: every later
  // one, or with `times` > 0 only the next `times` (a transient fault: TakeFault counts them).
  void AddFault(uint64_t address, uint64_t length, FaultKind kind = FaultKind::kUnsupported,
                uint64_t times = 0) {
    faults_.push_back({address, length, kind, times});
  }
  void ClearFaults() { faults_.clear(); }
  // True if [address, address + length) touches a fault range.
  bool Faults(uint64_t address, uint64_t length) const;
  // One DMA access of [address, address + length): the kind of the first fault range it
  // touches, counted against that range's `times` (the range is gone once they are used), or
  // nullopt.
  std::optional<FaultKind> TakeFault(uint64_t address, uint64_t length);
  // The kind of the first fault TakeFault returned since ClearTakenFault (what a device that
  // keeps its first failure, DMA_ERROR_CAUSE, reports).
  std::optional<FaultKind> taken_fault() const { return taken_fault_; }
  void ClearTakenFault() { taken_fault_.reset(); }

 private:
  struct Range {
    uint64_t address;
    uint64_t length;
    FaultKind kind;
    uint64_t times;  // 0: every access
  };
  SparseMemory store_;
  std::vector<Range> faults_;
  std::optional<FaultKind> taken_fault_;
};

}  // namespace tpu::model

#endif  // TPU_MODEL_HOST_MEMORY_H_
