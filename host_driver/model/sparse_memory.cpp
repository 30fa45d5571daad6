#include "model/sparse_memory.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tpu::model {

void SparseMemory::CheckRange(uint64_t address, uint64_t length, const char* op) const {
  if (address > size_ || length > size_ - address) {
    throw std::out_of_range(std::string("sparse memory: ") + op + " of " + std::to_string(length) +
                            " bytes at " + std::to_string(address) + " outside [0, " +
                            std::to_string(size_) + ")");
  }
}

SparseMemory::Page* SparseMemory::Find(uint64_t page) const {
  if (page == found_page_) return found_;
  const auto it = pages_.find(page);
  if (it == pages_.end()) return nullptr;
  found_page_ = page;
  found_ = it->second.get();
  return found_;
}

void SparseMemory::Write(uint64_t address, const uint8_t* data, uint64_t length) {
  ++writes_;
  CheckRange(address, length, "write");
  while (length > 0) {
    const uint64_t page = address >> kPageBits;
    const uint64_t offset = address & (kPageSize - 1);
    const uint64_t chunk = std::min(length, kPageSize - offset);
    Page* target = Find(page);
    if (target == nullptr) {
      std::unique_ptr<Page>& slot = pages_[page];
      // A page the write covers whole is not zeroed first (DMA images and the ring's slots
      // are megabytes of whole pages).
      slot = chunk == kPageSize ? std::unique_ptr<Page>(new Page) : std::make_unique<Page>(Page{});
      target = slot.get();
    }
    std::memcpy(target->data() + offset, data, chunk);
    address += chunk;
    data += chunk;
    length -= chunk;
  }
}

void SparseMemory::Read(uint64_t address, uint8_t* out, uint64_t length) const {
  CheckRange(address, length, "read");
  while (length > 0) {
    const uint64_t page = address >> kPageBits;
    const uint64_t offset = address & (kPageSize - 1);
    const uint64_t chunk = std::min(length, kPageSize - offset);
    const Page* source = Find(page);
    if (source == nullptr) {
      std::memset(out, 0, chunk);
    } else {
      std::memcpy(out, source->data() + offset, chunk);
    }
    address += chunk;
    out += chunk;
    length -= chunk;
  }
}

std::vector<uint8_t> SparseMemory::Read(uint64_t address, uint64_t length) const {
  std::vector<uint8_t> bytes(length);
  Read(address, bytes.data(), length);
  return bytes;
}

}  // namespace tpu::model
