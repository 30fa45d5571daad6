// The instructions of one planned dense layer (compiler/dense_plan.h), software pipelined as in
// docs/isa.md "Example: a double-buffered dense layer":
//
//   setup     READ_HOST weights -> DRAM (+t1), parameter sets (+t2), x or its first chunk (+t0)
//   prefetch  READ_WEIGHTS of step 0 (t1)
//   step s    with streamed weights (plan.stream_weights: dense_plan.h StreamWeights), while s + 1 < n_tiles: the READ_HOST
//             of output tile s+1's weights (+t1) and READ_WEIGHTS of step s+1 waits t1 (setup
//             then loads only output tile 0's weights, so the weight upload overlaps the
//             MATMULs instead of preceding them); else READ_WEIGHTS of step s+1;
//             the next chunk's input (streamed, at a chunk's first
//             step; waits t7 for its buffer); MATMULs of step s (k tiles, accumulating; the
//             first waits t4 for its region once s >= 2 and t0 for its input, the last signals
//             t3, and t7 when its chunk's buffer is next reused); then ACTIVATE of step s-1
//             (t3, t2 once, t6 for its output buffer once s-1 >= 2; signals t4 when step s+1
//             reuses its region, t5 for the host sink) and its WRITE_HOST (t5; signals t6 when
//             step s+1 reuses the buffer)
//   finally   ACTIVATE and WRITE_HOST of the last step
//
// so ACTIVATE of one region overlaps MATMUL of the other, WRITE_HOST of one buffer overlaps the
// next ACTIVATE, READ_WEIGHTS streams one step ahead and the next chunk's input loads while the
// current one multiplies. Every token is signalled exactly as often as it is waited on, so all
// counters are back at 0 when the layer is done.
#ifndef TPU_COMPILER_DENSE_EMIT_H_
#define TPU_COMPILER_DENSE_EMIT_H_

#include <cstdint>
#include <optional>

#include "compiler/dense_plan.h"
#include "compiler/program_builder.h"
#include "golden/requant.h"
#include "isa/isa_gen.h"

namespace tpu::compiler {

// Token edges (docs/isa.md example t0..t6, plus t7 for streamed inputs).
inline constexpr uint8_t kTokInput = isa::kTokensT0;       // dma -> matrix: input in the UB
inline constexpr uint8_t kTokWeights = isa::kTokensT1;     // dma -> weights: tiles in DRAM
inline constexpr uint8_t kTokParams = isa::kTokensT2;      // dma -> activation: params loaded
inline constexpr uint8_t kTokRegionFull = isa::kTokensT3;  // matrix -> activation
inline constexpr uint8_t kTokRegionFree = isa::kTokensT4;  // activation -> matrix
inline constexpr uint8_t kTokOutputFull = isa::kTokensT5;  // activation -> dma
inline constexpr uint8_t kTokOutputFree = isa::kTokensT6;  // dma -> activation
inline constexpr uint8_t kTokInputFree = isa::kTokensT7;   // matrix -> dma: input buffer free

// READ_HOSTs of the weights and parameter sets, and of the input if it comes from the host.
void EmitSetup(const LayerPlan& plan, ProgramBuilder& builder);
// The READ_WEIGHTS of step 0 (waits for the weights).
void EmitPrefetch(const LayerPlan& plan, ProgramBuilder& builder);
// The end of step s of `steps` in the pattern above (also used by the conv window lowering):
// ACTIVATE of accumulator rows [acc, acc + rows) with parameter set `param_set` into UB rows from
// `ub` (waits t3, t2 at step 0 and, with a host sink, t6 from step 2; signals t4 while step s + 2
// will reuse the region, and t5 with a host sink), then, when `host` is set, the WRITE_HOST of
// those rows there (waits t5; signals t6 while step s + 2 will reuse the buffer).
struct FinishStep {
  int64_t s = 0, steps = 0;
  int64_t acc = 0, ub = 0, rows = 0, n = 0, param_set = 0;
  std::optional<uint64_t> host;  // host sink: where the rows go; else they stay in the UB
};
void EmitFinishStep(const FinishStep& step, const golden::RequantParams& requant,
                    ProgramBuilder& builder);

// Every step; ACTIVATE takes the output zero point and clamp bounds of `requant`.
void EmitSteps(const LayerPlan& plan, const golden::RequantParams& requant,
               ProgramBuilder& builder);

}  // namespace tpu::compiler

#endif  // TPU_COMPILER_DENSE_EMIT_H_
