// Linked into the fuzz tests: operator new refuses any single allocation above kCap bytes with
// std::bad_alloc, which the tests' AcceptedOrRejected reports as a failure. A reader that trusts
// a size from its input (an .npy header claiming 2^60 elements, a JSON array length) before
// checking it against what the input holds is caught here instead of exhausting the machine.
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kCap = std::size_t{256} << 20;  // far above any fuzz input's needs

void* Allocate(std::size_t size) {
  if (size > kCap) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t size) { return Allocate(size); }
void* operator new[](std::size_t size) { return Allocate(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
