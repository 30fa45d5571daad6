// Host memory as the driver sees it: the byte store its DMA buffers and instruction ring live
// in, written and read by the CPU directly (no PCIe traffic). The machine behind a DeviceBus
// owns the store (the simulated root complex's memory, a real driver's pinned pages); the
// driver needs no more than these two calls, so it does not depend on how the store is made.
#ifndef TPU_DEVICE_HOST_MEMORY_H_
#define TPU_DEVICE_HOST_MEMORY_H_

#include <cstdint>
#include <vector>

namespace tpu::device {

class HostMemory {
 public:
  virtual ~HostMemory() = default;

  // Both throw std::out_of_range unless [address, address + length) is host memory.
  virtual void Write(uint64_t address, const uint8_t* data, uint64_t length) = 0;
  virtual void Read(uint64_t address, uint8_t* out, uint64_t length) const = 0;

  void Write(uint64_t address, const std::vector<uint8_t>& bytes) {
    Write(address, bytes.data(), bytes.size());
  }
  std::vector<uint8_t> Read(uint64_t address, uint64_t length) const {
    std::vector<uint8_t> bytes(length);
    Read(address, bytes.data(), length);
    return bytes;
  }
};

}  // namespace tpu::device

#endif  // TPU_DEVICE_HOST_MEMORY_H_
