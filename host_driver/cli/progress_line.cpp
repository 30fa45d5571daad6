#include "progress_line.h"

#include <unistd.h>

#include <cstdio>

namespace tpu::cli {

void ProgressLine::Begin(uint64_t expected_cycles) {
  expected_ = expected_cycles;
  tty_ = isatty(STDERR_FILENO) != 0;
  printed_ = false;
  start_ = Clock::now();
  last_ = Clock::time_point{};
}

void ProgressLine::Update(uint64_t cycles) {
  const double elapsed = Seconds(start_);
  if (elapsed < kFirstAfter || Seconds(last_) < (tty_ ? 1.0 : 10.0)) return;
  last_ = Clock::now();
  const double pct = expected_ ? 100.0 * double(cycles) / double(expected_) : 0.0;
  std::fprintf(stderr,
               "%stpu: simulating: %llu device cycles, ~%.0f%% of an estimated %llu (one per "
               "MXU row), %.0f kcycles/s%s",
               tty_ ? "\r" : "", static_cast<unsigned long long>(cycles), pct > 100 ? 100.0 : pct,
               static_cast<unsigned long long>(expected_), double(cycles) / elapsed / 1e3,
               tty_ ? "" : "\n");
  std::fflush(stderr);
  printed_ = true;
}

void ProgressLine::End() {
  if (printed_ && tty_) std::fputc('\n', stderr);
  printed_ = false;
}

}  // namespace tpu::cli
