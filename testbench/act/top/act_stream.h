// Drives rows through an ActHarness the way the accumulators and the unified buffer will: a
// producer that offers accumulator rows tagged with their index in the stream (with optional
// random gaps; an offered row stays offered until taken) and a consumer that takes int8 rows
// (with optional random stalls). Also loads the lookup table through its write port.
#ifndef TPU_TESTBENCH_ACT_TOP_ACT_STREAM_H_
#define TPU_TESTBENCH_ACT_TOP_ACT_STREAM_H_

#include <cstdint>
#include <vector>

#include "act/top/act_harness.h"
#include "golden/activation.h"

namespace tpu::tb {

struct ActTopStreamOptions {
  double in_gap = 0.0;           // probability that the producer waits a cycle before a new row
  double out_stall = 0.0;        // probability that the consumer is not ready in a cycle
  uint64_t seed = 1;             // for the gaps and stalls
  uint64_t stall_limit = 10000;  // cycles without progress before the run counts as hung
};

struct ActTopStreamStats {
  uint64_t cycles = 0;     // from the run's first cycle to the one that took the last result
  uint64_t in_rows = 0;    // input rows accepted
  uint64_t out_rows = 0;   // output rows taken
  uint64_t in_wait = 0;    // cycles a row was offered but not taken (back-pressure)
  uint64_t out_wait = 0;   // cycles a result was offered but the consumer was not ready
  uint64_t first_in = 0;   // run-relative cycle that accepted the first input row
  uint64_t last_in = 0;    // ... and the last
  uint64_t first_out = 0;  // run-relative cycle that took the first result
  uint64_t last_out = 0;   // ... and the last
  // Input rows accepted per cycle between the first and the last: 1.0 at full throughput.
  double SteadyInRowsPerCycle() const {
    return last_in > first_in ? double(in_rows - 1) / double(last_in - first_in) : 0.0;
  }
  // Results per cycle between the first and the last result.
  double SteadyOutRowsPerCycle() const {
    return last_out > first_out ? double(out_rows - 1) / double(last_out - first_out) : 0.0;
  }
};

struct ActTopStreamResult {
  std::vector<int8_t> rows;    // out_rows x n() values, in output order
  std::vector<uint32_t> tags;  // the tag of every output row
  ActTopStreamStats stats;
};

// Writes all 256 entries, one per cycle (lut[i] is the output for input code i - 128).
// Throws std::logic_error if rows are in flight: the RTL does not allow it.
void LoadActLut(ActHarness& h, const golden::Lut& lut);

// Streams the rows of `acc` (m x n() int32, row-major) through the pipeline with the
// configuration already set, tagging row i with i mod 2^16, until `expected_rows` results have
// been taken and the pipeline is idle. Throws std::runtime_error on a hang, on more results than
// expected, or on a result after idle.
ActTopStreamResult RunActTop(ActHarness& h, const std::vector<int32_t>& acc, uint64_t expected_rows,
                             const ActTopStreamOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACT_TOP_ACT_STREAM_H_
