#include "mxu/mxu_gemm.h"

#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "mxu/gemm_tiles.h"

namespace tpu::tb {
namespace {

constexpr uint32_t kTagMask = 0xFFFF;  // tpu_pkg::MxuTagWidth bits

}  // namespace

std::vector<int32_t> RunMxuGemm(MxuHarness& mxu, const std::vector<int8_t>& a,
                                const std::vector<int8_t>& w, int m, int k, int ncols,
                                const MxuStreamOptions& opts, MxuStreamStats* stats) {
  const int n = mxu.n();
  const GemmTiles g(a, w, m, k, ncols, n, "RunMxuGemm");
  const int tiles = g.tiles();
  const uint64_t total_rows = g.total_rows();
  GemmResults results(m, ncols, n);
  std::vector<int8_t> wbuf(n), abuf(n);
  std::vector<int32_t> obuf(n);
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
    if (w_valid) g.WeightRow(w_tile, w_row, wbuf.data());
    mxu.SetWeight(w_valid, wbuf.data());
    const bool a_valid = a_tile < tiles && coin(rng) >= opts.act_gap;
    if (a_valid) g.ActRow(a_tile, a_row, abuf.data());
    const uint32_t tag = uint32_t(seq) & kTagMask;
    mxu.SetAct(a_valid, a_row == 0, abuf.data(), tag);
    mxu.Eval();

    const bool w_fire = w_valid && mxu.weight_ready();
    const bool a_fire = a_valid && mxu.act_ready();
    st.weight_wait += w_valid && !w_fire;
    st.act_wait += a_valid && !a_fire;
    bool progress = w_fire || a_fire;

    if (mxu.out_valid()) {
      mxu.GetOut(obuf.data());
      results.Receive(mxu.out_tag(), obuf.data());
      ++received;
      progress = true;
    }
    mxu.Tick();

    if (w_fire && ++w_row == n) {
      w_row = 0;
      ++w_tile;
    }
    if (a_fire) {
      results.Expect(a_row, g.column_tile(a_tile), tag);
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
  return std::move(results.c());
}

}  // namespace tpu::tb
