// Sparse byte-addressed memory over the 48-bit host address space (4 KiB pages allocated on
// first write; unwritten bytes read as zero). Stands for the host's DRAM in the core tests and,
// later, behind the modeled PCIe root complex.
#ifndef TPU_TESTBENCH_CORE_HOST_MEMORY_H_
#define TPU_TESTBENCH_CORE_HOST_MEMORY_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace tpu::tb {

class HostMemory {
 public:
  static constexpr uint64_t kPageBytes = 4096;
  static constexpr uint64_t kSpaceBytes = 1ull << 48;

  void Write(uint64_t addr, const uint8_t* data, size_t size);
  void Write(uint64_t addr, const std::vector<uint8_t>& data) {
    Write(addr, data.data(), data.size());
  }
  void Read(uint64_t addr, uint8_t* out, size_t size) const;
  std::vector<uint8_t> Read(uint64_t addr, size_t size) const;
  void Fill(uint64_t addr, size_t size, uint8_t value);
  void Clear() { pages_.clear(); }

 private:
  std::map<uint64_t, std::array<uint8_t, kPageBytes>> pages_;  // by page number
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CORE_HOST_MEMORY_H_
