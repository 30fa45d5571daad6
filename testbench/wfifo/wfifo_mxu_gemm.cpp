#include "wfifo/wfifo_mxu_gemm.h"

#include <algorithm>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "mxu/gemm_tiles.h"

namespace tpu::tb {
namespace {

constexpr uint32_t kTagMask = 0xFFFF;  // tpu_pkg::MxuTagWidth bits

}  // namespace

std::vector<int32_t> RunWfifoMxuGemm(WfifoMxuHarness& hw, const std::vector<int8_t>& a,
                                     const std::vector<int8_t>& w, int m, int k, int ncols,
                                     const WfifoGemmOptions& opts, WfifoGemmStats* stats) {
  const int n = hw.config().n;
  const int beat_bytes = hw.config().beat_bytes();
  const GemmTiles g(a, w, m, k, ncols, n, "RunWfifoMxuGemm");
  const int tiles = g.tiles();
  const uint64_t total_rows = g.total_rows();

  // The weight-DRAM contents: the tiles in streaming order (see GemmTiles), their rows one
  // after another, N bytes each (byte c = column c).
  std::vector<uint8_t> dram(size_t(tiles) * n * n, 0);
  for (int t = 0; t < tiles; ++t) {
    for (int r = 0; r < n; ++r) {
      g.WeightRow(t, r, reinterpret_cast<int8_t*>(&dram[(size_t(t) * n + r) * n]));
    }
  }
  if (dram.size() % beat_bytes != 0) throw std::logic_error("tiles are not whole DRAM beats");
  const size_t total_beats = dram.size() / beat_bytes;

  GemmResults results(m, ncols, n);
  std::vector<int8_t> abuf(n);
  std::vector<int32_t> obuf(n);
  std::mt19937_64 rng(opts.seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);

  WfifoGemmStats st;
  st.tiles = tiles;
  size_t beat = 0;            // next DRAM beat
  int a_tile = 0, a_row = 0;  // next activation row
  bool first_taken = false;
  uint64_t seq = 0, received = 0, idle = 0;
  const uint64_t start = hw.cycle();

  while (received < total_rows) {
    const bool d_valid = beat < total_beats && coin(rng) >= opts.dram_gap;
    hw.SetDram(d_valid, d_valid ? &dram[beat * beat_bytes] : nullptr);
    const bool a_valid = a_tile < tiles && coin(rng) >= opts.act_gap;
    if (a_valid) g.ActRow(a_tile, a_row, abuf.data());
    const uint32_t tag = uint32_t(seq) & kTagMask;
    hw.SetAct(a_valid, a_row == 0, abuf.data(), tag);
    hw.Eval();

    const bool d_fire = d_valid && hw.dram_ready();
    const bool a_fire = a_valid && hw.act_ready();
    st.dram_wait += d_valid && !d_fire;
    st.act_wait += a_valid && !a_fire;
    st.act_wait_later += first_taken && a_valid && !a_fire;
    st.max_fifo_tiles = std::max(st.max_fifo_tiles, hw.fifo_tiles());
    st.max_fifo_rows = std::max(st.max_fifo_rows, hw.fifo_rows());
    bool progress = d_fire || a_fire || (hw.weight_valid() && hw.weight_ready());

    if (hw.out_valid()) {
      hw.GetOut(obuf.data());
      results.Receive(hw.out_tag(), obuf.data());
      ++received;
      progress = true;
    }
    hw.Tick();

    if (d_fire) ++beat;
    if (a_fire) {
      if (!first_taken) st.first_act = hw.cycle() - 1 - start;
      first_taken = true;
      results.Expect(a_row, g.column_tile(a_tile), tag);
      ++seq;
      if (++a_row == m) {
        a_row = 0;
        ++a_tile;
      }
    }
    idle = progress ? 0 : idle + 1;
    if (idle > opts.stall_limit) {
      std::ostringstream msg;
      msg << "FIFO + MXU made no progress for " << opts.stall_limit << " cycles (tile " << a_tile
          << " row " << a_row << " waiting, DRAM at beat " << beat << " of " << total_beats
          << ", FIFO holds " << hw.fifo_rows() << " rows)";
      throw std::runtime_error(msg.str());
    }
  }
  st.rows = total_rows;
  st.dram_beats = beat;
  st.cycles = hw.cycle() - start;
  if (stats) *stats = st;
  return std::move(results.c());
}

}  // namespace tpu::tb
