#include "compiler/dense_emit.h"

namespace tpu::compiler {
namespace {

uint64_t SliceAddress(uint64_t base, const LayerPlan& plan, int64_t slice, int64_t row) {
  return base + static_cast<uint64_t>((slice * plan.m + row) * plan.n);
}

// One READ_HOST of chunk i's input block (dense_images.h: the chunk's K-tile slices, each
// chunk_rows rows, the last chunk padded) into its buffer, whose slices lie chunk_rows apart
// too. It waits `wait` and signals kTokInput. One instruction per chunk keeps the dispatcher
// from stalling behind a DMA queue full of small transfers while the MXU runs dry.
void EmitLoadChunk(const LayerPlan& plan, int64_t i, uint8_t wait, ProgramBuilder& builder) {
  const int64_t block = plan.k_tiles * plan.chunk_rows * plan.n;
  builder.ReadHost(isa::Target::kUb, plan.x_host + static_cast<uint64_t>(i * block),
                   plan.InRow(i, 0), block, wait, kTokInput);
}

// One READ_HOST of output tile j's k_tiles weight tiles into DRAM (they are consecutive in the
// host image and in DRAM); signals t1.
void EmitLoadWeights(const LayerPlan& plan, int64_t j, ProgramBuilder& builder) {
  const int64_t tile_bytes = plan.n * plan.n;
  const int64_t first = j * plan.k_tiles;
  builder.ReadHost(isa::Target::kDram, plan.weights_host + static_cast<uint64_t>(first * tile_bytes),
                   (plan.dram_tile_base + first) * tile_bytes, plan.k_tiles * tile_bytes, 0,
                   kTokWeights);
}

void EmitReadWeights(const LayerPlan& plan, int64_t s, uint8_t wait, ProgramBuilder& builder) {
  isa::ReadWeights rw;
  rw.dram_tile = static_cast<uint32_t>(plan.dram_tile_base + (s % plan.n_tiles) * plan.k_tiles);
  rw.tiles = static_cast<uint32_t>(plan.k_tiles);
  rw.wait = wait;
  builder.Add(rw);
}

void EmitMatmuls(const LayerPlan& plan, int64_t s, ProgramBuilder& builder) {
  const int64_t i = s / plan.n_tiles;
  const int64_t j = s % plan.n_tiles;
  uint8_t first_wait = s >= 2 ? kTokRegionFree : 0;
  if (plan.source != InputSource::kUb && j == 0) first_wait |= kTokInput;  // chunk i's upload
  uint8_t last_signal = kTokRegionFull;
  if (plan.source == InputSource::kHostStreamed && j == plan.n_tiles - 1 && i + 2 < plan.chunks) {
    last_signal |= kTokInputFree;
  }
  for (int64_t k = 0; k < plan.k_tiles; ++k) {
    isa::Matmul mm;
    mm.ub = static_cast<uint32_t>(plan.InRow(i, k));
    mm.acc = static_cast<uint32_t>(plan.AccRow(s));
    mm.rows = static_cast<uint32_t>(plan.ChunkRows(i));
    mm.acc_mode = k == 0 ? isa::AccMode::kOverwrite : isa::AccMode::kAccumulate;
    mm.new_tile = true;
    if (plan.in_row_stride > 1) {
      // Rows in_row_stride apart: the slice read as an image of M lines of in_row_stride
      // pixels from its first row, one output pixel per line (column 0), from line
      // ChunkBegin(i).
      mm.ub = static_cast<uint32_t>(plan.InRow(0, k));
      mm.window = true;
      mm.image_w = static_cast<uint32_t>(plan.in_row_stride);
      mm.image_h = static_cast<uint32_t>(plan.m);
      mm.out_w = 1;
      mm.stride_h = 1;
      mm.stride_w = 1;
      mm.y0 = static_cast<int32_t>(plan.ChunkBegin(i));
    }
    mm.wait = k == 0 ? first_wait : 0;
    mm.signal = k == plan.k_tiles - 1 ? last_signal : 0;
    builder.Add(mm);
  }
}

// ACTIVATE of step s and, for the host sink, its WRITE_HOST.
void EmitFinish(const LayerPlan& plan, const golden::RequantParams& requant, int64_t s,
                ProgramBuilder& builder) {
  const int64_t i = s / plan.n_tiles;
  const int64_t j = s % plan.n_tiles;
  FinishStep step;
  step.s = s;
  step.steps = plan.steps();
  step.acc = plan.AccRow(s);
  step.ub = plan.OutRow(s);
  step.rows = plan.ChunkRows(i);
  step.n = plan.n;
  step.param_set = plan.param_set_base + j;
  if (plan.sink == OutputSink::kHost) {
    step.host = SliceAddress(plan.y_host, plan, j, plan.ChunkBegin(i));
  }
  EmitFinishStep(step, requant, builder);
}

}  // namespace

void EmitFinishStep(const FinishStep& step, const golden::RequantParams& requant,
                    ProgramBuilder& builder) {
  const int64_t s = step.s;
  const bool reused = s + 2 < step.steps;  // step s + 2 uses the same region and buffer
  const bool to_host = step.host.has_value();
  isa::Activate act;
  act.acc = static_cast<uint32_t>(step.acc);
  act.ub = static_cast<uint32_t>(step.ub);
  act.rows = static_cast<uint32_t>(step.rows);
  act.param_set = static_cast<uint32_t>(step.param_set);
  act.zero_point = requant.out_zero_point;
  act.clamp_min = requant.act_min;
  act.clamp_max = requant.act_max;
  act.wait = kTokRegionFull | (s == 0 ? kTokParams : 0) | (to_host && s >= 2 ? kTokOutputFree : 0);
  act.signal = (reused ? kTokRegionFree : 0) | (to_host ? kTokOutputFull : 0);
  builder.Add(act);
  if (!to_host) return;
  isa::WriteHost wh;
  wh.ub = act.ub;
  wh.host = *step.host;
  wh.length = static_cast<uint32_t>(step.rows * step.n);
  wh.wait = kTokOutputFull;
  wh.signal = reused ? kTokOutputFree : 0;
  builder.Add(wh);
}

void EmitSetup(const LayerPlan& plan, ProgramBuilder& builder) {
  const int64_t n = plan.n;
  if (plan.stream_weights) {
    EmitLoadWeights(plan, 0, builder);
  } else {
    builder.ReadHost(isa::Target::kDram, plan.weights_host, plan.dram_tile_base * n * n,
                     plan.n_tiles * plan.k_tiles * n * n, 0, kTokWeights);
  }
  builder.ReadHost(isa::Target::kParam, plan.params_host, plan.param_set_base * 9 * n,
                   plan.n_tiles * 9 * n, 0, kTokParams);
  if (plan.source != InputSource::kUb) EmitLoadChunk(plan, 0, 0, builder);
}

void EmitPrefetch(const LayerPlan& plan, ProgramBuilder& builder) {
  EmitReadWeights(plan, 0, kTokWeights, builder);
}

void EmitSteps(const LayerPlan& plan, const golden::RequantParams& requant,
               ProgramBuilder& builder) {
  const int64_t steps = plan.steps();
  // Per step: its MATMULs, a READ_WEIGHTS, the weights' and the input's loads, an ACTIVATE
  // and a WRITE_HOST at most.
  builder.Reserve(static_cast<std::size_t>(steps * (plan.k_tiles + 5)));
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t i = s / plan.n_tiles;
    const int64_t j = s % plan.n_tiles;
    if (plan.stream_weights && s + 1 < plan.n_tiles) {
      EmitLoadWeights(plan, s + 1, builder);
      EmitReadWeights(plan, s + 1, kTokWeights, builder);
    } else if (s + 1 < steps) {
      EmitReadWeights(plan, s + 1, 0, builder);
    }
    if (plan.source != InputSource::kUb && j == 0 && i + 1 < plan.chunks) {
      const bool reuse = plan.source == InputSource::kHostStreamed && i + 1 >= 2;
      EmitLoadChunk(plan, i + 1, reuse ? kTokInputFree : 0, builder);
    }
    EmitMatmuls(plan, s, builder);
    if (s >= 1) EmitFinish(plan, requant, s - 1, builder);
  }
  EmitFinish(plan, requant, steps - 1, builder);
}

}  // namespace tpu::compiler
