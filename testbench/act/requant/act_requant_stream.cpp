#include "act/requant/act_requant_stream.h"

#include <random>
#include <sstream>
#include <stdexcept>

namespace tpu::tb {
namespace {

constexpr uint32_t kTagMask = 0xFFFF;  // tpu_pkg::ActTagWidth bits

}  // namespace

void LoadLut(ActRequantHarness& h, const golden::Lut& lut) {
  h.SetIn(false, nullptr, 0);
  h.Eval();
  if (h.busy()) throw std::logic_error("LoadLut: rows are in flight");
  for (int i = 0; i < int(lut.size()); ++i) {
    h.SetLutWrite(true, uint8_t(i), lut[i]);
    h.Tick();
  }
  h.SetLutWrite(false, 0, 0);
  h.Eval();
}

std::vector<int8_t> RunActRequant(ActRequantHarness& h, const std::vector<int32_t>& acc,
                                  const ActStreamOptions& opts, ActStreamStats* stats) {
  const int n = h.n();
  if (acc.empty() || acc.size() % size_t(n) != 0) {
    throw std::invalid_argument("RunActRequant: acc must hold a whole number of rows of n()");
  }
  const uint64_t m = acc.size() / size_t(n);
  std::vector<int8_t> out(acc.size());
  std::mt19937_64 rng(opts.seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);

  ActStreamStats st;
  st.rows = m;
  uint64_t sent = 0, received = 0, idle = 0, cycle = 0;
  bool offering = false;  // a row stays offered until it is taken (valid never drops)
  while (received < m) {
    if (!offering && sent < m) offering = opts.in_gap <= 0.0 || coin(rng) >= opts.in_gap;
    h.SetIn(offering, offering ? &acc[sent * n] : nullptr, uint32_t(sent) & kTagMask);
    const bool ready = opts.out_stall <= 0.0 || coin(rng) >= opts.out_stall;
    h.SetOutReady(ready);
    h.Eval();

    const bool in_fire = offering && h.in_ready();
    const bool out_fire = h.out_valid() && ready;
    st.in_wait += offering && !in_fire;
    st.out_stalled += h.out_valid() && !ready;
    if (out_fire) {
      if (received >= sent) throw std::runtime_error("act requant: a result with no row in flight");
      const uint32_t want = uint32_t(received) & kTagMask;
      if (h.out_tag() != want) {
        std::ostringstream msg;
        msg << "act requant: result out of order: tag " << h.out_tag() << ", expected " << want;
        throw std::runtime_error(msg.str());
      }
      h.GetOut(&out[received * n]);
      if (received == 0) st.first_out = cycle;
      st.last_out = cycle;
      ++received;
    }
    h.Tick();
    ++cycle;
    if (in_fire) {
      ++sent;
      offering = false;
    }
    idle = (in_fire || out_fire) ? 0 : idle + 1;
    if (idle > opts.stall_limit) {
      std::ostringstream msg;
      msg << "act requant: no progress for " << opts.stall_limit << " cycles (" << sent
          << " rows sent, " << received << " received)";
      throw std::runtime_error(msg.str());
    }
  }
  st.cycles = st.last_out + 1;
  h.SetIn(false, nullptr, 0);
  h.SetOutReady(false);
  h.Eval();
  if (h.out_valid() || h.busy()) {
    throw std::runtime_error("act requant: pipeline still busy after the last result");
  }
  if (stats) *stats = st;
  return out;
}

}  // namespace tpu::tb
