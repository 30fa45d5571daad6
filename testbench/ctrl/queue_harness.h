// The Verilated per-unit instruction queue (tpu_fifo), behind an interface that does not
// depend on its parameters (Width, Depth), so that one test drives every configuration.
#ifndef TPU_TESTBENCH_CTRL_QUEUE_HARNESS_H_
#define TPU_TESTBENCH_CTRL_QUEUE_HARNESS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "common/harness_options.h"

namespace tpu::tb {

// The parameters one Verilated tpu_fifo was built with.
struct QueueConfig {
  int width = 0;  // bits per entry
  int depth = 0;  // entries
};

// One entry: 32-bit words, least significant first, (width + 31) / 32 of them; bits of the
// last word above `width` are zero when read and ignored when written.
using QueueEntry = std::vector<uint32_t>;

class QueueHarness {
 public:
  virtual ~QueueHarness() = default;

  virtual const QueueConfig& config() const = 0;
  virtual void Reset() = 0;  // asynchronous reset held for two edges; inputs go idle
  virtual void Tick() = 0;   // one clock cycle
  virtual void Eval() = 0;   // settle combinational outputs after changing inputs

  // Inputs hold their value until set again.
  virtual void SetClear(bool clear) = 0;
  virtual void SetIn(bool valid, const QueueEntry& data) = 0;
  virtual void SetOutReady(bool ready) = 0;

  // Outputs, valid after Eval() or Tick().
  virtual bool in_ready() = 0;
  virtual bool out_valid() = 0;
  virtual QueueEntry out_data() = 0;
  virtual int count() = 0;
  virtual bool empty() = 0;
};

// One instantiation per Verilated configuration, each in its own library (see
// testbench/ctrl/CMakeLists.txt): vtpu_ctrl_queue provides <160, 4> (the controller's
// queues), vtpu_ctrl_queue_w17d2 <17, 2> (narrow, the minimum depth) and
// vtpu_ctrl_queue_w33d3 <33, 3> (a depth that is not a power of two).
template <int Width, int Depth>
std::unique_ptr<QueueHarness> MakeQueueHarness(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_CTRL_QUEUE_HARNESS_H_
