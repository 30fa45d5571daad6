#include "act/top/act_stream.h"

#include <random>
#include <sstream>
#include <stdexcept>

namespace tpu::tb {
namespace {

constexpr uint32_t kTagMask = 0xFFFF;  // tpu_pkg::ActTagWidth bits

}  // namespace

void LoadActLut(ActHarness& h, const golden::Lut& lut) {
  h.SetIn(false, nullptr, 0);
  h.Eval();
  if (h.busy()) throw std::logic_error("LoadActLut: rows are in flight");
  for (int i = 0; i < int(lut.size()); ++i) {
    h.SetLutWrite(true, uint8_t(i), lut[i]);
    h.Tick();
  }
  h.SetLutWrite(false, 0, 0);
  h.Eval();
}

ActTopStreamResult RunActTop(ActHarness& h, const std::vector<int32_t>& acc, uint64_t expected_rows,
                             const ActTopStreamOptions& opts) {
  const int n = h.n();
  if (acc.empty() || acc.size() % size_t(n) != 0) {
    throw std::invalid_argument("RunActTop: acc must hold a whole number of rows of n()");
  }
  const uint64_t m = acc.size() / size_t(n);
  std::mt19937_64 rng(opts.seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  ActTopStreamResult result;
  ActTopStreamStats& st = result.stats;
  std::vector<int8_t> obuf(n);

  uint64_t idle = 0, cycle = 0;
  bool offering = false;  // a row stays offered until it is taken (valid never drops)
  while (st.in_rows < m || st.out_rows < expected_rows || h.busy()) {
    if (!offering && st.in_rows < m) offering = opts.in_gap <= 0.0 || coin(rng) >= opts.in_gap;
    h.SetIn(offering, offering ? &acc[st.in_rows * n] : nullptr, uint32_t(st.in_rows) & kTagMask);
    const bool ready = opts.out_stall <= 0.0 || coin(rng) >= opts.out_stall;
    h.SetOutReady(ready);
    h.Eval();

    const bool in_fire = offering && h.in_ready();
    const bool out_fire = h.out_valid() && ready;
    st.in_wait += offering && !in_fire;
    st.out_wait += h.out_valid() && !ready;
    if (out_fire) {
      if (st.out_rows == expected_rows) {
        std::ostringstream msg;
        msg << "act pipeline produced more than the expected " << expected_rows << " rows";
        throw std::runtime_error(msg.str());
      }
      h.GetOut(obuf.data());
      result.rows.insert(result.rows.end(), obuf.begin(), obuf.end());
      result.tags.push_back(h.out_tag());
      if (st.out_rows == 0) st.first_out = cycle;
      st.last_out = cycle;
      ++st.out_rows;
    }
    if (in_fire) {
      if (st.in_rows == 0) st.first_in = cycle;
      st.last_in = cycle;
      ++st.in_rows;
      offering = false;
    }
    h.Tick();
    ++cycle;
    idle = (in_fire || out_fire) ? 0 : idle + 1;
    if (idle > opts.stall_limit) {
      std::ostringstream msg;
      msg << "act pipeline made no progress for " << opts.stall_limit << " cycles (" << st.in_rows
          << " rows in, " << st.out_rows << " of " << expected_rows << " out, busy " << h.busy()
          << ")";
      throw std::runtime_error(msg.str());
    }
  }
  st.cycles = st.last_out + 1;

  // Idle means idle: no row may appear afterwards.
  h.SetIn(false, nullptr, 0);
  h.SetOutReady(true);
  for (int i = 0; i < h.latency() + 2; ++i) {
    h.Eval();
    if (h.out_valid()) throw std::runtime_error("act pipeline produced a row after idle");
    h.Tick();
  }
  h.SetOutReady(false);
  h.Eval();
  return result;
}

}  // namespace tpu::tb
