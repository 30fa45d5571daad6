// libFuzzer entry point for the .npy reader (`make fuzz`): any bytes are either decoded, and
// then re-encode to a file that decodes to the same tensor, or rejected with an npy::Error
// naming the file. Anything else (another exception, a crash, a sanitizer report) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "npy/npy.h"

namespace {

template <typename T>
void DecodeAs(std::string_view bytes) {
  try {
    const tpu::golden::Tensor<T> t = tpu::npy::Decode<T>(bytes, "fuzz.npy");
    const std::string again = tpu::npy::Encode(t);
    if (tpu::npy::Encode(tpu::npy::Decode<T>(again, "again.npy")) != again) std::abort();
  } catch (const tpu::npy::Error& e) {
    if (std::string_view(e.what()).rfind("fuzz.npy: ", 0) != 0) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  DecodeAs<int8_t>(bytes);
  DecodeAs<int32_t>(bytes);
  DecodeAs<float>(bytes);
  DecodeAs<int64_t>(bytes);
  return 0;
}
