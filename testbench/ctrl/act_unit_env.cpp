// ActUnitEnv and the ACTIVATE reference: see act_unit_env.h.
#include "ctrl/act_unit_env.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "golden/pool.h"
#include "golden/requant.h"
#include "golden/tensor.h"

namespace tpu::tb {

// ---- Reference -----------------------------------------------------------------------------

std::vector<uint8_t> ParamSetBytes(const ActParamSet& set, int n) {
  std::vector<uint8_t> bytes(size_t(9) * n);
  for (int c = 0; c < n; ++c) {
    for (int j = 0; j < 4; ++j) {
      bytes[4 * c + j] = uint8_t(uint32_t(set.bias[c]) >> (8 * j));
      bytes[4 * n + 4 * c + j] = uint8_t(uint32_t(set.multiplier[c]) >> (8 * j));
    }
    bytes[8 * n + c] = uint8_t(set.shift[c]);
  }
  return bytes;
}

int64_t ActivateOutRows(const isa::Activate& a) {
  if (a.pool == isa::Pool::kNone) return a.rows;
  const bool same = a.padding == isa::Padding::kSame;
  auto out = [same](int64_t size, int64_t window, int64_t stride) {
    return same ? (size + stride - 1) / stride : (size - window) / stride + 1;
  };
  return int64_t(a.rows) / (int64_t(a.image_h) * a.image_w) * out(a.image_h, a.win_h, a.stride_h) *
         out(a.image_w, a.win_w, a.stride_w);
}

std::vector<int8_t> ActivateReference(const isa::Activate& a, const ActParamSet& set,
                                      const golden::Lut& lut, const std::vector<int32_t>& acc,
                                      int n) {
  const int64_t rows = a.rows;
  std::vector<int32_t> slice(acc.begin() + int64_t(a.acc) * n,
                             acc.begin() + (int64_t(a.acc) + rows) * n);
  golden::RequantParams params;
  for (int c = 0; c < n; ++c) params.multipliers.push_back({set.multiplier[c], set.shift[c]});
  params.out_zero_point = a.zero_point;
  params.act_min = a.clamp_min;
  params.act_max = a.clamp_max;
  golden::Tensor<int8_t> y = golden::RequantizeMatrix(
      golden::Tensor<int32_t>({rows, int64_t(n)}, std::move(slice)), set.bias, params);
  if (a.lut) y = golden::ApplyLut(y, lut);
  if (a.pool == isa::Pool::kNone) return y.data;
  golden::Pool2dParams pp;
  pp.window_h = a.win_h;
  pp.window_w = a.win_w;
  pp.stride_h = a.stride_h;
  pp.stride_w = a.stride_w;
  pp.padding = a.padding == isa::Padding::kSame ? golden::Padding::kSame : golden::Padding::kValid;
  pp.act_min = a.clamp_min;
  pp.act_max = a.clamp_max;
  const int64_t h = a.image_h, w = a.image_w;
  const golden::Tensor<int8_t> images({rows / (h * w), h, w, int64_t(n)}, std::move(y.data));
  return (a.pool == isa::Pool::kMax ? golden::MaxPool2d(images, pp) : golden::AvgPool2d(images, pp))
      .data;
}

std::vector<ActWriteBatch::Row> BytesToRows(uint32_t addr, const std::vector<uint8_t>& bytes,
                                            int n) {
  std::vector<ActWriteBatch::Row> rows;
  for (size_t i = 0; i < bytes.size();) {
    const uint32_t a = addr + uint32_t(i);
    ActWriteBatch::Row r;
    r.row = a / n;
    r.data.assign(size_t(n), 0);
    for (int b = int(a % n); b < n && i < bytes.size(); ++b, ++i) {
      r.data[b] = bytes[i];
      r.mask |= uint64_t{1} << b;
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

// ---- Environment ---------------------------------------------------------------------------

ActUnitEnv::ActUnitEnv(ActUnitHarness& h, const ActEnvConfig& cfg)
    : h_(h), cfg_(cfg), n_(h.config().n), rng_(cfg.seed) {
  acc.assign(size_t(h.config().acc_rows) * n_, 0);
  ub.assign(size_t(h.config().ub_rows) * n_, 0);
}

void ActUnitEnv::PushInstr(const ActWords& words) { queue_.push_back(words); }
void ActUnitEnv::PushWrites(const ActWriteBatch& batch) {
  if (batch.rows.empty()) throw std::invalid_argument("ActUnitEnv: a write batch needs rows");
  writes_.push_back(batch);
}
void ActUnitEnv::GiveTokens(uint8_t mask) { pending_gives_ |= mask; }

bool ActUnitEnv::TokensAvailable(uint8_t mask, const std::array<int, 8>& count) const {
  for (int t = 0; t < 8; ++t) {
    if (((mask >> t) & 1) && count[t] == 0) return false;
  }
  return true;
}

void ActUnitEnv::Error(const std::string& what) {
  if (errors_.size() < 20) errors_.push_back("cycle " + std::to_string(cycle_) + ": " + what);
}

void ActUnitEnv::Step() {
  const int n = n_;
  std::array<int, 8> left = tokens;
  auto take = [&left](uint8_t mask) {
    for (int t = 0; t < 8; ++t) left[t] -= (mask >> t) & 1;
  };

  // ---- Inputs that depend on nothing the unit drives this cycle.
  h_.SetAbort(abort_);
  if (!queue_.empty() && !instr_offered_) instr_offered_ = Chance(cfg_.instr_valid);
  h_.SetInstr(instr_offered_, instr_offered_ ? queue_.front() : ActWords{}, pop_index_);

  // Writer (token port 1, before the unit's port 4).
  const ActWriteBatch* batch = writes_.empty() ? nullptr : &writes_.front();
  if (batch != nullptr && !batch_started_ && TokensAvailable(batch->wait, left)) {
    take(batch->wait);
    batch_started_ = true;
  }
  const bool wr_offer = batch != nullptr && batch_started_ && batch_row_ < batch->rows.size() &&
                        (row_offered_ || (row_offered_ = Chance(cfg_.wr_valid)));
  const ActWriteBatch::Row* wr = wr_offer ? &batch->rows[batch_row_] : nullptr;
  const bool wr_lut = wr_offer && batch->lut;
  h_.SetParamWrite(wr_offer && !wr_lut, wr ? wr->row : 0, wr ? wr->data.data() : nullptr,
                   wr ? wr->mask : 0);
  h_.SetLutWrite(wr_lut, wr ? wr->row : 0, wr ? wr->data.data() : nullptr, wr ? wr->mask : 0);

  // Accumulators and UB.
  const bool acc_req_ready = int(owed_.size()) < cfg_.acc_owed_max && Chance(cfg_.acc_req_ready);
  h_.SetAccReqReady(acc_req_ready);
  if (!owed_.empty() && owed_.front().due <= cycle_ && !rsp_offered_) {
    rsp_offered_ = Chance(cfg_.acc_rsp_valid);
  }
  h_.SetAccRsp(rsp_offered_, rsp_offered_ ? &acc[size_t(owed_.front().row) * n] : nullptr);
  const bool ub_ready = Chance(cfg_.ub_ready);
  h_.SetUbWriteReady(ub_ready);
  h_.SetTakeGrant(false);
  h_.Eval();

  // ---- Token grant (combinational in the token block).
  const bool take_valid = h_.take_valid();
  const uint8_t take_mask = h_.take_mask();
  const bool grant = take_valid && TokensAvailable(take_mask, left);
  if (grant) take(take_mask);
  h_.SetTakeGrant(grant);
  h_.Eval();

  // ---- Sample and check.
  const bool instr_fire = instr_offered_ && h_.instr_ready();
  const bool wr_fire = wr_offer && (wr_lut ? h_.lut_wr_ready() : h_.param_wr_ready());
  const bool acc_req_fire = h_.acc_req_valid() && acc_req_ready;
  const bool acc_rsp_fire = rsp_offered_ && h_.acc_rsp_ready();
  const bool ub_fire = h_.ub_wr_valid() && ub_ready;
  const bool give = h_.give_valid();
  const uint8_t give_mask = h_.give_mask();

  if (h_.error() || h_.error_code() != 0 || h_.error_index() != 0) Error("error_* raised");
  if (h_.blocked() != (take_valid && !grant)) Error("blocked_o != take_valid_o && !take_grant_i");
  if (h_.stall_dep() != h_.blocked()) Error("stall_dep_o != blocked_o");
  if (!h_.param_wr_ready()) Error("param_wr_ready_o low");
  if (h_.row() != ub_fire) Error("row_o is not the UB write handshake");
  if (take_valid && (!held_ || running_)) Error("take_valid_o without a waiting instruction");
  if (abort_ && (h_.instr_ready() || take_valid)) Error("pops or takes during abort");
  if (instr_fire && held_ && !give) Error("popped while holding an instruction");
  if (h_.idle() && held_) Error("idle_o while holding an instruction");
  if (give && !running_) Error("give_valid_o without a running instruction");
  if (h_.acc_req_valid() && !running_) Error("accumulator read outside a run");
  if (h_.acc_req_valid() && h_.acc_req_addr() >= uint32_t(h_.config().acc_rows)) {
    Error("accumulator read out of range");
  }
  if (h_.ub_wr_valid() && !running_) Error("UB write outside a run");
  if (h_.ub_wr_valid() && h_.ub_wr_addr() >= uint32_t(h_.config().ub_rows)) {
    Error("UB write out of range");
  }
  if (running_ && wr_lut) {
    if (h_.lut_wr_ready()) Error("table row taken during a run");
    ++log_.lut_refused_while_running;
  }
  log_.blocked_cycles += h_.blocked();
  log_.row_pulses += h_.row();

  std::vector<int8_t> ub_data;
  if (ub_fire) {
    ub_data.resize(size_t(n));
    h_.GetUbWriteData(ub_data.data());
  }
  const uint32_t acc_addr = h_.acc_req_addr(), ub_addr = h_.ub_wr_addr();

  h_.Tick();

  // ---- State after the edge.
  if (give) {
    for (int t = 0; t < 8; ++t) left[t] += (give_mask >> t) & 1;
  }
  tokens = left;

  cycle_++;
  const uint64_t now = cycle_ - 1;  // the cycle just simulated
  if (give) {
    ActEnvLog::Instr& in = log_.instrs.back();
    in.given = true;
    in.give = now;
    in.give_mask = give_mask;
    held_ = false;
    running_ = false;
  }
  if (grant) {
    ActEnvLog::Instr& in = log_.instrs.back();
    in.granted = true;
    in.grant = now;
    running_ = true;
  } else if (abort_ && held_ && !running_) {
    log_.instrs.back().dropped = true;
    held_ = false;
  }
  if (instr_fire) {
    ActEnvLog::Instr in;
    in.index = pop_index_++;
    in.pop = now;
    log_.instrs.push_back(in);
    queue_.pop_front();
    instr_offered_ = false;
    held_ = true;
  }
  if (wr_fire) {
    if (wr_lut) log_.lut_rows_taken.push_back(now);
    row_offered_ = false;
    if (++batch_row_ == batch->rows.size()) {
      for (int t = 0; t < 8; ++t) tokens[t] += (batch->signal >> t) & 1;
      writes_.pop_front();
      batch_started_ = false;
      batch_row_ = 0;
    }
  }
  if (acc_rsp_fire) {
    owed_.pop_front();
    rsp_offered_ = false;
  }
  if (acc_req_fire) {
    const int lat = std::uniform_int_distribution<int>(cfg_.acc_lat_min, cfg_.acc_lat_max)(rng_);
    owed_.push_back({now + uint64_t(lat), acc_addr});
    log_.acc_reads.emplace_back(now, acc_addr);
  }
  if (ub_fire) {
    if (ub_addr < uint32_t(h_.config().ub_rows)) {
      std::copy(ub_data.begin(), ub_data.end(), ub.begin() + size_t(ub_addr) * n);
    }
    log_.ub_writes.push_back({now, ub_addr, std::move(ub_data)});
  }
  for (int t = 0; t < 8; ++t) {
    tokens[t] += (pending_gives_ >> t) & 1;
    if (tokens[t] > 255) Error("token counter overflow");
  }
  pending_gives_ = 0;
}

void ActUnitEnv::Run(uint64_t cycles) {
  for (uint64_t i = 0; i < cycles; ++i) Step();
}

bool ActUnitEnv::Drained() {
  return queue_.empty() && writes_.empty() && owed_.empty() && !held_ && h_.idle() &&
         !h_.act_busy();
}

void ActUnitEnv::RunUntilDrained(uint64_t max_cycles) {
  const uint64_t start = cycle_;
  while (!Drained()) {
    if (cycle_ - start >= max_cycles) {
      std::ostringstream s;
      s << "activation unit hung after " << max_cycles << " cycles: " << queue_.size()
        << " instructions queued, " << writes_.size() << " write batches left, " << owed_.size()
        << " reads owed, held " << held_ << " running " << running_ << " idle " << h_.idle()
        << " busy " << h_.act_busy();
      throw std::runtime_error(s.str());
    }
    Step();
  }
}

}  // namespace tpu::tb
