#include "compiler/identity_lowering.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <utility>

#include "compiler/dense_emit.h"
#include "compiler/dense_images.h"
#include "compiler/dense_plan.h"
#include "compiler/field_limits.h"
#include "compiler/host_allocator.h"
#include "compiler/program_builder.h"
#include "golden/format.h"
#include "isa/validate.h"

namespace tpu::compiler {
namespace {

constexpr int32_t kIdentityMultiplier = int32_t{1} << 30;
constexpr int8_t kIdentityShift = 1;

void PutLe32(std::vector<uint8_t>& bytes, std::size_t at, int32_t value) {
  const auto u = static_cast<uint32_t>(value);
  for (int b = 0; b < 4; ++b) bytes[at + static_cast<std::size_t>(b)] = (u >> (8 * b)) & 0xff;
}

// The tiling of the pass: steps over channel tiles (outer) and chunks (inner): groups of whole
// units, or the pass's bands.
struct PassPlan {
  int64_t n = 0, m = 0, m_out = 0, channels = 0, c_tiles = 0;
  int64_t unit_rows = 0, unit_out_rows = 0, units = 0;
  int64_t group_units = 0;
  std::vector<IdentityBand> chunks;  // the same for every channel tile
  int64_t regions = 2, region_rows = 0;
  int64_t in_ub[2] = {0, 0}, out_ub[2] = {0, 0};
  int64_t dram_tile = 0, param_set = 0;
  uint64_t identity_host = 0, params_host = 0, lut_host = 0, x_host = 0, y_host = 0;
  bool lut = false;
  // Resident input / output (LoweringOptions input_in_ub / output_ub): first UB row of the
  // tensor's slices (slice j at + j * m, resp. + j * m_out), -1 when it crosses PCIe.
  int64_t in_resident = -1, out_resident = -1;

