#include "huge_page_heap.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tpu::cli {
namespace {

constexpr char kTunable[] = "glibc.malloc.hugetlb";
constexpr char kThpEnabledPath[] = "/sys/kernel/mm/transparent_hugepage/enabled";

std::string ReadAll(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return in ? text.str() : std::string();
}

}  // namespace

std::optional<std::string> HugePageTunables(const char* tunables, const std::string& thp_enabled,
                                            const char* opt_out) {
  if (opt_out != nullptr && std::strcmp(opt_out, "0") == 0) return std::nullopt;
  // The kernel marks the mode in force with brackets: "always [madvise] never".
  if (thp_enabled.find("[madvise]") == std::string::npos) return std::nullopt;
  const std::string current = tunables != nullptr ? tunables : "";
  if (current.find(kTunable) != std::string::npos) return std::nullopt;
  const std::string ours = std::string(kTunable) + "=1";
  return current.empty() ? ours : current + ":" + ours;
}

void RestartWithHugePageHeap(char** argv) {
#if defined(__GLIBC__) && defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 35)
  const std::optional<std::string> tunables = HugePageTunables(
      std::getenv("GLIBC_TUNABLES"), ReadAll(kThpEnabledPath), std::getenv("TPU_HUGE_PAGES"));
  if (!tunables) return;
  const char* before = std::getenv("GLIBC_TUNABLES");
  const std::string saved = before != nullptr ? before : "";
  setenv("GLIBC_TUNABLES", tunables->c_str(), 1);
  execv("/proc/self/exe", argv);
  // Only a failed exec returns: go on as before.
  if (before != nullptr) {
    setenv("GLIBC_TUNABLES", saved.c_str(), 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
#endif
#endif
  (void)argv;
}

}  // namespace tpu::cli
