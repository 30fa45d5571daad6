#include "act/pool/act_pool_stream.h"

#include <random>
#include <sstream>
#include <stdexcept>

namespace tpu::tb {
namespace {

constexpr uint32_t kTagMask = 0xFFFF;  // the harness model's TagWidth bits

}  // namespace

ActPoolStreamResult RunActPool(ActPoolHarness& pool, const ActPoolConfig& cfg,
                               const std::vector<std::vector<int8_t>>& images,
                               uint64_t expected_rows, const ActPoolStreamOptions& opts) {
  const int n = pool.n();
  for (const auto& image : images) {
    if (image.empty() || image.size() % size_t(n) != 0) {
      throw std::invalid_argument("RunActPool: an image is not a whole, non-zero number of rows");
    }
  }
  std::mt19937_64 rng(opts.seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  ActPoolStreamResult result;
  ActPoolStreamStats& st = result.stats;
  std::vector<int8_t> obuf(n);

  pool.SetConfig(cfg);
  size_t image = 0, row = 0;  // next input row
  uint64_t seq = 0, idle = 0;
  const uint64_t start = pool.cycle();
  auto inputs_left = [&] { return image < images.size(); };

  while (inputs_left() || st.out_rows < expected_rows || pool.busy()) {
    const bool in_valid = inputs_left() && coin(rng) >= opts.in_gap;
    const uint32_t tag = uint32_t(seq) & kTagMask;
    pool.SetIn(in_valid, in_valid ? &images[image][row * n] : nullptr, tag);
    const bool out_ready = coin(rng) >= opts.out_stall && pool.cycle() - start >= opts.out_hold;
    pool.SetOutReady(out_ready);
    pool.Eval();

    const bool in_fire = in_valid && pool.in_ready();
    st.in_wait += in_valid && !in_fire;
    bool progress = in_fire;
    if (pool.out_valid()) {
      if (out_ready) {
        if (st.out_rows == expected_rows) {
          std::ostringstream msg;
          msg << "pooling unit produced more than the expected " << expected_rows << " rows";
          throw std::runtime_error(msg.str());
        }
        pool.GetOut(obuf.data());
        result.rows.insert(result.rows.end(), obuf.begin(), obuf.end());
        result.tags.push_back(pool.out_tag());
        ++st.out_rows;
        progress = true;
      } else {
        ++st.out_wait;
      }
    }
    pool.Tick();

    if (in_fire) {
      ++st.in_rows;
      ++seq;
      if (++row * n == images[image].size()) {
        row = 0;
        ++image;
      }
    }
    idle = (progress || pool.cycle() - start <= opts.out_hold) ? 0 : idle + 1;
    if (idle > opts.stall_limit) {
      std::ostringstream msg;
      msg << "pooling unit made no progress for " << opts.stall_limit << " cycles (" << st.in_rows
          << " rows in, " << st.out_rows << " of " << expected_rows << " out, busy " << pool.busy()
          << ")";
      throw std::runtime_error(msg.str());
    }
  }
  st.cycles = pool.cycle() - start;

  // Idle means idle: no row may appear afterwards.
  pool.SetIn(false, nullptr, 0);
  pool.SetOutReady(true);
  for (int i = 0; i < pool.latency() + 2; ++i) {
    pool.Eval();
    if (pool.out_valid()) throw std::runtime_error("pooling unit produced a row after idle");
    pool.Tick();
  }
  return result;
}

}  // namespace tpu::tb
