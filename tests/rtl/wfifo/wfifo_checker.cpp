#include "wfifo_checker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace tpu::tb {

bool Gate::Next(std::mt19937_64& rng) {
  switch (mode_) {
    case Mode::kAlways:
      return true;
    case Mode::kNever:
      return false;
    case Mode::kRandom:
      return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < p_on_;
    case Mode::kBursty:
      if (left_ == 0) {
        on_ = !on_;
        left_ = std::uniform_int_distribution<int>(1, max_run_)(rng);
      }
      --left_;
      return on_;
  }
  return false;
}

WfifoChecker::WfifoChecker(WfifoHarness& dut, uint64_t seed)
    : dut_(dut),
      model_(dut.config()),
      rng_(seed),
      beat_(dut.config().beat_bytes()),
      row_(dut.config().n) {
  NewBeat();
}

void WfifoChecker::NewBeat() {
  for (auto& b : beat_) b = uint8_t(rng_());
}

bool WfifoChecker::Fail(const std::string& what) {
  ADD_FAILURE() << "cycle " << counters_.cycles << " (" << dut_.config().Name() << "): " << what;
  return false;
}

bool WfifoChecker::Cycle(bool flush, bool dram_valid, bool weight_ready) {
  const int n = dut_.config().n;
  dut_.SetFlush(flush);
  dut_.SetDram(dram_valid, beat_.data());
  dut_.SetWeightReady(weight_ready);
  dut_.Eval();

  std::ostringstream msg;
  auto expect = [&](const char* name, int got, int want) {
    if (got != want) msg << name << " = " << got << ", model " << want << "; ";
  };
  expect("dram_ready_o", dut_.dram_ready(), model_.dram_ready(flush));
  expect("weight_valid_o", dut_.weight_valid(), model_.weight_valid(flush));
  expect("rows_o", dut_.rows(), model_.rows());
  expect("tiles_o", dut_.tiles(), model_.tiles());
  expect("empty_o", dut_.empty(), model_.empty());
  expect("full_o", dut_.full(), model_.full());
  if (!msg.str().empty()) return Fail(msg.str());

  in_fire_ = dram_valid && dut_.dram_ready();
  out_fire_ = weight_ready && dut_.weight_valid();
  if (dut_.weight_valid()) {
    dut_.GetRow(row_.data());
    if (row_ != model_.row()) return Fail("weight_row_o differs from the model's row");
  }
  if (out_fire_) {
    // The row must be the next N bytes of the stream taken, whatever the model says.
    if (stream_.size() < size_t(n)) return Fail("a row left before all its bytes came in");
    if (!std::equal(row_.begin(), row_.end(), stream_.begin())) {
      return Fail("the row handed out is not the next N bytes of the DRAM stream");
    }
    stream_.erase(stream_.begin(), stream_.begin() + n);
  }

  ++counters_.cycles;
  counters_.beats_in += in_fire_;
  counters_.rows_out += out_fire_;
  counters_.full_cycles += dut_.full();
  counters_.became_full += !was_full_ && dut_.full();
  counters_.became_empty += !was_empty_ && dut_.empty();
  was_full_ = dut_.full();
  was_empty_ = dut_.empty();
  counters_.flushes += flush;
  counters_.max_rows = std::max(counters_.max_rows, dut_.rows());
  counters_.max_tiles = std::max(counters_.max_tiles, dut_.tiles());

  dut_.Tick();
  model_.Step(flush, dram_valid, beat_.data(), weight_ready);
  if (flush) {
    stream_.clear();
  } else if (in_fire_) {
    stream_.insert(stream_.end(), beat_.begin(), beat_.end());
  }
  if (in_fire_) NewBeat();
  return true;
}

void WfifoChecker::Reset() {
  dut_.Reset();
  model_.Reset();
  stream_.clear();
  in_fire_ = out_fire_ = false;
}

}  // namespace tpu::tb
