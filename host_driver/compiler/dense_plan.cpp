#include "compiler/dense_plan.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "compiler/dense_images.h"

namespace tpu::compiler {

int64_t LayerPlan::ChunkRows(int64_t i) const { return std::min(chunk_rows, m - ChunkBegin(i)); }

int64_t LayerPlan::InRow(int64_t i, int64_t k) const {
  if (source == InputSource::kHostStreamed) {
    return in_ub + (i % 2) * k_tiles * chunk_rows + k * chunk_rows;
  }
  if (source == InputSource::kHostResident) {
    return in_ub + i * k_tiles * chunk_rows + k * chunk_rows;
  }
  if (source == InputSource::kUb && !in_slice_rows.empty()) {
    return in_slice_rows[static_cast<std::size_t>(k)] + ChunkBegin(i) * in_row_stride;
  }
  return in_ub + k * m + ChunkBegin(i);
}

int64_t LayerPlan::OutRow(int64_t s) const {
  if (sink == OutputSink::kHost) return out_ub + (s % 2) * chunk_rows;
  return out_ub + (s % n_tiles) * m + ChunkBegin(s / n_tiles);
}

int64_t LayerPlan::InputRows() const {
  switch (source) {
    case InputSource::kHostResident:
      return chunks * k_tiles * chunk_rows;
    case InputSource::kHostStreamed:
      return 2 * k_tiles * chunk_rows;
    case InputSource::kUb:
      return 0;  // owned by the previous layer
  }
  return 0;
}

int64_t LayerPlan::OutputRows() const {
  return sink == OutputSink::kHost ? 2 * chunk_rows : 0;  // kUb: owned by the next layer
}

int64_t FirstChunkRows(int64_t n_tiles, int64_t m, int64_t n, int64_t cap) {
  return std::min(cap, std::max(4 * n, CeilDiv(n_tiles * m, 4 * n)));
}

LayerPlan PlanLayer(const PlanRequest& request, const isa::DeviceLimits& limits,
                    const std::string& what) {
  LayerPlan plan;
  plan.n = limits.n;
  plan.m = request.m;
  plan.k = request.k;
  plan.nout = request.nout;
  plan.k_tiles = CeilDiv(request.k, limits.n);
  plan.n_tiles = CeilDiv(request.nout, limits.n);
  plan.region_rows = limits.acc_rows / 2;
  plan.dram_tile_base = request.dram_tile_base;
  plan.param_set_base = request.param_set_base;
  plan.stream_weights = StreamWeights(plan.n_tiles, plan.k_tiles * plan.n_tiles * plan.n * plan.n);
  if (request.m < 1) throw std::invalid_argument(what + ": M must be >= 1");

  // Device resources that do not depend on the chunking.
  const int64_t tiles = plan.k_tiles * plan.n_tiles;
  const int64_t dram_tiles = limits.dram_bytes / (limits.n * limits.n);
  if (request.dram_tile_base < 0 || request.dram_tile_base + tiles > dram_tiles) {
    throw std::invalid_argument(what + ": " + std::to_string(tiles) +
                                " weight tiles from DRAM tile " +
                                std::to_string(request.dram_tile_base) + " do not fit in " +
                                std::to_string(dram_tiles) + " tiles of weight DRAM");
  }
  if (request.param_set_base < 0 || request.param_set_base + plan.n_tiles > limits.param_sets) {
    throw std::invalid_argument(what + ": " + std::to_string(plan.n_tiles) +
                                " output tiles need as many parameter sets from set " +
                                std::to_string(request.param_set_base) + ", the device has " +
                                std::to_string(limits.param_sets) + " (one per " +
                                std::to_string(limits.n) + " output columns: at most " +
                                std::to_string(limits.param_sets * limits.n) +
                                " columns in one program); split the layer's columns");
  }

  // Chunk rows: one accumulator region at most, then what fits in the UB.
  int64_t cap = plan.region_rows;
  if (request.max_chunk_rows > 0) cap = std::min(cap, request.max_chunk_rows);
  cap = std::min(cap, request.m);
  const int64_t avail = request.work_end - request.work_begin;
  const int64_t out_per_row = request.output_in_ub ? 0 : 2;  // two output buffers
  // UB rows of an input from the host in chunks of (at most) r rows, every chunk its own, and
  // the output buffers.
  const auto resident_rows = [&](int64_t r) {
    const int64_t chunks = CeilDiv(request.m, r);
    const int64_t chunk_rows = CeilDiv(request.m, chunks);
    return chunks * plan.k_tiles * chunk_rows + out_per_row * chunk_rows;
  };
  int64_t rows = 0;
  if (request.input_in_ub) {
    plan.source = InputSource::kUb;
    rows = out_per_row == 0 ? cap : std::min(cap, avail / out_per_row);
  } else if (const int64_t first = FirstChunkRows(plan.n_tiles, request.m, limits.n, cap);
             resident_rows(first) <= avail) {
    plan.source = InputSource::kHostResident;
    rows = first;
  } else {
    plan.source = InputSource::kHostStreamed;
    rows = std::min(first, avail / (2 * plan.k_tiles + out_per_row));
    if (rows < 1) {  // x may fit whole, but only next to small output buffers
      plan.source = InputSource::kHostResident;
      for (rows = cap; rows >= 1 && resident_rows(rows) > avail; --rows) {
      }
    }
  }
  if (rows < 1) {
    throw std::invalid_argument(
        what + ": M = " + std::to_string(request.m) + ", K = " + std::to_string(request.k) +
        " needs at least " + std::to_string(2 * plan.k_tiles + out_per_row) +
        " UB rows (input slices and output buffers of one row, double buffered), only " +
        std::to_string(std::max<int64_t>(avail, 0)) + " are available");
  }
  plan.chunks = CeilDiv(request.m, rows);
  plan.chunk_rows = CeilDiv(request.m, plan.chunks);

  plan.in_ub = request.input_in_ub ? request.input_ub : request.work_begin;
  if (request.output_in_ub) {
    plan.sink = OutputSink::kUb;
    plan.out_ub = request.output_ub;
  } else {
    plan.sink = OutputSink::kHost;
    plan.out_ub = request.work_begin + plan.InputRows();
  }
  return plan;
}

void CheckResidentRows(int64_t first, int64_t rows, int64_t work_begin, int64_t work_end,
                       const isa::DeviceLimits& limits, const std::string& what,
                       const std::string& name) {
  const std::string range = "UB rows [" + std::to_string(first) + ", " +
                            std::to_string(first + rows) + ")";
  if (first < 0 || rows < 1 || first + rows > limits.ub_rows) {
    throw std::invalid_argument(what + ": the " + name + " resident in " + range +
                                " is not inside the UB's " + std::to_string(limits.ub_rows) +
                                " rows");
  }
  if (first < work_end && work_begin < first + rows) {
    throw std::invalid_argument(what + ": the " + name + " resident in " + range +
                                " overlaps the program's work rows [" +
                                std::to_string(work_begin) + ", " + std::to_string(work_end) +
                                ")");
  }
}

}  // namespace tpu::compiler
