// A byte-addressed memory of any size up to 2^64 that stores only the pages written: the host
// address space (48 bits) and the weight DRAM (up to 8 GiB) of the reference machine.
#ifndef TPU_MODEL_SPARSE_MEMORY_H_
#define TPU_MODEL_SPARSE_MEMORY_H_

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace tpu::model {

class SparseMemory {
 public:
  // Addresses [0, size). Bytes never written read as 0.
  explicit SparseMemory(uint64_t size) : size_(size) {}

  uint64_t size() const { return size_; }

  // Throw std::out_of_range unless [address, address + length) lies inside the memory.
  void Write(uint64_t address, const uint8_t* data, uint64_t length);
  void Write(uint64_t address, const std::vector<uint8_t>& bytes) {
    Write(address, bytes.data(), bytes.size());
  }
  void Read(uint64_t address, uint8_t* out, uint64_t length) const;
  std::vector<uint8_t> Read(uint64_t address, uint64_t length) const;

  // Forgets every byte (all read as 0 again).
  void Clear() {
    pages_.clear();
    found_ = nullptr;
    found_page_ = kNoPage;
    ++writes_;
  }

  // Counts Write and Clear calls: a reader that keeps something derived from the contents
  // (the machine's packed weight tiles) knows it is still valid while this has not moved.
  uint64_t writes() const { return writes_; }

 private:
  static constexpr int kPageBits = 12;
  static constexpr uint64_t kPageSize = uint64_t{1} << kPageBits;
  using Page = std::array<uint8_t, kPageSize>;

  void CheckRange(uint64_t address, uint64_t length, const char* op) const;
  // The page's storage, or nullptr if it was never written; the last one found is kept (the
  // ring's slots and DMA transfers go through one page after the other).
  Page* Find(uint64_t page) const;
  static constexpr uint64_t kNoPage = ~uint64_t{0};

  uint64_t size_;
  uint64_t writes_ = 0;
  mutable uint64_t found_page_ = kNoPage;
  mutable Page* found_ = nullptr;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
};

}  // namespace tpu::model

#endif  // TPU_MODEL_SPARSE_MEMORY_H_
