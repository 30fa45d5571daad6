#include "acc/acc_traffic.h"

#include <algorithm>
#include <deque>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tpu::tb {
namespace {

struct Expected {
  uint32_t addr;
  uint64_t accepted_at;
  std::vector<int32_t> row;
};

std::string RowString(const std::vector<int32_t>& row) {
  std::ostringstream s;
  for (size_t i = 0; i < row.size(); ++i) s << (i ? " " : "") << row[i];
  return s.str();
}

}  // namespace

AccTrafficStats RunAccTraffic(AccHarness& acc, AccModel& model, const AccTraffic& traffic,
                              const AccTrafficOptions& opts) {
  const int n = acc.n();
  for (const auto& op : traffic.writes) {
    if (int(op.row.size()) != n) {
      throw std::invalid_argument("RunAccTraffic: rows must have n() values");
    }
  }
  std::mt19937_64 rng(opts.seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  auto fail = [&](const std::string& what) {
    std::ostringstream msg;
    msg << what << " (cycle " << acc.cycle() << ", seed " << opts.seed << ")";
    throw std::runtime_error(msg.str());
  };

  AccTrafficStats st;
  size_t wr_next = 0, rd_next = 0;
  bool rd_offer = false;
  std::deque<Expected> expected;
  std::vector<int32_t> got(n);
  const uint64_t start = acc.cycle();
  uint64_t idle = 0, responses = 0;

  while (wr_next < traffic.writes.size() || rd_next < traffic.reads.size() || !expected.empty() ||
         acc.wr_busy()) {
    const uint64_t now = acc.cycle() - start;
    const bool wr = wr_next < traffic.writes.size() && coin(rng) < opts.write_valid;
    if (wr) {
      const auto& op = traffic.writes[wr_next];
      acc.SetWrite(true, op.addr, op.accumulate, op.row.data());
    } else {
      acc.SetWrite(false, 0, false, nullptr);
    }
    if (!rd_offer && rd_next < traffic.reads.size() && now >= opts.read_delay) {
      rd_offer = coin(rng) < opts.read_valid;
    }
    acc.SetReadReq(rd_offer, rd_offer ? traffic.reads[rd_next] : 0);
    const bool rsp_ready = coin(rng) < opts.rsp_ready;
    acc.SetReadRspReady(rsp_ready);
    acc.Eval();
    bool progress = wr;

    // A response taken must be the oldest row owed, exactly.
    if (acc.read_rsp_valid()) {
      if (expected.empty()) fail("read response with no request");
      if (rsp_ready) {
        const Expected& e = expected.front();
        acc.GetReadRsp(got.data());
        if (got != e.row) {
          std::ostringstream msg;
          msg << "read of row " << e.addr << " accepted at cycle " << start + e.accepted_at
              << " returned [" << RowString(got) << "], expected [" << RowString(e.row) << "]";
          fail(msg.str());
        }
        st.min_latency = std::min(st.min_latency, now - e.accepted_at);
        if (responses++ == 0) st.rsp_first = now;
        st.rsp_last = now;
        expected.pop_front();
        progress = true;
      }
    }

    // The read accepted in this cycle sees the writes of earlier cycles, not this one's.
    if (rd_offer) {
      if (acc.read_req_ready()) {
        const uint32_t addr = traffic.reads[rd_next];
        expected.push_back({addr, now, model.Read(addr)});
        if (st.reads++ == 0) st.read_first = now;
        st.read_last = now;
        ++rd_next;
        rd_offer = false;
        progress = true;
      } else {
        ++st.read_wait;
        st.read_stall += acc.rd_stall();
      }
    }
    if (wr) {
      const auto& op = traffic.writes[wr_next];
      model.Write(op.addr, op.accumulate, op.row.data());
      if (st.writes++ == 0) st.write_first = now;
      st.write_last = now;
      ++wr_next;
    }

    acc.Tick();
    idle = progress ? 0 : idle + 1;
    if (idle > opts.stall_limit) {
      std::ostringstream msg;
      msg << "no progress for " << opts.stall_limit << " cycles (writes " << wr_next << ", reads "
          << rd_next << ", responses owed " << expected.size() << ")";
      fail(msg.str());
    }
  }
  acc.SetWrite(false, 0, false, nullptr);
  acc.SetReadReq(false, 0);
  acc.SetReadRspReady(false);
  acc.Eval();
  st.cycles = acc.cycle() - start;
  return st;
}

}  // namespace tpu::tb
