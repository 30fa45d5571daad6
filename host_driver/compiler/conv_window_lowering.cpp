#include "compiler/conv_window_lowering.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "compiler/dense_emit.h"
#include "compiler/dense_images.h"
#include "compiler/field_limits.h"
#include "compiler/host_allocator.h"
#include "compiler/program_builder.h"
#include "golden/format.h"
#include "golden/padding.h"
#include "isa/validate.h"

namespace tpu::compiler {
namespace {

// The tiling of one window-lowered convolution.
struct WindowPlan {
  int64_t n = 0;
  int64_t batch = 0, in_h = 0, in_w = 0, cin = 0, c_tiles = 0;
  int64_t kh = 0, kw = 0, stride_h = 0, stride_w = 0, pad_top = 0, pad_left = 0;
  int64_t out_h = 0, out_w = 0, cout = 0, n_tiles = 0;
  int64_t m_in = 0, m_out = 0;  // B * H * W, B * OH * OW
  int64_t taps() const { return kh * kw * c_tiles; }  // weight tiles per output tile
  int64_t lines = 0, bands = 0;                        // output lines per band, bands per image
  int64_t region_rows = 0;
  int64_t in_ub = 0;       // slice ct at in_ub + ct * m_in
  bool input_from_host = true;
  bool output_to_host = true;
  int64_t out_ub = 0;      // host sink: buffers at out_ub, out_ub + lines * OW; UB sink: slices
  int64_t dram_tile_base = 0, param_set_base = 0;
  int32_t pad_value = 0;
  bool stream_weights = false;  // dense_plan.h StreamWeights
  uint64_t weights_host = 0, params_host = 0, x_host = 0, y_host = 0;

