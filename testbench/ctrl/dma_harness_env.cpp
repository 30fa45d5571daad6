#include "ctrl/dma_harness_env.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "isa/isa.h"

namespace tpu::tb {

DmaWords EncodeDma(const DmaInstr& in) {
  if (in.write) {
    isa::WriteHost w;
    w.ub = in.ub;
    w.host = in.host;
    w.length = in.length;
    w.wait = in.wait;
    w.signal = in.signal;
    return isa::Encode(w);
  }
  isa::ReadHost r;
  r.target = isa::Target(in.target);
  r.dest = in.dest;
  r.host = in.host;
  r.length = in.length;
  r.wait = in.wait;
  r.signal = in.signal;
  return isa::Encode(r);
}

void ApplyDma(const DmaInstr& in, int n, DmaMemories* mem) {
  const uint64_t h = in.host - mem->host_base;
  if (in.write) {
    for (uint32_t i = 0; i < in.length; ++i) {
      mem->host.at(h + i) = mem->dst[kDmaUb].at(uint64_t(in.ub) * n + i);
    }
    return;
  }
  const uint64_t d = in.target == kDmaUb ? uint64_t(in.dest) * n : in.dest;
  for (uint32_t i = 0; i < in.length; ++i) mem->dst[in.target].at(d + i) = mem->host.at(h + i);
}

int64_t DmaRowsOut(const DmaInstr& in, int n) {
  const int64_t off =
      in.write ? int64_t(in.host % n) : (in.target == kDmaUb ? 0 : int64_t(in.dest % n));
  return (off + in.length + n - 1) / n;
}

int64_t DmaBeatsIn(const DmaInstr& in, int n) {
  const int64_t off = in.write ? 0 : int64_t(in.host % n);
  return (off + in.length + n - 1) / n;
}

DmaEnv::DmaEnv(DmaHarness* dut, DmaMemories mem, uint64_t seed)
    : dut_(dut), mem_(std::move(mem)), rng_(seed) {}

uint32_t DmaEnv::Push(const DmaInstr& in) {
  queue_.push_back({EncodeDma(in), next_index_});
  return next_index_++;
}

void DmaEnv::Violation(const std::string& what) {
  std::ostringstream os;
  os << "cycle " << dut_->cycle() << ": " << what;
  log_.violations.push_back(os.str());
}

void DmaEnv::CheckStable(Offer* prev, bool valid, bool taken, uint64_t addr, uint64_t mask,
                         const std::vector<uint8_t>& data, const char* port) {
  if (prev->valid && (!valid || addr != prev->addr || mask != prev->mask || data != prev->data)) {
    Violation(std::string(port) + ": offer withdrawn or changed before its handshake");
  }
  prev->valid = valid && !taken;
  prev->addr = addr;
  prev->mask = mask;
  prev->data = data;
}

void DmaEnv::Step() {
  DmaHarness& d = *dut_;
  const int n = d.n();
  const uint64_t now = d.cycle();

  // ---- Drive inputs (none depends on the unit's outputs of this cycle) ----
  d.SetAbort(abort_);
  const bool instr_offered = !queue_.empty() && Chance(cfg_.instr_valid);
  if (instr_offered) {
    d.SetInstr(true, queue_.front().words, queue_.front().index);
  } else {
    d.SetInstr(false, DmaWords{}, 0);
  }
  const bool hm_req_ready = Chance(cfg_.hm_req_ready);
  d.SetHmReqReady(hm_req_ready);
  const bool hm_rsp_valid =
      !hm_rsp_.empty() && hm_rsp_.front().due <= now && Chance(cfg_.hm_rsp_valid);
  d.SetHmRsp(hm_rsp_valid, hm_rsp_valid ? hm_rsp_.front().data.data() : nullptr,
             hm_rsp_valid && hm_rsp_.front().error);
  const bool dst_ready = Chance(cfg_.dst_ready);
  d.SetDstReady(dst_ready);
  const bool ub_req_ready = ub_owed_ < 2 && Chance(cfg_.ub_req_ready);
  d.SetUbReqReady(ub_req_ready);
  const bool ub_rsp_valid =
      !ub_rsp_.empty() && ub_rsp_.front().due <= now && Chance(cfg_.ub_rsp_valid);
  d.SetUbRsp(ub_rsp_valid, ub_rsp_valid ? ub_rsp_.front().data.data() : nullptr);
  d.SetTakeGrant(false);
  d.Eval();

  // ---- Token stub: grants in the same cycle when every named counter is > 0 ----
  bool grant = false;
  if (d.take_valid() && !hold_grants_) {
    const uint8_t mask = d.take_mask();
    grant = true;
    for (int t = 0; t < 8; ++t) {
      if (((mask >> t) & 1) && tokens_[t] == 0) grant = false;
    }
    if (grant) {
      d.SetTakeGrant(true);
      d.Eval();
    }
  }

  // ---- Record handshakes and apply them to the models ----
  if (d.idle()) ++log_.idle;
  if (d.stall()) ++log_.stall;
  if (d.stall_dep()) ++log_.stall_dep;
  if (d.blocked()) ++log_.blocked;
  if (d.row()) ++log_.row_pulses;
  if (d.blocked() != (d.take_valid() && !grant)) Violation("blocked_o != take_valid && !grant");
  if (d.stall_dep() != (d.take_valid() && !grant)) Violation("stall_dep_o != take_valid && !grant");

  if (instr_offered && d.instr_ready()) {
    log_.pops.push_back({now, queue_.front().index});
    queue_.pop_front();
  }
  if (grant) {
    const uint8_t mask = d.take_mask();
    log_.takes.push_back({now, mask});
    for (int t = 0; t < 8; ++t) tokens_[t] -= (mask >> t) & 1;
  }
  if (d.give_valid()) {
    const uint8_t mask = d.give_mask();
    log_.gives.push_back({now, mask});
    for (int t = 0; t < 8; ++t) tokens_[t] += (mask >> t) & 1;
  }
  if (d.error()) {
    log_.errors.push_back({now, d.error_code(), d.error_index()});
    if (d.error_code() != 19) Violation("error code is not DMA_ERROR (19)");
  }

  // Host memory requests.
  {
    const bool valid = d.hm_req_valid();
    const bool taken = valid && hm_req_ready;
    std::vector<uint8_t> data(n, 0);
    uint64_t addr = 0, mask = 0;
    bool write = false;
    if (valid) {
      addr = d.hm_req_addr();
      write = d.hm_req_write();
      if (write) {
        d.GetHmReqWdata(data.data());
        mask = d.hm_req_wmask();
      }
    }
    CheckStable(&hm_prev_, valid, taken, addr | (uint64_t(write) << 63), mask, data, "hm_req");
    if (taken) {
      log_.host_reqs.push_back({now, write, addr, mask});
      const bool in_model = addr >= mem_.host_base && addr - mem_.host_base + n <= mem_.host.size();
      if (addr % n != 0) Violation("hm_req_addr_o not a multiple of N");
      if (!in_model) Violation("host address outside the host-memory model");
      const uint64_t off = addr - mem_.host_base;
      if (write) {
        if (mask == 0) Violation("host write with an empty mask");
        for (int b = 0; b < n && in_model; ++b) {
          if ((mask >> b) & 1) mem_.host[off + b] = data[b];
        }
      } else {
        Rsp r{0, std::vector<uint8_t>(n, 0), reads_ == error_beat_};
        if (r.error) {
          for (auto& x : r.data) x = uint8_t(rng_());  // garbage: must never be written
        } else if (in_model) {
          std::copy_n(mem_.host.begin() + off, n, r.data.begin());
        }
        const uint64_t lat = uint64_t(Uniform(cfg_.hm_lat_min, cfg_.hm_lat_max));
        r.due = std::max(now + lat, hm_rsp_.empty() ? 0 : hm_rsp_.back().due);
        hm_rsp_.push_back(std::move(r));
        ++reads_;
      }
    }
  }
  if (hm_rsp_valid && d.hm_rsp_ready()) {
    log_.host_rsps.push_back({now, hm_rsp_.front().error});
    hm_rsp_.pop_front();
  }

  // Destination rows.
  {
    const bool valid = d.dst_valid();
    const bool taken = valid && dst_ready;
    std::vector<uint8_t> data(n, 0);
    uint64_t row = 0, mask = 0;
    int target = 0;
    if (valid) {
      row = d.dst_row();
      target = d.dst_target();
      mask = d.dst_mask();
      d.GetDstData(data.data());
    }
    CheckStable(&dst_prev_, valid, taken, row | (uint64_t(target) << 40), mask, data, "dst");
    if (taken) {
      log_.rows.push_back({now, target, uint32_t(row), mask, data});
      std::vector<uint8_t>& m = mem_.dst[target];
      if (mask == 0) Violation("destination row with an empty mask");
      if ((row + 1) * n > m.size()) {
        Violation("destination row outside the memory model");
      } else {
        for (int b = 0; b < n; ++b) {
          if ((mask >> b) & 1) m[row * n + b] = data[b];
        }
      }
    }
  }

  // UB reads.
  {
    const bool valid = d.ub_req_valid();
    const bool taken = valid && ub_req_ready;
    const uint64_t row = valid ? d.ub_req_addr() : 0;
    CheckStable(&ub_prev_, valid, taken, row, 0, {}, "ub_rd_req");
    if (taken) {
      log_.ub_reqs.push_back({now, uint32_t(row)});
      Rsp r{0, std::vector<uint8_t>(n, 0), false};
      const std::vector<uint8_t>& m = mem_.dst[kDmaUb];
      if (row >= d.ub_rows() || (row + 1) * n > m.size()) {
        Violation("UB read beyond UbRows");
      } else {
        std::copy_n(m.begin() + row * n, n, r.data.begin());
      }
      const uint64_t lat = uint64_t(Uniform(1, cfg_.ub_lat_max));
      r.due = std::max(now + lat, ub_rsp_.empty() ? 0 : ub_rsp_.back().due);
      ub_rsp_.push_back(std::move(r));
      ++ub_owed_;
    }
  }
  if (ub_rsp_valid && d.ub_rsp_ready()) {
    ub_rsp_.pop_front();
    --ub_owed_;
    ++log_.ub_rsps;
  }

  d.Tick();
}

bool DmaEnv::RunUntilIdle(int max_cycles) {
  for (int i = 0; i < max_cycles; ++i) {
    dut_->Eval();
    if (queue_.empty() && dut_->idle() && Quiet()) return true;
    Step();
  }
  return false;
}

}  // namespace tpu::tb
