#include "common/harness_options.h"

#include <algorithm>
#include <cstdlib>

namespace tpu::tb {

HarnessOptions TestHarnessOptions(const std::string& test_name) {
  HarnessOptions opts;
  const char* trace = std::getenv("TPU_TRACE");
  if (trace == nullptr || std::string(trace) != "1") return opts;
  std::string file = test_name;
  std::replace(file.begin(), file.end(), '/', '_');
  const char* dir = std::getenv("TPU_WAVES_DIR");
  opts.trace_path = std::string(dir != nullptr ? dir : TPU_WAVES_DIR) + "/" + file + ".fst";
  return opts;
}

}  // namespace tpu::tb
