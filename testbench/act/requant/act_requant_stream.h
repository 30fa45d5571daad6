// Drives rows through an ActRequantHarness the way the accumulators and the unified buffer
// will: a producer that offers accumulator rows (with optional random gaps) and a consumer that
// takes int8 rows (with optional random stalls), checking that every row comes back once and in
// order (by its tag). Also loads the lookup table through its write port.
#ifndef TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_STREAM_H_
#define TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_STREAM_H_

#include <cstdint>
#include <vector>

#include "act/requant/act_requant_harness.h"
#include "golden/activation.h"

namespace tpu::tb {

struct ActStreamOptions {
  double in_gap = 0.0;           // probability that the producer waits a cycle before a new row
  double out_stall = 0.0;        // probability that the consumer is not ready in a cycle
  uint64_t seed = 1;             // for the gaps and stalls
  uint64_t stall_limit = 10000;  // cycles without progress before the run counts as hung
};

struct ActStreamStats {
  uint64_t rows = 0;         // rows streamed
  uint64_t cycles = 0;       // from the run's first cycle to the one that took the last result
  uint64_t in_wait = 0;      // cycles a row was offered but not taken (back-pressure)
  uint64_t out_stalled = 0;  // cycles a result was offered but the consumer was not ready
  uint64_t first_out = 0;    // run-relative cycle that took the first result
  uint64_t last_out = 0;     // ... and the last
  // Results per cycle between the first and the last result: 1.0 at full throughput.
  double SteadyRowsPerCycle() const {
    return last_out > first_out ? double(rows - 1) / double(last_out - first_out) : 0.0;
  }
};

// Writes all 256 entries, one per cycle (lut[i] is the output for input code i - 128).
// Throws std::logic_error if rows are in flight: the RTL does not allow it.
void LoadLut(ActRequantHarness& h, const golden::Lut& lut);

// Streams the rows of `acc` (m x n() int32, row-major, m = acc.size() / n()) through the stage
// with the configuration already set, and returns the m x n() int8 results. Returns with the
// pipeline empty. Throws std::runtime_error if a result is lost, duplicated or out of order, or
// the stage stops making progress.
std::vector<int8_t> RunActRequant(ActRequantHarness& h, const std::vector<int32_t>& acc,
                                  const ActStreamOptions& opts = {},
                                  ActStreamStats* stats = nullptr);

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACT_REQUANT_ACT_REQUANT_STREAM_H_
