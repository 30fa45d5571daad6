#include "mxu/mxu_gemm.h"

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

std::vector<int32_t> RunMxuGemm(MxuHarness& mxu, const std::vector<int8_t>& a,
                                const std::vector<int8_t>& w, int m, int k, int ncols,
                                const MxuStreamOptions& opts, MxuStreamStats* stats) {
  const int n = mxu.n();
  if (m <= 0 || k <= 0 || ncols <= 0) throw std::invalid_argument("RunMxuGemm: empty shape");
  if (a.size() != size_t(m) * k || w.size() != size_t(k) * ncols) {
    throw std::invalid_argument("RunMxuGemm: A must be m x k and W k x ncols");
  }
  const int k_tiles = (k + n - 1) / n;
  const int n_tiles = (ncols + n - 1) / n;
  const int tiles = k_tiles * n_tiles;
  const uint64_t total_rows = uint64_t(tiles) * m;

  // Tile t covers K rows kt*n.. and output columns nt*n.., with t = kt * n_tiles + nt.
  auto weight_row = [&](int t, int r, int8_t* out) {
    const int kt = t / n_tiles, nt = t % n_tiles, kk = kt * n + r;
    for (int c = 0; c < n; ++c) {
      const int col = nt * n + c;
      out[c] = (kk < k && col < ncols) ? w[size_t(kk) * ncols + col] : 0;
    }
  };
  auto act_row = [&](int t, int row, int8_t* out) {
    const int kt = t / n_tiles;
    for (int i = 0; i < n; ++i) {
      const int kk = kt * n + i;
      out[i] = kk < k ? a[size_t(row) * k + kk] : 0;
    }
  };

  std::vector<int32_t> c(size_t(m) * ncols, 0);
  std::vector<int8_t> wbuf(n), abuf(n);
  std::vector<int32_t> obuf(n);
  std::deque<PendingRow> pending;
  std::mt19937_64 rng(opts.seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);

  MxuStreamStats st;
  st.tiles = tiles;
  st.useful_macs = uint64_t(m) * k * ncols;
  int w_tile = 0, w_row = 0;  // next weight beat
  int a_tile = 0, a_row = 0;  // next activation row
  uint64_t seq = 0, received = 0, idle = 0;
  const uint64_t start = mxu.cycle();

  while (received < total_rows) {
    const bool w_valid = w_tile < tiles && coin(rng) >= opts.weight_gap;
    if (w_valid) weight_row(w_tile, w_row, wbuf.data());
    mxu.SetWeight(w_valid, wbuf.data());
    const bool a_valid = a_tile < tiles && coin(rng) >= opts.act_gap;
    if (a_valid) act_row(a_tile, a_row, abuf.data());
    const uint32_t tag = uint32_t(seq) & kTagMask;
    mxu.SetAct(a_valid, a_row == 0, abuf.data(), tag);
    mxu.Eval();

    const bool w_fire = w_valid && mxu.weight_ready();
    const bool a_fire = a_valid && mxu.act_ready();
    st.weight_wait += w_valid && !w_fire;
    st.act_wait += a_valid && !a_fire;
    bool progress = w_fire || a_fire;

    if (mxu.out_valid()) {
      if (pending.empty()) throw std::runtime_error("MXU produced a result with no row in flight");
      const PendingRow p = pending.front();
      pending.pop_front();
      if (mxu.out_tag() != p.tag) {
        std::ostringstream msg;
        msg << "MXU result out of order: tag " << mxu.out_tag() << ", expected " << p.tag;
        throw std::runtime_error(msg.str());
      }
      mxu.GetOut(obuf.data());
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
    mxu.Tick();

    if (w_fire && ++w_row == n) {
      w_row = 0;
      ++w_tile;
    }
    if (a_fire) {
      pending.push_back({a_row, a_tile % n_tiles, tag});
      ++seq;
      if (++a_row == m) {
        a_row = 0;
        ++a_tile;
      }
    }
    idle = progress ? 0 : idle + 1;
    if (opts.progress && (mxu.cycle() - start) % opts.progress_every == 0) {
      opts.progress(received, total_rows);
    }
    if (idle > opts.stall_limit) {
      std::ostringstream msg;
      msg << "MXU made no progress for " << opts.stall_limit << " cycles (tile " << a_tile
          << " row " << a_row << " waiting, weights at tile " << w_tile << " row " << w_row
          << ")";
      throw std::runtime_error(msg.str());
    }
  }
  st.rows = total_rows;
  st.cycles = mxu.cycle() - start;
  if (stats) *stats = st;
  return c;
}

}  // namespace tpu::tb
