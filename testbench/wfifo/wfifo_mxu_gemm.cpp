#include "wfifo/wfifo_mxu_gemm.h"

#include <algorithm>
#include <deque>
#include <random>
#include <sstream>
#include <stdexcept>

namespace tpu::tb {
namespace {

// Where one activation row's result belongs: output row m of column tile nt.
struct PendingRow {
  int m;
  int nt;
  uint32_t tag;
};

constexpr uint32_t kTagMask = 0xFFFF;  // tpu_pkg::MxuTagWidth bits

}  // namespace

std::vector<int32_t> RunWfifoMxuGemm(WfifoMxuHarness& hw, const std::vector<int8_t>& a,
                                     const std::vector<int8_t>& w, int m, int k, int ncols,
                                     const WfifoGemmOptions& opts, WfifoGemmStats* stats) {
  const int n = hw.config().n;
  const int beat_bytes = hw.config().beat_bytes();
  if (m <= 0 || k <= 0 || ncols <= 0) throw std::invalid_argument("RunWfifoMxuGemm: empty shape");
  if (a.size() != size_t(m) * k || w.size() != size_t(k) * ncols) {
    throw std::invalid_argument("RunWfifoMxuGemm: A must be m x k and W k x ncols");
  }
  const int k_tiles = (k + n - 1) / n;
  const int n_tiles = (ncols + n - 1) / n;
  const int tiles = k_tiles * n_tiles;
  const uint64_t total_rows = uint64_t(tiles) * m;

  // The weight-DRAM contents: tile t = kt * n_tiles + nt covers K rows kt*n.. and output
  // columns nt*n..; its rows follow one another, N bytes each (byte c = column c).
  std::vector<uint8_t> dram(size_t(tiles) * n * n, 0);
  for (int t = 0; t < tiles; ++t) {
    const int kt = t / n_tiles, nt = t % n_tiles;
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) {
        const int kk = kt * n + r, col = nt * n + c;
        if (kk < k && col < ncols) {
          dram[(size_t(t) * n + r) * n + c] = uint8_t(w[size_t(kk) * ncols + col]);
        }
      }
    }
  }
  if (dram.size() % beat_bytes != 0) throw std::logic_error("tiles are not whole DRAM beats");
  const size_t total_beats = dram.size() / beat_bytes;

  auto act_row = [&](int t, int row, int8_t* out) {
    const int kt = t / n_tiles;
    for (int i = 0; i < n; ++i) {
      const int kk = kt * n + i;
      out[i] = kk < k ? a[size_t(row) * k + kk] : 0;
    }
  };

  std::vector<int32_t> c(size_t(m) * ncols, 0);
  std::vector<int8_t> abuf(n);
  std::vector<int32_t> obuf(n);
  std::deque<PendingRow> pending;
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
    if (a_valid) act_row(a_tile, a_row, abuf.data());
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
      if (pending.empty()) throw std::runtime_error("MXU produced a result with no row in flight");
      const PendingRow p = pending.front();
      pending.pop_front();
      if (hw.out_tag() != p.tag) {
        std::ostringstream msg;
        msg << "MXU result out of order: tag " << hw.out_tag() << ", expected " << p.tag;
        throw std::runtime_error(msg.str());
      }
      hw.GetOut(obuf.data());
      for (int i = 0; i < n; ++i) {
        const int col = p.nt * n + i;
        if (col < ncols) {
          // int32 wrap-around, as the hardware accumulators add.
          int32_t& dst = c[size_t(p.m) * ncols + col];
          dst = int32_t(uint32_t(dst) + uint32_t(obuf[i]));
        }
      }
      ++received;
      progress = true;
    }
    hw.Tick();

    if (d_fire) ++beat;
    if (a_fire) {
      if (!first_taken) st.first_act = hw.cycle() - 1 - start;
      first_taken = true;
      pending.push_back({a_row, a_tile % n_tiles, tag});
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
  return c;
}

}  // namespace tpu::tb
