#include "wfifo/wfifo_model.h"

#include <algorithm>
#include <stdexcept>

namespace tpu::tb {

WfifoModel::WfifoModel(const WfifoConfig& config) : config_(config) {
  const int row_bytes = config.n, beat_bytes = config.beat_bytes();
  if (config.dram_width % 8 != 0 || beat_bytes == 0 ||
      (row_bytes % beat_bytes != 0 && beat_bytes % row_bytes != 0)) {
    throw std::invalid_argument("WfifoModel: beat and row must divide one another");
  }
  word_bytes_ = std::max(row_bytes, beat_bytes);
  rows_per_word_ = word_bytes_ / row_bytes;
  words_ = config.depth_tiles * config.n / rows_per_word_;
}

bool WfifoModel::dram_ready(bool flush) const {
  const bool completes_word = int(partial_.size()) + config_.beat_bytes() == word_bytes_;
  return !flush && (!completes_word || !full());
}

int WfifoModel::rows() const { return int(mem_.size()) * rows_per_word_ + int(out_.size()); }

int WfifoModel::tiles() const {
  // Tiles whose last row came in, minus tiles whose first row went out (at most one tile can
  // be started before it is complete, which makes the difference -1).
  const int64_t n = config_.n;
  const int64_t complete = int64_t(rows_in_) / n;
  const int64_t started = (int64_t(rows_out_) + n - 1) / n;
  return int(std::max<int64_t>(0, complete - started));
}

void WfifoModel::Step(bool flush, bool dram_valid, const uint8_t* beat, bool weight_ready) {
  if (flush) {
    Reset();
    return;
  }
  const bool in_fire = dram_valid && dram_ready(false);
  const bool out_fire = weight_ready && weight_valid(false);
  // The output register refills from the memory as it stood before this edge's write.
  const bool refill = !mem_.empty() && (out_.empty() || (out_fire && out_.size() == 1));
  if (out_fire) {
    out_.pop_front();
    ++rows_out_;
  }
  if (refill) {
    for (auto& r : mem_.front()) out_.push_back(std::move(r));
    mem_.pop_front();
  }
  if (in_fire) {
    partial_.insert(partial_.end(), beat, beat + config_.beat_bytes());
    if (int(partial_.size()) == word_bytes_) {
      std::vector<Row> word;
      for (int r = 0; r < rows_per_word_; ++r) {
        word.emplace_back(partial_.begin() + r * config_.n, partial_.begin() + (r + 1) * config_.n);
      }
      mem_.push_back(std::move(word));
      partial_.clear();
      rows_in_ += rows_per_word_;
    }
  }
}

void WfifoModel::Reset() {
  partial_.clear();
  mem_.clear();
  out_.clear();
  rows_in_ = 0;
  rows_out_ = 0;
}

}  // namespace tpu::tb
