// Streams a whole int8 GEMM through the weight FIFO and the MXU: the weight tiles (N x N, zero
// padded, in the order the activation rows use them) go out as one stream of weight-DRAM beats,
// the activation rows as on the bare MXU (see mxu/mxu_gemm.h), and each tile's partial results
// are added into C as the accumulators will. Optional random gaps on the DRAM and activation
// streams; statistics show whether weight loads stayed hidden.
#ifndef TPU_TESTBENCH_WFIFO_WFIFO_MXU_GEMM_H_
#define TPU_TESTBENCH_WFIFO_WFIFO_MXU_GEMM_H_

#include <cstdint>
#include <vector>

#include "wfifo/wfifo_mxu_harness.h"

namespace tpu::tb {

struct WfifoGemmOptions {
  double dram_gap = 0.0;          // probability that a DRAM beat is held back for a cycle
  double act_gap = 0.0;           // probability that an activation row is held back for a cycle
  uint64_t seed = 1;              // for the gaps
  uint64_t stall_limit = 100000;  // cycles without progress before the run counts as hung
};

struct WfifoGemmStats {
  uint64_t cycles = 0;          // from the first offered beat to the last result
  uint64_t rows = 0;            // activation rows streamed (M x tiles)
  uint64_t tiles = 0;           // weight tiles streamed
  uint64_t dram_beats = 0;      // DRAM beats taken
  uint64_t first_act = 0;       // cycle (from the start) at which the first row was taken
  uint64_t act_wait = 0;        // cycles a row was offered but not taken
  uint64_t act_wait_later = 0;  // ... of them after the first row was taken
  uint64_t dram_wait = 0;       // cycles a beat was offered but not taken (FIFO full)
  int max_fifo_tiles = 0;       // most whole unstarted tiles the FIFO held at once
  int max_fifo_rows = 0;        // most rows the FIFO held at once
};

// C (m x ncols, int32, row-major) = A (m x k, int8) x W (k x ncols, int8, Keras layout).
// Throws std::runtime_error if nothing moves for opts.stall_limit cycles or a result comes out
// of order.
std::vector<int32_t> RunWfifoMxuGemm(WfifoMxuHarness& hw, const std::vector<int8_t>& a,
                                     const std::vector<int8_t>& w, int m, int k, int ncols,
                                     const WfifoGemmOptions& opts = {},
                                     WfifoGemmStats* stats = nullptr);

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_WFIFO_WFIFO_MXU_GEMM_H_
