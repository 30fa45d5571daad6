#include "progress_line.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace tpu::cli {

void ProgressPacer::Start() {
  tty_ = isatty(STDERR_FILENO) != 0;
  printed_ = false;
  start_ = Clock::now();
  last_ = Clock::time_point{};
}

bool ProgressPacer::Due() const {
  return Seconds(start_) >= kFirstAfter && Seconds(last_) >= (tty_ ? 1.0 : 10.0);
}

void ProgressPacer::Print(const std::string& text) {
  last_ = Clock::now();
  std::fprintf(stderr, "%s%s%s", tty_ ? "\r" : "", text.c_str(), tty_ ? "" : "\n");
  std::fflush(stderr);
  printed_ = true;
}

void ProgressPacer::Finish() {
  if (printed_ && tty_) std::fputc('\n', stderr);
  printed_ = false;
}

void ProgressLine::Begin(uint64_t expected_cycles) {
  expected_ = expected_cycles;
  pacer_.Start();
}

std::string SimulationProgressText(uint64_t cycles, uint64_t expected, double seconds) {
  // The estimate (one cycle per MXU row) is a floor: stalls for weights, data or the link come
  // on top, so past it the line says so instead of sitting at ~100%; below it the share is
  // rounded down (99.7% is not done).
  char where[128];
  if (expected > 0 && cycles < expected) {
    std::snprintf(where, sizeof where, "~%.0f%% of an estimated %llu (one per MXU row)",
                  std::floor(100.0 * double(cycles) / double(expected)),
                  static_cast<unsigned long long>(expected));
  } else {
    std::snprintf(where, sizeof where,
                  "past the %llu of one per MXU row (stalls come on top; no estimate left)",
                  static_cast<unsigned long long>(expected));
  }
  char text[256];
  std::snprintf(text, sizeof text, "tpu: simulating: %llu device cycles, %s, %.0f kcycles/s",
                static_cast<unsigned long long>(cycles), where,
                seconds > 0 ? double(cycles) / seconds / 1e3 : 0.0);
  return text;
}

void ProgressLine::Update(uint64_t cycles) {
  if (!pacer_.Due()) return;
  pacer_.Print(SimulationProgressText(cycles, expected_, pacer_.elapsed()));
}

void ProgressLine::End() { pacer_.Finish(); }

void BatchProgress::Before(int64_t batch, int64_t batches, int64_t done, int64_t images) {
  if (!pacer_.Due() || done == 0) return;
  const double rate = double(done) / pacer_.elapsed();
  char text[256];
  std::snprintf(text, sizeof text,
                "tpu run: %lld of %lld images (batch %lld of %lld), %.1f images/s, ~%.0f s left ",
                static_cast<long long>(done), static_cast<long long>(images),
                static_cast<long long>(batch + 1), static_cast<long long>(batches), rate,
                double(images - done) / rate);
  pacer_.Print(text);
}

}  // namespace tpu::cli
