#include "common/harness_options.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>

namespace tpu::tb {

HarnessOptions TestHarnessOptions(const std::string& test_name) {
  HarnessOptions opts;
  const char* seed = std::getenv("TPU_RANDOM_INIT_SEED");
  if (seed != nullptr && *seed != '\0') {
    opts.random_init_seed = static_cast<uint32_t>(std::strtoul(seed, nullptr, 0));
  }
  const char* trace = std::getenv("TPU_TRACE");
  if (trace == nullptr || std::string(trace) != "1") return opts;
  std::string file = test_name;
  std::replace(file.begin(), file.end(), '/', '_');
  const char* dir = std::getenv("TPU_WAVES_DIR");
  opts.trace_path = std::string(dir != nullptr ? dir : TPU_WAVES_DIR) + "/" + file + ".fst";
  return opts;
}

std::string CoverageFilePath() {
  static std::atomic<int> harnesses{0};
  const char* dir = std::getenv("TPU_COVERAGE_DIR");
  const std::string folder = dir != nullptr && *dir != '\0' ? dir : TPU_COVERAGE_DIR;
  std::filesystem::create_directories(folder);
  // The pid alone can come back in a long run; the start time of the process keeps it apart.
  static const long long start = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::system_clock::now().time_since_epoch()).count();
  return folder + "/cov_" + std::to_string(start) + "_" + std::to_string(getpid()) + "_" +
         std::to_string(harnesses++) + ".dat";
}

}  // namespace tpu::tb
