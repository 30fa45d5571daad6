#include "ub/ub_traffic.h"

#include <algorithm>
#include <deque>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tpu::tb {
namespace {

const char* const kReaderName[2] = {"DMA read", "MXU read"};

struct Expected {
  uint32_t addr;
  uint64_t accepted_at;
  std::vector<int8_t> row;
};

std::string RowString(const std::vector<int8_t>& row) {
  std::ostringstream s;
  for (size_t i = 0; i < row.size(); ++i) s << (i ? " " : "") << int(row[i]);
  return s.str();
}

}  // namespace

UbTrafficStats RunUbTraffic(UbHarness& ub, UbModel& model, const UbTraffic& traffic,
                            const UbTrafficOptions& opts) {
  const int n = ub.n();
  for (const auto& port : traffic.writes) {
    for (const auto& op : port) {
      if (int(op.row.size()) != n || !(op.mask.empty() || int(op.mask.size()) == n)) {
        throw std::invalid_argument("RunUbTraffic: rows and masks must have n() entries");
      }
    }
  }
  std::mt19937_64 rng(opts.seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  auto fail = [&](const std::string& what) {
    std::ostringstream msg;
    msg << what << " (cycle " << ub.cycle() << ", seed " << opts.seed << ")";
    throw std::runtime_error(msg.str());
  };

  UbTrafficStats st;
  std::array<size_t, 2> wr_next = {0, 0}, rd_next = {0, 0};
  std::array<bool, 2> wr_offer = {false, false}, rd_offer = {false, false};
  std::array<uint64_t, 2> wr_run = {0, 0}, rd_run = {0, 0};
  std::array<std::deque<Expected>, 2> expected;
  std::vector<int8_t> got(n);
  const uint64_t start = ub.cycle();
  uint64_t idle = 0;

  auto done = [&] {
    for (int p = 0; p < 2; ++p) {
      if (wr_next[p] < traffic.writes[p].size() || rd_next[p] < traffic.reads[p].size() ||
          !expected[p].empty()) {
        return false;
      }
    }
    return true;
  };

  while (!done()) {
    const uint64_t now = ub.cycle() - start;
    // Offer: a port keeps offering until accepted, and starts with the given probability.
    std::array<bool, 2> rsp_ready{};
    for (int p = 0; p < 2; ++p) {
      const auto w = UbWriter(p);
      if (!wr_offer[p] && wr_next[p] < traffic.writes[p].size()) {
        wr_offer[p] = coin(rng) < opts.write_valid[p];
      }
      if (wr_offer[p]) {
        const auto& op = traffic.writes[p][wr_next[p]];
        ub.SetWrite(w, true, op.addr, op.row.data(), op.mask.empty() ? nullptr : op.mask.data());
      } else {
        ub.SetWrite(w, false, 0, nullptr, nullptr);
      }
      const auto r = UbReader(p);
      if (!rd_offer[p] && rd_next[p] < traffic.reads[p].size()) {
        rd_offer[p] = coin(rng) < opts.read_valid[p];
      }
      ub.SetReadReq(r, rd_offer[p], rd_offer[p] ? traffic.reads[p][rd_next[p]] : 0);
      rsp_ready[p] = coin(rng) < opts.rsp_ready[p];
      ub.SetReadRspReady(r, rsp_ready[p]);
    }
    ub.Eval();
    bool progress = false;

    // Responses: each one taken must be the oldest row this reader is owed, exactly.
    for (int p = 0; p < 2; ++p) {
      const auto r = UbReader(p);
      if (!ub.read_rsp_valid(r)) continue;
      if (expected[p].empty()) fail(std::string(kReaderName[p]) + ": response with no request");
      if (!rsp_ready[p]) continue;
      const Expected& e = expected[p].front();
      ub.GetReadRsp(r, got.data());
      if (got != e.row) {
        std::ostringstream msg;
        msg << kReaderName[p] << " of row " << e.addr << " accepted at cycle "
            << start + e.accepted_at << " returned [" << RowString(got) << "], expected ["
            << RowString(e.row) << "]";
        fail(msg.str());
      }
      st.min_latency[p] = std::min(st.min_latency[p], now - e.accepted_at);
      expected[p].pop_front();
      progress = true;
    }

    std::array<bool, 2> wr_fire{}, rd_fire{};
    for (int p = 0; p < 2; ++p) {
      wr_fire[p] = wr_offer[p] && ub.write_ready(UbWriter(p));
      rd_fire[p] = rd_offer[p] && ub.read_req_ready(UbReader(p));
    }
    // Two ports of a pair proceed together only on different banks (even and odd rows).
    if (wr_fire[0] && wr_fire[1] &&
        traffic.writes[0][wr_next[0]].addr % 2 == traffic.writes[1][wr_next[1]].addr % 2) {
      fail("both writes accepted in one cycle on one bank");
    }
    if (rd_fire[0] && rd_fire[1] &&
        traffic.reads[0][rd_next[0]] % 2 == traffic.reads[1][rd_next[1]] % 2) {
      fail("both reads accepted in one cycle on one bank");
    }

    // Writes first: a read accepted in this cycle sees the write accepted in this cycle.
    for (int p = 0; p < 2; ++p) {
      auto& ps = st.write[p];
      if (wr_fire[p]) {
        const auto& op = traffic.writes[p][wr_next[p]];
        model.Write(op.addr, op.row.data(), op.mask.empty() ? nullptr : op.mask.data());
        if (ps.accepted++ == 0) ps.first_accept = now;
        ps.last_accept = now;
        ++wr_next[p];
        wr_offer[p] = false;
        wr_run[p] = 0;
        progress = true;
      } else if (wr_offer[p]) {
        ++ps.wait_cycles;
        ps.max_wait = std::max(ps.max_wait, ++wr_run[p]);
      }
    }
    for (int p = 0; p < 2; ++p) {
      auto& ps = st.read[p];
      if (rd_fire[p]) {
        const uint32_t addr = traffic.reads[p][rd_next[p]];
        expected[p].push_back({addr, now, model.Read(addr)});
        if (ps.accepted++ == 0) ps.first_accept = now;
        ps.last_accept = now;
        ++rd_next[p];
        rd_offer[p] = false;
        rd_run[p] = 0;
        progress = true;
      } else if (rd_offer[p]) {
        ++ps.wait_cycles;
        ps.max_wait = std::max(ps.max_wait, ++rd_run[p]);
      }
    }

    ub.Tick();
    idle = progress ? 0 : idle + 1;
    if (idle > opts.stall_limit) {
      std::ostringstream msg;
      msg << "no progress for " << opts.stall_limit << " cycles (writes " << wr_next[0] << "/"
          << wr_next[1] << ", reads " << rd_next[0] << "/" << rd_next[1] << ", responses owed "
          << expected[0].size() << "/" << expected[1].size() << ")";
      fail(msg.str());
    }
  }
  // Leave the ports idle.
  for (int p = 0; p < 2; ++p) {
    ub.SetWrite(UbWriter(p), false, 0, nullptr, nullptr);
    ub.SetReadReq(UbReader(p), false, 0);
    ub.SetReadRspReady(UbReader(p), false);
  }
  ub.Eval();
  st.cycles = ub.cycle() - start;
  return st;
}

}  // namespace tpu::tb
