// Progress on stderr for long runs, once they have taken more than a few seconds: rewritten in
// place on a terminal (every second), one line every 10 s otherwise (logs). ProgressLine says
// "tpu: simulating ..." during one device run (it hears the run through the runtime's
// ProgressObserver); BatchProgress counts the images and batches of a data-set run.
#ifndef TPU_HOST_DRIVER_CLI_PROGRESS_LINE_H_
#define TPU_HOST_DRIVER_CLI_PROGRESS_LINE_H_

#include <chrono>
#include <cstdint>
#include <string>

#include "runtime/layer_backend.h"

namespace tpu::cli {

// When a progress line is due, and printing it.
class ProgressPacer {
 public:
  void Start();
  // True when a line is due: kFirstAfter seconds after Start, then every second on a terminal,
  // every 10 s otherwise.
  bool Due() const;
  // Prints `text` (rewritten in place on a terminal, a line of its own otherwise).
  void Print(const std::string& text);
  // Ends an in-place line with a newline.
  void Finish();
  double elapsed() const { return Seconds(start_); }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr double kFirstAfter = 3.0;  // seconds before the first line
  static double Seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  }
  bool tty_ = false;
  bool printed_ = false;
  Clock::time_point start_{};
  Clock::time_point last_{};
};

// ProgressLine's text after `seconds` of wall time: the cycles so far against the estimate
// `expected` (0: none) while below it, and that the estimate is passed once it is.
std::string SimulationProgressText(uint64_t cycles, uint64_t expected, double seconds);

class ProgressLine final : public runtime::ProgressObserver {
 public:
  void Begin(uint64_t expected_cycles) override;
  void Update(uint64_t cycles) override;
  void End() override;

 private:
  uint64_t expected_ = 0;
  ProgressPacer pacer_;
};

// "tpu run: 1200 of 2000 images (batch 600 of 1000), 35.2 images/s, ~23 s left".
class BatchProgress {
 public:
  BatchProgress() { pacer_.Start(); }
  // Before batch `batch` (from 0) of `batches`, `done` of `images` images behind.
  void Before(int64_t batch, int64_t batches, int64_t done, int64_t images);
  void Finish() { pacer_.Finish(); }

 private:
  ProgressPacer pacer_;
};

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_PROGRESS_LINE_H_
