#include "core/host_memory.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tpu::tb {
namespace {

void CheckRange(uint64_t addr, size_t size) {
  if (addr > HostMemory::kSpaceBytes || size > HostMemory::kSpaceBytes - addr) {
    throw std::out_of_range("host memory access [" + std::to_string(addr) + ", +" +
                            std::to_string(size) + ") leaves the 48-bit address space");
  }
}

}  // namespace

void HostMemory::Write(uint64_t addr, const uint8_t* data, size_t size) {
  CheckRange(addr, size);
  while (size > 0) {
    const uint64_t page = addr / kPageBytes, off = addr % kPageBytes;
    const size_t take = std::min<uint64_t>(size, kPageBytes - off);
    auto [it, fresh] = pages_.try_emplace(page);
    if (fresh) it->second.fill(0);
    std::copy(data, data + take, it->second.begin() + off);
    addr += take;
    data += take;
    size -= take;
  }
}

void HostMemory::Read(uint64_t addr, uint8_t* out, size_t size) const {
  CheckRange(addr, size);
  while (size > 0) {
    const uint64_t page = addr / kPageBytes, off = addr % kPageBytes;
    const size_t take = std::min<uint64_t>(size, kPageBytes - off);
    const auto it = pages_.find(page);
    if (it == pages_.end()) {
      std::fill(out, out + take, 0);
    } else {
      std::copy(it->second.begin() + off, it->second.begin() + off + take, out);
    }
    addr += take;
    out += take;
    size -= take;
  }
}

std::vector<uint8_t> HostMemory::Read(uint64_t addr, size_t size) const {
  std::vector<uint8_t> out(size);
  Read(addr, out.data(), size);
  return out;
}

void HostMemory::Fill(uint64_t addr, size_t size, uint8_t value) {
  Write(addr, std::vector<uint8_t>(size, value));
}

}  // namespace tpu::tb