  int64_t groups() const { return static_cast<int64_t>(chunks.size()); }
  int64_t steps() const { return c_tiles * groups(); }
  int64_t Tile(int64_t s) const { return s / groups(); }
  const IdentityBand& Chunk(int64_t s) const {
    return chunks[static_cast<std::size_t>(s % groups())];
  }
  int64_t AccRow(int64_t s) const { return (s % regions) * region_rows; }
  // Where step s's MATMUL reads and its ACTIVATE writes.
  int64_t InRow(int64_t s) const {
    if (in_resident < 0) return in_ub[s % 2];
    return in_resident + Tile(s) * m + Chunk(s).in_row;
  }
  int64_t OutRow(int64_t s) const {
    if (out_resident < 0) return out_ub[s % 2];
    return out_resident + Tile(s) * m_out + Chunk(s).out_row;
  }
};

void EmitLoad(const PassPlan& p, int64_t s, ProgramBuilder& builder) {
  if (p.in_resident >= 0) return;  // already in the UB
  const int64_t row = p.Tile(s) * p.m + p.Chunk(s).in_row;
  builder.ReadHost(isa::Target::kUb, p.x_host + static_cast<uint64_t>(row * p.n), p.in_ub[s % 2],
                   p.Chunk(s).in_rows * p.n, s >= 2 ? kTokInputFree : 0, kTokInput);
}

void EmitMatmul(const PassPlan& p, int64_t s, ProgramBuilder& builder) {
  isa::Matmul mm = p.Chunk(s).window;  // the window fields, if any
  mm.ub = static_cast<uint32_t>(p.InRow(s));
  mm.acc = static_cast<uint32_t>(p.AccRow(s));
  mm.rows = static_cast<uint32_t>(p.Chunk(s).acc_rows);
  mm.acc_mode = isa::AccMode::kOverwrite;
  mm.new_tile = s == 0;  // the identity tile stays in the MXU for every later MATMUL
  const bool loaded = p.in_resident < 0;  // input buffers filled by READ_HOST
  mm.wait = (loaded ? kTokInput : 0) | (s >= p.regions ? kTokRegionFree : 0);
  mm.signal = kTokRegionFull | (loaded && s + 2 < p.steps() ? kTokInputFree : 0);
  builder.Add(mm);
}

void EmitFinish(const PassPlan& p, const isa::Activate& fields, int64_t s,
                ProgramBuilder& builder) {
  isa::Activate act = fields;
  act.acc = static_cast<uint32_t>(p.AccRow(s));
  act.ub = static_cast<uint32_t>(p.OutRow(s));
  act.rows = static_cast<uint32_t>(p.Chunk(s).acc_rows);
  if (p.Chunk(s).image_h > 0) act.image_h = p.Chunk(s).image_h;
  act.param_set = static_cast<uint32_t>(p.param_set);
  act.zero_point = 0;
  act.lut = p.lut;
  const bool to_host = p.out_resident < 0;
  act.wait = kTokRegionFull | (s == 0 ? kTokParams : 0) | (to_host && s >= 2 ? kTokOutputFree : 0);
  act.signal = (to_host ? kTokOutputFull : 0) | (s + p.regions < p.steps() ? kTokRegionFree : 0);
  builder.Add(act);
  if (!to_host) return;  // stays in the UB for the next program
  isa::WriteHost wh;
  wh.ub = act.ub;
  const int64_t row = p.Tile(s) * p.m_out + p.Chunk(s).out_row;
  wh.host = p.y_host + static_cast<uint64_t>(row * p.n);
  wh.length = static_cast<uint32_t>(p.Chunk(s).out_rows * p.n);
  wh.wait = kTokOutputFull;
  wh.signal = s + 2 < p.steps() ? kTokOutputFree : 0;
  builder.Add(wh);
}

}  // namespace

std::vector<uint8_t> IdentityTileImage(int64_t n) {
  std::vector<uint8_t> tile(static_cast<std::size_t>(n * n), 0);
  for (int64_t k = 0; k < n; ++k) tile[static_cast<std::size_t>(k * n + k)] = 1;
  return tile;
}

std::vector<uint8_t> IdentityParamSetImage(int64_t n) {
  std::vector<uint8_t> set(static_cast<std::size_t>(9 * n), 0);  // bias 0
  for (int64_t c = 0; c < n; ++c) {
    PutLe32(set, static_cast<std::size_t>(4 * n + 4 * c), kIdentityMultiplier);
    set[static_cast<std::size_t>(8 * n + c)] = static_cast<uint8_t>(kIdentityShift);
  }
  return set;
}

DenseProgram LowerIdentityPass(const golden::Tensor<int8_t>& x, const IdentityPass& pass,
                               const isa::DeviceLimits& limits, const HostRegion& region,
                               const LoweringOptions& options, const std::string& what) {
  isa::CheckLimits(limits);
  x.CheckConsistent(what + ": input");
  if (x.shape.size() != 2 || x.shape[0] < 1 || x.shape[1] < 1 || pass.units < 1 ||
      pass.unit_rows < 1 || pass.unit_out_rows < 1 || x.shape[0] != pass.units * pass.unit_rows) {
    throw std::invalid_argument(what + ": input " + golden::ShapeToString(x.shape) +
                                " is not " + std::to_string(pass.units) + " units of " +
                                std::to_string(pass.unit_rows) + " rows");
  }
  const int64_t ub_end = options.ub_end < 0 ? limits.ub_rows : options.ub_end;
  if (options.ub_begin < 0 || options.ub_begin >= ub_end || ub_end > limits.ub_rows) {
    throw std::invalid_argument(what + ": UB rows [" + std::to_string(options.ub_begin) + ", " +
                                std::to_string(ub_end) + ") are not a range inside [0, " +
                                std::to_string(limits.ub_rows) + ")");
  }

  PassPlan p;
  p.n = limits.n;
  p.m = x.shape[0];
  p.channels = x.shape[1];
  p.c_tiles = CeilDiv(p.channels, p.n);
  p.units = pass.units;
  p.unit_rows = pass.unit_rows;
  p.unit_out_rows = pass.unit_out_rows;
  p.m_out = p.units * p.unit_out_rows;
  p.lut = pass.lut.has_value();

  // Accumulators: two regions when a unit (or every band) fits in half of them, else one
  // spanning all.
  const int64_t acc_limit = std::min<int64_t>(limits.acc_rows, kActivateMaxRows);
  const bool banded = !pass.bands.empty();
  int64_t chunk_acc_rows = p.unit_rows;  // the largest MATMUL
  for (const IdentityBand& band : pass.bands) {
    if (band.in_row < 0 || band.in_rows < 1 || band.in_row + band.in_rows > p.m ||
        band.acc_rows < 1 || band.out_row < 0 || band.out_rows < 1 ||
        band.out_row + band.out_rows > p.m_out ||
        (!band.window.window && band.acc_rows != band.in_rows)) {
      throw std::invalid_argument(what + ": a band (input rows " + std::to_string(band.in_row) +
                                  " + " + std::to_string(band.in_rows) + ", output rows " +
                                  std::to_string(band.out_row) + " + " +
                                  std::to_string(band.out_rows) + ") lies outside the " +
                                  std::to_string(p.m) + " input and " +
                                  std::to_string(p.m_out) + " output rows");
    }
  }
  if (banded) {
    chunk_acc_rows = 0;
    for (const IdentityBand& band : pass.bands) {
      chunk_acc_rows = std::max(chunk_acc_rows, band.acc_rows);
    }
  }
  if (chunk_acc_rows > acc_limit) {
    throw std::invalid_argument(
        what + ": " + (banded ? "a band of " : "an image of ") + std::to_string(chunk_acc_rows) +
        (banded ? " accumulator rows" : " pixels") + " does not fit the accumulators (at most " +
        std::to_string(acc_limit) + " rows: ACC_ROWS = " + std::to_string(limits.acc_rows) +
        ", ACTIVATE rows <= " + std::to_string(kActivateMaxRows) + ")");
  }
  p.regions = chunk_acc_rows <= limits.acc_rows / 2 ? 2 : 1;
  p.region_rows = limits.acc_rows / p.regions;
  int64_t max_rows = std::min<int64_t>(p.region_rows, kActivateMaxRows);
  if (options.max_chunk_rows > 0) max_rows = std::min(max_rows, options.max_chunk_rows);
  int64_t group_units = std::max<int64_t>(1, max_rows / p.unit_rows);
  if (options.input_in_ub) {
    const UbTensor& in = *options.input_in_ub;
    if (in.m != p.m || in.channels != p.channels) {
      throw std::invalid_argument(what + ": the resident input is " + std::to_string(in.m) +
                                  " rows of " + std::to_string(in.channels) +
                                  " channels, the pass reads " + std::to_string(p.m) +
                                  " rows of " + std::to_string(p.channels));
    }
    CheckResidentRows(in.ub, in.Rows(p.n), options.ub_begin, ub_end, limits, what, "input");
    p.in_resident = in.ub;
  }
  if (options.output_ub) {
    const UbTensor out{*options.output_ub, p.m_out, p.channels};
    CheckResidentRows(out.ub, out.Rows(p.n), options.ub_begin, ub_end, limits, what, "output");
    if (p.in_resident >= 0 && out.ub < p.in_resident + p.c_tiles * p.m &&
        p.in_resident < out.ub + out.Rows(p.n)) {
      throw std::invalid_argument(what + ": the resident input and output overlap in the UB");
    }
    p.out_resident = out.ub;
  }
  // Two input and two output buffers of a group (or of the largest band) in the UB window
  // (those that cross PCIe).
  const int64_t window = ub_end - options.ub_begin;
  int64_t in_buffer = p.in_resident < 0 ? p.unit_rows : 0;
  int64_t out_buffer = p.out_resident < 0 ? p.unit_out_rows : 0;
  if (banded) {
    in_buffer = out_buffer = 0;
    for (const IdentityBand& band : pass.bands) {
      if (p.in_resident < 0) in_buffer = std::max(in_buffer, band.in_rows);
      if (p.out_resident < 0) out_buffer = std::max(out_buffer, band.out_rows);
    }
  }
  const int64_t per_unit = 2 * (in_buffer + out_buffer);
  if (per_unit > window) {
    throw std::invalid_argument(what + ": two input and two output buffers of " +
                                std::to_string(in_buffer) + " + " +
                                std::to_string(out_buffer) + " rows need " +
                                std::to_string(per_unit) + " UB rows, the program has " +
                                std::to_string(window));
  }
  int64_t in_rows = 0, out_rows = 0;  // the buffers' sizes
  if (banded) {
    group_units = 1;
    p.chunks = pass.bands;
    in_rows = in_buffer;
    out_rows = out_buffer;
  } else {
    if (per_unit > 0) group_units = std::min(group_units, window / per_unit);
    group_units = std::min(group_units, p.units);
    for (int64_t first = 0; first < p.units; first += group_units) {
      const int64_t units = std::min(group_units, p.units - first);
      IdentityBand group;
      group.in_row = first * p.unit_rows;
      group.in_rows = group.acc_rows = units * p.unit_rows;
      group.out_row = first * p.unit_out_rows;
      group.out_rows = units * p.unit_out_rows;
      p.chunks.push_back(group);
    }
    in_rows = group_units * in_buffer;
    out_rows = group_units * out_buffer;
  }
  p.group_units = group_units;
  p.in_ub[0] = options.ub_begin;
  p.in_ub[1] = options.ub_begin + in_rows;
  p.out_ub[0] = options.ub_begin + 2 * in_rows;
  p.out_ub[1] = options.ub_begin + 2 * in_rows + out_rows;
  p.dram_tile = options.dram_tile_base;
  p.param_set = options.param_set_base;
  if (p.dram_tile < 0 || (p.dram_tile + 1) * p.n * p.n > limits.dram_bytes) {
    throw std::invalid_argument(what + ": DRAM tile " + std::to_string(p.dram_tile) +
                                " is outside the weight DRAM (" +
                                std::to_string(limits.dram_bytes / (p.n * p.n)) + " tiles)");
  }
  if (p.param_set < 0 || p.param_set >= limits.param_sets) {
    throw std::invalid_argument(what + ": parameter set " + std::to_string(p.param_set) +
                                " is outside [0, " + std::to_string(limits.param_sets) + ")");
  }

  DenseProgram program;
  program.limits = limits;
  HostAllocator host(region, options.host_align, what);
  auto place = [&](std::string name, std::vector<uint8_t> bytes) {
    return host.Place(program.images, std::move(name), std::move(bytes));
  };
  p.identity_host = place("weights", IdentityTileImage(p.n));
  p.params_host = place("params", IdentityParamSetImage(p.n));
  if (p.lut) {
    std::vector<uint8_t> table(pass.lut->size());
    for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<uint8_t>((*pass.lut)[i]);
    p.lut_host = place("lut", std::move(table));
  }
  if (p.in_resident < 0) {
    p.x_host = pass.input_host ? *pass.input_host : place("x", SliceImage(x, p.n));
  }
  program.output = {0, p.m_out, p.channels, p.n};
  if (p.out_resident < 0) {
    program.output.address = p.y_host = host.Take(program.output.bytes(), "y");
  } else {
    program.ub_output = UbTensor{p.out_resident, p.m_out, p.channels};
  }
  program.host_bytes = host.used();

  ProgramBuilder builder(limits);
  builder.ReadHost(isa::Target::kDram, p.identity_host, p.dram_tile * p.n * p.n, p.n * p.n, 0,
                   kTokWeights);
  if (p.lut) {
    // The LUT, then the parameters: the first ACTIVATE's wait on t2 covers both.
    builder.ReadHost(isa::Target::kLut, p.lut_host, 0, static_cast<int64_t>(pass.lut->size()), 0,
                     kTokParams);
    builder.ReadHost(isa::Target::kParam, p.params_host, p.param_set * 9 * p.n, 9 * p.n,
                     kTokParams, kTokParams);
  } else {
    builder.ReadHost(isa::Target::kParam, p.params_host, p.param_set * 9 * p.n, 9 * p.n, 0,
                     kTokParams);
  }
  EmitLoad(p, 0, builder);
  isa::ReadWeights rw;
  rw.dram_tile = static_cast<uint32_t>(p.dram_tile);
  rw.tiles = 1;
  rw.wait = kTokWeights;
  builder.Add(rw);
  const int64_t steps = p.steps();
  for (int64_t s = 0; s < steps; ++s) {
    if (s + 1 < steps) EmitLoad(p, s + 1, builder);
    // One region: the previous ACTIVATE must drain it before this MATMUL (emitted first so that
    // every token is produced by an earlier instruction). Two regions: it overlaps this MATMUL.
    if (p.regions == 1 && s >= 1) EmitFinish(p, pass.activate, s - 1, builder);
    EmitMatmul(p, s, builder);
    if (p.regions == 2 && s >= 1) EmitFinish(p, pass.activate, s - 1, builder);
  }
  EmitFinish(p, pass.activate, steps - 1, builder);
  builder.Add(isa::Halt{});
  program.instrs = builder.Take();
  program.output_shape = {p.m_out, p.channels};
  // For figures: one step per (channel tile, group) with one identity tile, K = Nout = C.
  LayerPlan plan;
  plan.n = p.n;
  plan.m = p.m;
  plan.k = plan.nout = p.channels;
  plan.k_tiles = 1;
  plan.n_tiles = p.c_tiles;
  plan.chunks = p.groups();
  plan.region_rows = p.region_rows;
  plan.chunk_rows = banded ? chunk_acc_rows : group_units * p.unit_rows;
  plan.source = p.in_resident < 0 ? InputSource::kHostStreamed : InputSource::kUb;
  plan.in_ub = p.InRow(0);
  plan.sink = p.out_resident < 0 ? OutputSink::kHost : OutputSink::kUb;
  plan.out_ub = p.OutRow(0);
  plan.dram_tile_base = p.dram_tile;
  plan.param_set_base = p.param_set;
  plan.weights_host = p.identity_host;
  plan.params_host = p.params_host;
  plan.x_host = p.x_host;
  plan.y_host = p.y_host;
  program.plans.push_back(plan);
  return program;
}

}  // namespace tpu::compiler
