// HostAllocator: hands out aligned pieces of the host region a lowering may use (its images and
// its result), failing with a message that names the piece that does not fit.
#ifndef TPU_COMPILER_HOST_ALLOCATOR_H_
#define TPU_COMPILER_HOST_ALLOCATOR_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "compiler/dense_lowering.h"
#include "isa/isa_gen.h"

namespace tpu::compiler {

class HostAllocator {
 public:
  HostAllocator(const HostRegion& region, uint64_t align, std::string what)
      : region_(region), align_(align), what_(std::move(what)) {
    if (align_ == 0) throw std::invalid_argument(what_ + ": host_align must be >= 1");
    constexpr uint64_t kHostSpace = uint64_t{1} << isa::kHostAddrBits;
    if (region.base > kHostSpace || region.size > kHostSpace - region.base) {
      throw std::invalid_argument(what_ + ": host region does not fit in the 48-bit host space");
    }
  }

  uint64_t Take(uint64_t bytes, const std::string& name) {
    const uint64_t offset = (used_ + align_ - 1) / align_ * align_;
    if (offset > region_.size || bytes > region_.size - offset) {
      throw std::invalid_argument(
          what_ + ": host region of " + std::to_string(region_.size) + " bytes is too small: '" +
          name + "' needs " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset));
    }
    used_ = offset + bytes;
    return region_.base + offset;
  }

  // Takes room for `bytes` and appends them to `images` as the image `name`; returns its
  // address.
  uint64_t Place(std::vector<HostImage>& images, std::string name, std::vector<uint8_t> bytes) {
    const uint64_t address = Take(bytes.size(), name);
    images.push_back(HostImage{std::move(name), address, std::move(bytes)});
    return address;
  }

  uint64_t used() const { return used_; }

 private:
  HostRegion region_;
  uint64_t align_;
  std::string what_;
  uint64_t used_ = 0;
};

}  // namespace tpu::compiler

#endif  // TPU_COMPILER_HOST_ALLOCATOR_H_
