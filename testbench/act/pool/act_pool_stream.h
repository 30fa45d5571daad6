// Streams whole images through a pooling-unit harness: every input row is offered with a tag (its
// index in the stream), output rows are collected with theirs, and optional random gaps on the
// input and random stalls of the output exercise both valid/ready handshakes.
#ifndef TPU_TESTBENCH_ACT_POOL_ACT_POOL_STREAM_H_
#define TPU_TESTBENCH_ACT_POOL_ACT_POOL_STREAM_H_

#include <cstdint>
#include <vector>

#include "act/pool/act_pool_harness.h"

namespace tpu::tb {

struct ActPoolStreamOptions {
  double in_gap = 0.0;           // probability that an input row is held back for a cycle
  double out_stall = 0.0;        // probability that out_ready is low for a cycle
  uint64_t seed = 1;             // for the gaps and stalls
  uint64_t out_hold = 0;         // cycles out_ready stays low at the start (back-pressure test)
  uint64_t stall_limit = 10000;  // cycles without progress before the run counts as hung
};

struct ActPoolStreamStats {
  uint64_t cycles = 0;    // from the first offered row until the unit is idle again
  uint64_t in_rows = 0;   // input rows accepted
  uint64_t out_rows = 0;  // output rows taken
  uint64_t in_wait = 0;   // cycles an input row was offered but not taken
  uint64_t out_wait = 0;  // cycles an output row was valid but not taken
};

struct ActPoolStreamResult {
  std::vector<int8_t> rows;    // out_rows x n() values, in output order
  std::vector<uint32_t> tags;  // the tag of every output row
  ActPoolStreamStats stats;
};

// Streams `images` back to back under `cfg` (each image in_h * in_w rows of n() values in raster
// order; in bypass mode any number of rows), tagging input row i of the whole stream with
// i mod 2^16, until `expected_rows` output rows have been taken and the unit is idle. Throws
// std::runtime_error on a hang, on more output rows than expected, or on an output after idle.
ActPoolStreamResult RunActPool(ActPoolHarness& pool, const ActPoolConfig& cfg,
                               const std::vector<std::vector<int8_t>>& images,
                               uint64_t expected_rows, const ActPoolStreamOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_ACT_POOL_ACT_POOL_STREAM_H_
