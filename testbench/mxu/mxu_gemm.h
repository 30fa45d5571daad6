// Streams a whole int8 GEMM through an MXU harness: splits K and the output columns into
// N x N weight tiles (zero padded), sends every tile's weights and the matching slice of each
// activation row, and adds each tile's partial results into C, as the accumulators will.
// Optional random gaps in either stream exercise the valid/ready handshakes.
#ifndef TPU_TESTBENCH_MXU_MXU_GEMM_H_
#define TPU_TESTBENCH_MXU_MXU_GEMM_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "mxu/mxu_harness.h"

namespace tpu::tb {

struct MxuStreamOptions {
  double weight_gap = 0.0;  // probability that a weight beat is held back for a cycle
  double act_gap = 0.0;     // probability that an activation row is held back for a cycle
  uint64_t seed = 1;        // for the gaps
  uint64_t stall_limit = 100000;  // cycles without progress before the run counts as hung
  // Called every `progress_every` cycles with (results received, results expected).
  std::function<void(uint64_t, uint64_t)> progress;
  uint64_t progress_every = 1 << 16;
};

struct MxuStreamStats {
  uint64_t cycles = 0;          // from the first offered input to the last result
  uint64_t rows = 0;            // activation rows streamed (M x tiles)
  uint64_t tiles = 0;           // weight tiles streamed
  uint64_t act_wait = 0;        // cycles a row was offered but not taken (tile not loaded)
  uint64_t weight_wait = 0;     // cycles a beat was offered but not taken (banks busy)
  uint64_t useful_macs = 0;     // M x K x N of the unpadded problem
  double Utilization(int n) const {  // useful MACs / (N*N x cycles)
    return cycles ? double(useful_macs) / (double(n) * n * double(cycles)) : 0.0;
  }
};

// C (m x ncols, int32, row-major) = A (m x k, int8) x W (k x ncols, int8, Keras layout).
// Throws std::runtime_error if the MXU stops making progress or a result arrives out of order.
std::vector<int32_t> RunMxuGemm(MxuHarness& mxu, const std::vector<int8_t>& a,
                                const std::vector<int8_t>& w, int m, int k, int ncols,
                                const MxuStreamOptions& opts = {},
                                MxuStreamStats* stats = nullptr);

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_MXU_MXU_GEMM_H_
