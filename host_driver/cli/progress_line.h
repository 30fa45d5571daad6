// "tpu: simulating ..." on stderr every few seconds once a device run has taken more than a
// few: rewritten in place on a terminal, one line each time otherwise (logs). It hears the run
// through the runtime's ProgressObserver.
#ifndef TPU_HOST_DRIVER_CLI_PROGRESS_LINE_H_
#define TPU_HOST_DRIVER_CLI_PROGRESS_LINE_H_

#include <chrono>
#include <cstdint>

#include "runtime/layer_backend.h"

namespace tpu::cli {

class ProgressLine final : public runtime::ProgressObserver {
 public:
  void Begin(uint64_t expected_cycles) override;
  void Update(uint64_t cycles) override;
  void End() override;

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr double kFirstAfter = 3.0;  // seconds before the first line
  static double Seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  }
  uint64_t expected_ = 0;
  bool tty_ = false;
  bool printed_ = false;
  Clock::time_point start_{};
  Clock::time_point last_{};
};

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_PROGRESS_LINE_H_