  int64_t chunks() const { return batch * bands; }
  int64_t steps() const { return chunks() * n_tiles; }
  int64_t Image(int64_t i) const { return i / bands; }
  int64_t FirstLine(int64_t i) const { return (i % bands) * lines; }
  int64_t Rows(int64_t i) const { return std::min(lines, out_h - FirstLine(i)) * out_w; }
  // First output row (b, oy0, 0) of chunk i in the (B * OH * OW) output.
  int64_t OutBegin(int64_t i) const { return (Image(i) * out_h + FirstLine(i)) * out_w; }
  int64_t AccRow(int64_t s) const { return (s % 2) * region_rows; }
  int64_t OutRow(int64_t s) const {
    const int64_t i = s / n_tiles, j = s % n_tiles;
    return output_to_host ? out_ub + (s % 2) * lines * out_w : out_ub + j * m_out + OutBegin(i);
  }
};

std::string Str(int64_t v) { return std::to_string(v); }

[[noreturn]] void Fail(const std::string& what, const std::string& message) {
  throw std::invalid_argument(what + ": " + message);
}

bool Overlap(int64_t a, int64_t a_end, int64_t b, int64_t b_end) {
  return a < b_end && b < a_end;
}

// The (KH * KW * Cpad, Cout) weight matrix: row (ky * KW + kx) * Cpad + c = W[ky][kx][c][:],
// zero for the padding channels c >= Cin.
golden::Tensor<int8_t> PaddedWeights(const Conv2dLayer& layer, int64_t c_pad) {
  const auto& s = layer.weights.shape;
  const int64_t kh = s[0], kw = s[1], cin = s[2], cout = s[3];
  golden::Tensor<int8_t> w({kh * kw * c_pad, cout});
  for (int64_t tap = 0; tap < kh * kw; ++tap) {
    for (int64_t c = 0; c < cin; ++c) {
      const auto src = static_cast<std::size_t>((tap * cin + c) * cout);
      const auto dst = static_cast<std::size_t>((tap * c_pad + c) * cout);
      std::copy_n(layer.weights.data.begin() + static_cast<std::ptrdiff_t>(src), cout,
                  w.data.begin() + static_cast<std::ptrdiff_t>(dst));
    }
  }
  return w;
}

// One READ_HOST of output tile j's taps() weight tiles into DRAM (consecutive in the host image
// and in DRAM), just ahead of their first use so that the upload overlaps the MATMULs; signals
// t1, which the READ_WEIGHTS of step j waits for.
void EmitLoadWeights(const WindowPlan& p, int64_t j, ProgramBuilder& builder) {
  const int64_t tile_bytes = p.n * p.n;
  const int64_t first = j * p.taps();
  builder.ReadHost(isa::Target::kDram, p.weights_host + static_cast<uint64_t>(first * tile_bytes),
                   (p.dram_tile_base + first) * tile_bytes, p.taps() * tile_bytes, 0,
                   kTokWeights);
}

void EmitReadWeights(const WindowPlan& p, int64_t s, uint8_t wait, ProgramBuilder& builder) {
  isa::ReadWeights rw;
  rw.dram_tile = static_cast<uint32_t>(p.dram_tile_base + (s % p.n_tiles) * p.taps());
  rw.tiles = static_cast<uint32_t>(p.taps());
  rw.wait = wait;
  builder.Add(rw);
}

void EmitMatmuls(const WindowPlan& p, int64_t s, ProgramBuilder& builder) {
  const int64_t i = s / p.n_tiles;
  const int64_t b = p.Image(i), oy0 = p.FirstLine(i);
  uint8_t first_wait = s >= 2 ? kTokRegionFree : 0;
  if (p.input_from_host && s == 0) first_wait |= kTokInput;
  int64_t t = 0;
  for (int64_t ky = 0; ky < p.kh; ++ky) {
    for (int64_t kx = 0; kx < p.kw; ++kx) {
      for (int64_t ct = 0; ct < p.c_tiles; ++ct, ++t) {
        isa::Matmul mm;
        mm.ub = static_cast<uint32_t>(p.in_ub + ct * p.m_in + b * p.in_h * p.in_w);
        mm.acc = static_cast<uint32_t>(p.AccRow(s));
        mm.rows = static_cast<uint32_t>(p.Rows(i));
        mm.acc_mode = t == 0 ? isa::AccMode::kOverwrite : isa::AccMode::kAccumulate;
        mm.new_tile = true;
        mm.window = true;
        mm.stride_h = static_cast<uint32_t>(p.stride_h);
        mm.stride_w = static_cast<uint32_t>(p.stride_w);
        mm.image_w = static_cast<uint32_t>(p.in_w);
        mm.image_h = static_cast<uint32_t>(p.in_h);
        mm.out_w = static_cast<uint32_t>(p.out_w);
        mm.pad_value = p.pad_value;
        mm.y0 = static_cast<int32_t>(oy0 * p.stride_h + ky - p.pad_top);
        mm.x0 = static_cast<int32_t>(kx - p.pad_left);
        mm.wait = t == 0 ? first_wait : 0;
        mm.signal = t == p.taps() - 1 ? kTokRegionFull : 0;
        builder.Add(mm);
      }
    }
  }
}

// ACTIVATE of step s and, for the host sink, its WRITE_HOST (dense_emit.h EmitFinishStep).
void EmitFinish(const WindowPlan& p, const golden::RequantParams& requant, int64_t s,
                ProgramBuilder& builder) {
  const int64_t i = s / p.n_tiles;
  const int64_t j = s % p.n_tiles;
  FinishStep step;
  step.s = s;
  step.steps = p.steps();
  step.acc = p.AccRow(s);
  step.ub = p.OutRow(s);
  step.rows = p.Rows(i);
  step.n = p.n;
  step.param_set = p.param_set_base + j;
  if (p.output_to_host) {
    step.host = p.y_host + static_cast<uint64_t>((j * p.m_out + p.OutBegin(i)) * p.n);
  }
  EmitFinishStep(step, requant, builder);
}

}  // namespace

DenseProgram LowerConv2dWindow(const golden::Tensor<int8_t>& input, const Conv2dLayer& layer,
                               const isa::DeviceLimits& limits, const HostRegion& region,
                               const LoweringOptions& options) {
  const std::string what = "conv2d (sliding window)";
  isa::CheckLimits(limits);
  CheckConv2dLayer(layer, what);
  input.CheckRank(what + ": input", 4, "NHWC");
  input.CheckConsistent(what + ": input");
  const auto& ws = layer.weights.shape;
  if (input.shape[0] < 1 || input.shape[1] < 1 || input.shape[2] < 1 ||
      input.shape[3] != ws[2]) {
    Fail(what, "input must be (B, H, W, Cin) with B, H, W >= 1 and Cin = " + Str(ws[2]) +
                   ", got " + golden::ShapeToString(input.shape));
  }
  const int64_t ub_end = options.ub_end < 0 ? limits.ub_rows : options.ub_end;
  if (options.ub_begin < 0 || options.ub_begin >= ub_end || ub_end > limits.ub_rows) {
    Fail(what, "UB rows [" + Str(options.ub_begin) + ", " + Str(ub_end) +
                   ") are not a range inside [0, " + Str(limits.ub_rows) + ")");
  }

  WindowPlan p;
  p.n = limits.n;
  p.batch = input.shape[0];
  p.in_h = input.shape[1];
  p.in_w = input.shape[2];
  p.cin = input.shape[3];
  p.c_tiles = CeilDiv(p.cin, p.n);
  p.kh = ws[0];
  p.kw = ws[1];
  p.cout = ws[3];
  p.n_tiles = CeilDiv(p.cout, p.n);
  p.stride_h = layer.params.stride_h;
  p.stride_w = layer.params.stride_w;
  p.pad_value = layer.params.input_zero_point;
  const golden::PaddedAxis rows = golden::ComputePaddedAxis(
      layer.params.padding, p.in_h, p.kh, p.stride_h, what, "height");
  const golden::PaddedAxis cols = golden::ComputePaddedAxis(
      layer.params.padding, p.in_w, p.kw, p.stride_w, what, "width");
  p.out_h = rows.out_size;
  p.out_w = cols.out_size;
  p.pad_top = rows.pad_before;
  p.pad_left = cols.pad_before;
  p.m_in = p.batch * p.in_h * p.in_w;
  p.m_out = p.batch * p.out_h * p.out_w;
  p.region_rows = limits.acc_rows / 2;

  // The MATMUL window fields.
  const std::string image = " > " + Str(kMaxImageSide) +
                            " (the MATMUL window's image_h / image_w / out_w fields)";
  if (p.in_h > kMaxImageSide) Fail(what, "input height H = " + Str(p.in_h) + image);
  if (p.in_w > kMaxImageSide) Fail(what, "input width W = " + Str(p.in_w) + image);
  if (p.out_w > kMaxImageSide) Fail(what, "output width OW = " + Str(p.out_w) + image);
  if (p.stride_h > kMaxWindowStride || p.stride_w > kMaxWindowStride) {
    Fail(what, "strides " + Str(p.stride_h) + " x " + Str(p.stride_w) + " exceed " +
                   Str(kMaxWindowStride) + " (the MATMUL window's stride fields)");
  }
  if (-p.pad_left < kMinWindowX0 || p.kw - 1 - p.pad_left > kMaxWindowX0) {
    Fail(what, "x0 = kx - pad_left spans [" + Str(-p.pad_left) + ", " +
                   Str(p.kw - 1 - p.pad_left) + "] for kernel width KW = " + Str(p.kw) +
                   ", outside the MATMUL x0 field's [" + Str(kMinWindowX0) + ", " +
                   Str(kMaxWindowX0) + "]");
  }
  if (p.pad_value < -128 || p.pad_value > 127) {
    Fail(what, "input zero point " + Str(p.pad_value) + " outside int8 range [-128, 127]");
  }

  // Output bands: whole output lines in one accumulator region.
  int64_t cap = p.region_rows;
  if (options.max_chunk_rows > 0) cap = std::min(cap, options.max_chunk_rows);
  if (p.out_w > cap) {
    Fail(what, "an output line of OW = " + Str(p.out_w) + " pixels exceeds the " + Str(cap) +
                   " rows of an accumulator region (ACC_ROWS / 2 = " + Str(p.region_rows) +
                   (options.max_chunk_rows > 0 ? ", max_chunk_rows" : "") + ")");
  }
  p.lines = std::min(p.out_h, cap / p.out_w);

  // The UB: the input slices (unless resident) and two output buffers (unless the output stays
  // in the UB) in the work window [ub_begin, ub_end).
  const int64_t window = ub_end - options.ub_begin;
  const int64_t in_rows = p.c_tiles * p.m_in;
  p.input_from_host = !options.input_in_ub.has_value();
  p.output_to_host = !options.output_ub.has_value();
  if (options.input_in_ub) {
    const UbTensor& t = *options.input_in_ub;
    if (t.m != p.m_in || t.channels != p.cin) {
      Fail(what, "the input in the UB holds (m " + Str(t.m) + ", channels " + Str(t.channels) +
                     "), the layer's input " + golden::ShapeToString(input.shape) + " is (m " +
                     Str(p.m_in) + ", channels " + Str(p.cin) + ")");
    }
    const int64_t end = t.ub + t.Rows(p.n);
    if (t.ub < 0 || end > limits.ub_rows) {
      Fail(what, "the input in the UB, rows [" + Str(t.ub) + ", " + Str(end) +
                     "), lies outside the UB's " + Str(limits.ub_rows) + " rows");
    }
    if (Overlap(t.ub, end, options.ub_begin, ub_end)) {
      Fail(what, "the input in the UB, rows [" + Str(t.ub) + ", " + Str(end) +
                     "), overlaps the program's UB rows [" + Str(options.ub_begin) + ", " +
                     Str(ub_end) + ")");
    }
    p.in_ub = t.ub;
  } else {
    p.in_ub = options.ub_begin;
  }
  const int64_t work_in = p.input_from_host ? in_rows : 0;
  if (p.output_to_host) {
    const int64_t free_rows = window - work_in;
    const int64_t fit_lines = free_rows / (2 * p.out_w);
    if (fit_lines < 1) {
      Fail(what, "the input slices (" + Str(work_in) + " UB rows: " + Str(p.c_tiles) +
                     " channel tiles of B*H*W = " + Str(p.m_in) +
                     " rows) and two output buffers of one output line (2 x OW = " +
                     Str(2 * p.out_w) + " rows) do not fit the program's " + Str(window) +
                     " UB rows");
    }
    p.lines = std::min(p.lines, fit_lines);
    p.out_ub = options.ub_begin + work_in;
  } else {
    if (work_in > window) {
      Fail(what, "the input slices (" + Str(work_in) + " UB rows: " + Str(p.c_tiles) +
                     " channel tiles of B*H*W = " + Str(p.m_in) + " rows) do not fit the program's " +
                     Str(window) + " UB rows");
    }
    const int64_t out_begin = *options.output_ub;
    const int64_t out_end = out_begin + p.n_tiles * p.m_out;
    if (out_begin < 0 || out_end > limits.ub_rows) {
      Fail(what, "the output left in the UB, rows [" + Str(out_begin) + ", " + Str(out_end) +
                     "), lies outside the UB's " + Str(limits.ub_rows) + " rows");
    }
    if (Overlap(out_begin, out_end, options.ub_begin, ub_end)) {
      Fail(what, "the output left in the UB, rows [" + Str(out_begin) + ", " + Str(out_end) +
                     "), overlaps the program's UB rows [" + Str(options.ub_begin) + ", " +
                     Str(ub_end) + ")");
    }
    if (options.input_in_ub &&
        Overlap(out_begin, out_end, p.in_ub, p.in_ub + options.input_in_ub->Rows(p.n))) {
      Fail(what, "the output left in the UB, rows [" + Str(out_begin) + ", " + Str(out_end) +
                     "), overlaps the input in the UB");
    }
    p.out_ub = out_begin;
  }
  // Even bands (the last may be shorter).
  p.bands = CeilDiv(p.out_h, p.lines);
  p.lines = CeilDiv(p.out_h, p.bands);
  const int64_t last_y0 = (p.bands - 1) * p.lines * p.stride_h + p.kh - 1 - p.pad_top;
  if (-p.pad_top < kMinWindowY0 || last_y0 > kMaxWindowY0) {
    Fail(what, "y0 = oy0 * stride_h + ky - pad_top reaches " + Str(last_y0) +
                   " (bands of " + Str(p.lines) + " output lines), outside the MATMUL y0 "
                   "field's [" + Str(kMinWindowY0) + ", " + Str(kMaxWindowY0) + "]");
  }

  // Weight DRAM and parameter sets.
  p.dram_tile_base = options.dram_tile_base;
  p.param_set_base = options.param_set_base;
  const int64_t tiles = p.n_tiles * p.taps();
  p.stream_weights = StreamWeights(p.n_tiles, tiles * p.n * p.n);
  const int64_t dram_tiles = limits.dram_bytes / (p.n * p.n);
  if (p.dram_tile_base < 0 || p.dram_tile_base + tiles > dram_tiles) {
    Fail(what, Str(tiles) + " weight tiles (KH*KW*ceil(Cin/N) = " + Str(p.taps()) + " per " +
                   Str(p.n_tiles) + " output tiles) from DRAM tile " + Str(p.dram_tile_base) +
                   " do not fit in " + Str(dram_tiles) + " tiles of weight DRAM");
  }
  if (p.param_set_base < 0 || p.param_set_base + p.n_tiles > limits.param_sets) {
    Fail(what, Str(p.n_tiles) + " output tiles need as many parameter sets from set " +
                   Str(p.param_set_base) + ", the device has " + Str(limits.param_sets));
  }

  // Host images.
  DenseProgram program;
  program.limits = limits;
  HostAllocator host(region, options.host_align, what);
  auto place = [&](std::string name, std::vector<uint8_t> bytes) {
    return host.Place(program.images, std::move(name), std::move(bytes));
  };
  p.weights_host = place("weights", WeightTileImage(PaddedWeights(layer, p.c_tiles * p.n), p.n));
  p.params_host = place("params", ParamSetImage(Conv2dAsDense(layer), p.n));
  if (p.input_from_host) {
    golden::Tensor<int8_t> rows_view({p.m_in, p.cin});
    rows_view.data = input.data;
    p.x_host = place("x", SliceImage(rows_view, p.n));
  }
  program.output = {0, p.m_out, p.cout, p.n};
  if (p.output_to_host) {
    program.output.address = p.y_host = host.Take(program.output.bytes(), "y");
  } else {
    program.ub_output = UbTensor{p.out_ub, p.m_out, p.cout};
  }
  program.host_bytes = host.used();

  // Instructions.
  ProgramBuilder builder(limits);
  if (p.stream_weights) {
    EmitLoadWeights(p, 0, builder);
  } else {
    builder.ReadHost(isa::Target::kDram, p.weights_host, p.dram_tile_base * p.n * p.n,
                     tiles * p.n * p.n, 0, kTokWeights);
  }
  builder.ReadHost(isa::Target::kParam, p.params_host, p.param_set_base * 9 * p.n,
                   p.n_tiles * 9 * p.n, 0, kTokParams);
  if (p.input_from_host) {
    builder.ReadHost(isa::Target::kUb, p.x_host, p.in_ub, in_rows * p.n, 0, kTokInput);
  }
  EmitReadWeights(p, 0, kTokWeights, builder);
  const int64_t steps = p.steps();
  for (int64_t s = 0; s < steps; ++s) {
    if (p.stream_weights && s + 1 < p.n_tiles) {  // first band: tile s + 1's weights upload now
      EmitLoadWeights(p, s + 1, builder);
      EmitReadWeights(p, s + 1, kTokWeights, builder);
    } else if (s + 1 < steps) {
      EmitReadWeights(p, s + 1, 0, builder);
    }
    EmitMatmuls(p, s, builder);
    if (s >= 1) EmitFinish(p, layer.requant, s - 1, builder);
  }
  EmitFinish(p, layer.requant, steps - 1, builder);
  builder.Add(isa::Halt{});
  program.instrs = builder.Take();

  // For figures: the layer as a dense layer of M = B*OH*OW rows over K = KH*KW*Cin.
  LayerPlan plan;
  plan.n = p.n;
  plan.m = p.m_out;
  plan.k = p.kh * p.kw * p.cin;
  plan.nout = p.cout;
  plan.k_tiles = p.taps();
  plan.n_tiles = p.n_tiles;
  plan.chunk_rows = p.lines * p.out_w;
  plan.chunks = p.chunks();
  plan.region_rows = p.region_rows;
  plan.source = p.input_from_host ? InputSource::kHostResident : InputSource::kUb;
  plan.in_ub = p.in_ub;
  plan.sink = p.output_to_host ? OutputSink::kHost : OutputSink::kUb;
  plan.out_ub = p.out_ub;
  plan.dram_tile_base = p.dram_tile_base;
  plan.param_set_base = p.param_set_base;
  plan.weights_host = p.weights_host;
  plan.params_host = p.params_host;
  plan.x_host = p.x_host;
  plan.y_host = p.y_host;
  program.plans.push_back(plan);
  program.output_shape = {p.batch, p.out_h, p.out_w, p.cout};
  program.lowering = "conv window";
  return program;
}


}  // namespace tpu::compiler
