#include "model/machine.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "isa/codec.h"
#include "isa/disassembler.h"
#include "isa/instr.h"
#include "isa/validate.h"
#include "model/activate.h"
#include "model/matmul_kernel.h"

namespace tpu::model {
namespace {

std::string TokenName(int t) { return "t" + std::to_string(t); }

}  // namespace

Machine::Machine(const isa::DeviceLimits& limits)
    : limits_((isa::CheckLimits(limits), limits)),
      ub_(static_cast<std::size_t>(limits.ub_rows * limits.n)),
      acc_(static_cast<std::size_t>(limits.acc_rows * limits.n)),
      dram_(static_cast<uint64_t>(limits.dram_bytes)),
      param_(static_cast<std::size_t>(isa::DerivedParamBytes(limits))),
      pad_rows_(static_cast<std::size_t>(256 * limits.n)) {
  for (int v = -128; v < 128; ++v) {
    std::fill_n(pad_rows_.begin() + (v + 128) * limits.n, limits.n, static_cast<int8_t>(v));
  }
}

std::size_t Machine::Index(int64_t row, int64_t rows, const char* what) const {
  if (row < 0 || row >= rows) {
    throw std::out_of_range(std::string("machine: ") + what + " row " + std::to_string(row) +
                            " outside [0, " + std::to_string(rows) + ")");
  }
  return static_cast<std::size_t>(row * limits_.n);
}

RunResult Machine::Run(const std::vector<isa::Instr>& program) {
  std::vector<isa::Words> words;
  words.reserve(program.size());
  for (const isa::Instr& instr : program) words.push_back(isa::Encode(instr));
  return Run(words);
}

RunResult Machine::Run(const std::vector<isa::Words>& program) {
  Start();
  return Resume(program.data(), program.size(), 0);
}

void Machine::Start() {
  Flush();
  tokens_ = {};
  fifo_.clear();
  tile_ = nullptr;  // the next MATMUL switches tiles (or raises NO_TILE)
  retired_.clear();  // nothing uses them now
}

RunResult Machine::Resume(const isa::Words* words, std::size_t count, std::size_t first,
                          std::vector<isa::Instr>* decoded_out) {
  RunResult result;
  result.executed = static_cast<int64_t>(first);
  for (std::size_t j = 0; j < count; ++j) {
    const auto index = static_cast<int64_t>(first + j);
    result.executed = index + 1;
    const isa::Decoded decoded = isa::Decode(words[j]);
    const isa::Error check = isa::Check(decoded, limits_);
    if (check != isa::Error::kOk) {
      result.status = RunStatus::kDeviceError;
      result.error = check;
      result.index = index;
      result.message = decoded.error != isa::Error::kOk
                           ? isa::Disassemble(words[j])
                           : isa::Explain(decoded.instr, limits_).message + " (" +
                                 isa::Disassemble(decoded.instr) + ")";
      break;
    }
    const isa::Instr& instr = decoded.instr;
    if (std::holds_alternative<isa::Halt>(instr)) {
      if (decoded_out) decoded_out->push_back(instr);
      result.status = RunStatus::kHalted;
      result.index = index;
      break;
    }
    const Step step = Execute(instr);
    if (decoded_out && step.status == RunStatus::kEndOfProgram) decoded_out->push_back(instr);
    if (step.status != RunStatus::kEndOfProgram) {
      result.status = step.status;
      result.error = step.error;
      result.model_error = step.model_error;
      result.index = index;
      result.message = step.message + " (" + isa::Disassemble(instr) + ")";
      break;
    }
  }
  Flush();
  result.tokens = tokens_;
  result.fifo_tiles = static_cast<int64_t>(fifo_.size());
  return result;
}

Machine::Step Machine::Execute(const isa::Instr& instr) {
  return std::visit(
      [this](const auto& op) -> Step {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, isa::Nop> || std::is_same_v<T, isa::Halt>) {
          return {};
        } else {
          // Most instructions of a layer (the MATMULs of a K reduction) wait on and signal
          // nothing: no token is looked at for them.
          if (op.wait != 0) {
            Step step = Take(op.wait);
            if (step.status != RunStatus::kEndOfProgram) return step;
          }
          if constexpr (!std::is_same_v<T, isa::Sync>) {
            Step step = Exec(op);
            if (step.status != RunStatus::kEndOfProgram) return step;
          }
          if (op.signal == 0) return Step{};
          return Give(op.signal);
        }
      },
      instr);
}

Machine::Step Machine::Take(uint8_t wait) {
  for (int t = 0; t < isa::kNumTokens; ++t) {
    if (((wait >> t) & 1) != 0 && tokens_[t] == 0) {
      Step step;
      step.status = RunStatus::kModelError;
      step.model_error = ModelError::kTokenOrder;
      step.message = "waits on " + TokenName(t) +
                     " whose counter is 0 in program order (the program relies on a later "
                     "producer, or deadlocks)";
      return step;
    }
  }
  for (int t = 0; t < isa::kNumTokens; ++t) {
    if (((wait >> t) & 1) != 0) --tokens_[t];
  }
  return {};
}

Machine::Step Machine::Give(uint8_t signal) {
  Step step;
  for (int t = 0; t < isa::kNumTokens; ++t) {
    if (((signal >> t) & 1) == 0) continue;
    if (tokens_[t] == isa::kTokenMax) {
      if (step.status == RunStatus::kEndOfProgram) {
        step.status = RunStatus::kDeviceError;
        step.error = isa::Error::kTokenOverflow;
        step.message = "signals " + TokenName(t) + " whose counter is already TOKEN_MAX";
      }
    } else {
      ++tokens_[t];
    }
  }
  return step;
}

Machine::Step Machine::Exec(const isa::ReadHost& instr) {
  Step step;
  if (host_.TakeFault(instr.host, instr.length)) {
    step.status = RunStatus::kDeviceError;
    step.error = isa::Error::kDmaError;
    step.message = "host read failed";
    return step;
  }
  switch (instr.target) {
    case isa::Target::kUb:
      FlushIfReadsUb(static_cast<int64_t>(instr.dest),
                     (static_cast<int64_t>(instr.length) + limits_.n - 1) / limits_.n);
      // Byte i to row dest + i / N, byte i % N: contiguous from the start of row dest.
      host_.Read(instr.host, ub_row(instr.dest), instr.length);
      break;
    case isa::Target::kDram: {
      // The packed tiles the write overlaps leave the cache; the others stay valid (a layer
      // that streams its weights writes one column of tiles after another). Any other write to
      // the DRAM since the cache was valid empties all of it (PackedTileAt).
      const bool cache_valid = packed_writes_ == dram_.writes();
      dram_.Write(instr.dest, host_.Read(instr.host, instr.length));
      if (cache_valid && instr.length > 0) {
        const auto tile_bytes = static_cast<uint64_t>(isa::DerivedTileBytes(limits_));
        ForgetPackedTiles(instr.dest / tile_bytes, (instr.dest + instr.length - 1) / tile_bytes);
        packed_writes_ = dram_.writes();
      }
      break;
    }
    case isa::Target::kParam:
      host_.Read(instr.host, &param_[instr.dest], instr.length);
      break;
    case isa::Target::kLut:
      host_.Read(instr.host, reinterpret_cast<uint8_t*>(&lut_[instr.dest]), instr.length);
      break;
  }
  return step;
}

Machine::Step Machine::Exec(const isa::WriteHost& instr) {
  Step step;
  // (Not TakeFault: a posted write records no completion failure; DMA_ERROR_CAUSE stays.)
  if (host_.Faults(instr.host, instr.length)) {
    step.status = RunStatus::kDeviceError;
    step.error = isa::Error::kDmaError;
    step.message = "host write failed";
    return step;
  }
  host_.Write(instr.host, ub_row(instr.ub), instr.length);
  return step;
}

const PackedTile* Machine::PackedTileAt(uint64_t tile) {
  if (packed_writes_ != dram_.writes()) {
    ForgetPackedTiles(0, packed_.size());
    packed_writes_ = dram_.writes();
  }
  const auto tile_bytes = static_cast<uint64_t>(isa::DerivedTileBytes(limits_));
  const auto read = [&] {
    tile_bytes_.resize(tile_bytes);
    dram_.Read(tile * tile_bytes, reinterpret_cast<uint8_t*>(tile_bytes_.data()), tile_bytes);
    return std::make_unique<PackedTile>(tile_bytes_, limits_.n);
  };
  // Slots for the tiles up to the highest used, at most 1 M (8 MiB; tiny tiles of a huge DRAM
  // past that are packed at each use and retired at once), none past the DRAM (the read says
  // so).
  const uint64_t max_slots = std::min(uint64_t{1} << 20, dram_.size() / tile_bytes);
  if (tile >= packed_.size()) {
    if (tile >= max_slots) {
      retired_.push_back(read());
      const PackedTile* packed = retired_.back().get();
      if (retired_.size() > retired_limit_) PruneRetired();
      return packed;
    }
    packed_.resize(std::min(max_slots, std::max<uint64_t>(tile + 1, 2 * packed_.size())));
  }
  std::unique_ptr<PackedTile>& slot = packed_[tile];
  if (slot) return slot.get();
  // Kept up to ~64 MiB of packed tiles (256 K tiles at N = 16, 1 K at N = 256), then packed
  // again as they come.
  if (packed_live_ >= (uint64_t{64} << 20) / (tile_bytes + 4 * limits_.n)) {
    ForgetPackedTiles(0, packed_.size());
  }
  slot = read();
  ++packed_live_;
  packed_used_.push_back(tile);
  return slot.get();
}

void Machine::ForgetPackedTiles(uint64_t first, uint64_t last) {
  const std::size_t retired_before = retired_.size();
  const auto retire = [&](uint64_t tile) {
    if (packed_[tile]) {
      retired_.push_back(std::move(packed_[tile]));
      --packed_live_;
    }
  };
  if (last - first >= packed_used_.size()) {
    for (const uint64_t tile : packed_used_) {
      if (tile >= first && tile <= last) retire(tile);
    }
  } else {
    for (uint64_t tile = first; tile <= last && tile < packed_.size(); ++tile) retire(tile);
  }
  if (packed_live_ == 0) {
    packed_used_.clear();
  } else if (packed_used_.size() > 2 * packed_live_ + 1024) {
    // Slots emptied (or filled again) since they were listed: list each filled one once.
    std::sort(packed_used_.begin(), packed_used_.end());
    packed_used_.erase(std::unique(packed_used_.begin(), packed_used_.end()), packed_used_.end());
    packed_used_.erase(std::remove_if(packed_used_.begin(), packed_used_.end(),
                                      [&](uint64_t tile) { return !packed_[tile]; }),
                       packed_used_.end());
  }
  if (retired_.size() != retired_before) PruneRetired();
}

void Machine::PruneRetired() {
  std::vector<const PackedTile*> used(fifo_.begin(), fifo_.end());
  used.push_back(tile_);
  used.insert(used.end(), block_tile_ptrs_.begin(), block_tile_ptrs_.end());
  std::sort(used.begin(), used.end());
  std::size_t kept = 0;
  for (std::unique_ptr<PackedTile>& tile : retired_) {
    if (std::binary_search(used.begin(), used.end(), tile.get())) {
      retired_[kept++] = std::move(tile);
    }
  }
  retired_.resize(kept);  // frees the rest
  retired_limit_ = std::max<std::size_t>(1024, 2 * kept);
}

Machine::Step Machine::Exec(const isa::ReadWeights& instr) {
  for (uint64_t t = 0; t < instr.tiles; ++t) fifo_.push_back(PackedTileAt(instr.dram_tile + t));
  return {};
}

Machine::Step Machine::Exec(const isa::Matmul& instr) {
  Step step;
  if (instr.new_tile) {
    if (fifo_.empty()) {
      step.status = RunStatus::kModelError;
      step.model_error = ModelError::kEmptyFifo;
      step.message =
          "switches to the next weight tile but the FIFO is empty in program order (the program "
          "relies on a later READ_WEIGHTS)";
      return step;
    }
    tile_ = fifo_.front();
    fifo_.pop_front();
  } else if (!tile_) {
    step.status = RunStatus::kDeviceError;
    step.error = isa::Error::kNoTile;
    step.message = "new_tile=0 before any tile was switched to";
    return step;
  }
  acc_row(instr.acc + instr.rows - 1);  // range check of the last row
  const bool accumulate = instr.acc_mode == isa::AccMode::kAccumulate;
  if (blocks_.empty() || !accumulate || instr.acc != blocks_.back().acc ||
      instr.rows != blocks_.back().rows) {
    // A new block, after those pending (they run in program order: one that writes the same
    // accumulator rows needs no flush).
    if (blocks_.size() == kMaxPendingBlocks) Flush();
    if (blocks_.empty()) pending_ub_first_ = pending_ub_end_ = instr.ub;
    blocks_.push_back({instr.acc, instr.rows, accumulate, block_sets_.size(), 0});
  }
  // The rows of the MATMUL: a range of UB rows, or a window's taps and pad rows.
  RowSet set;
  int64_t tap_first = -1;
  if (!instr.window) {
    ub_row(instr.ub + instr.rows - 1);  // range check of the last row
    set.base = reinterpret_cast<const int8_t*>(ub_row(instr.ub));
  } else {
    const int8_t* pad_row =
        &pad_rows_[static_cast<std::size_t>((instr.pad_value + 128) * limits_.n)];
    const std::size_t first = BlockTaps(instr.rows);
    const int8_t** rows = block_taps_.data() + first;
    for (int64_t r = 0; r < instr.rows; ++r) {
      // The tap of output pixel (r / out_w, r % out_w); outside the image it is the pad row.
      const int64_t iy = instr.y0 + r / instr.out_w * instr.stride_h;
      const int64_t ix = instr.x0 + r % instr.out_w * instr.stride_w;
      const bool inside = iy >= 0 && iy < instr.image_h && ix >= 0 && ix < instr.image_w;
      rows[r] = inside
                    ? reinterpret_cast<const int8_t*>(ub_row(instr.ub + iy * instr.image_w + ix))
                    : pad_row;
    }
    tap_first = static_cast<int64_t>(first);
  }
  // The UB rows it reads: the range, or the window's image.
  const int64_t ub_rows = instr.window ? int64_t{instr.image_h} * instr.image_w : instr.rows;
  pending_ub_first_ = std::min<int64_t>(pending_ub_first_, instr.ub);
  pending_ub_end_ = std::max<int64_t>(pending_ub_end_, instr.ub + ub_rows);
  block_sets_.push_back(set);
  block_tap_first_.push_back(tap_first);
  block_tile_ptrs_.push_back(tile_);
  ++blocks_.back().tiles;
  return step;
}

void Machine::Flush() {
  if (blocks_.empty()) return;
  for (std::size_t t = 0; t < block_sets_.size(); ++t) {
    if (block_tap_first_[t] >= 0) {
      block_sets_[t].rows = block_taps_.data() + block_tap_first_[t];
    }
  }
  for (const Block& block : blocks_) {
    MultiplyBlocks(&block_sets_[block.first], &block_tile_ptrs_[block.first], block.tiles,
                   block.rows, block.accumulate, acc_row(block.acc));
  }
  blocks_.clear();
  block_sets_.clear();
  block_tap_first_.clear();
  block_tile_ptrs_.clear();
  block_taps_size_ = 0;
}

void Machine::FlushIfWritesAcc(int64_t row, int64_t rows) {
  for (const Block& block : blocks_) {
    if (row < block.acc + block.rows && block.acc < row + rows) {
      Flush();
      return;
    }
  }
}

void Machine::FlushIfReadsUb(int64_t row, int64_t rows) {
  if (!blocks_.empty() && row < pending_ub_end_ && pending_ub_first_ < row + rows) Flush();
}

std::size_t Machine::BlockTaps(int64_t rows) {
  const std::size_t first = block_taps_size_;
  block_taps_size_ += static_cast<std::size_t>(rows);
  // Grown, never shrunk: the slots are written before they are read.
  if (block_taps_.size() < block_taps_size_) {
    block_taps_.resize(std::max(block_taps_size_, 2 * block_taps_.size()));
  }
  return first;
}

Machine::Step Machine::Exec(const isa::Activate& instr) {
  Step step;
  const int64_t n = limits_.n;
  const ParamSet params =
      DecodeParamSet(&param_[static_cast<std::size_t>(instr.param_set * 9 * n)], n);
  for (int64_t c = 0; c < n; ++c) {
    const int shift = params.shift[static_cast<std::size_t>(c)];
    if (!ShiftSupported(shift)) {
      step.status = RunStatus::kModelError;
      step.model_error = ModelError::kShiftRange;
      step.message = "parameter set " + std::to_string(instr.param_set) + " channel " +
                     std::to_string(c) + " has shift " + std::to_string(shift) +
                     ", outside the supported [-31, 30]";
      return step;
    }
  }
  FlushIfWritesAcc(instr.acc, instr.rows);  // the rows it reads
  ActivateRows(instr, acc_row(instr.acc), n, params, lut_, &activated_);
  FlushIfReadsUb(instr.ub, static_cast<int64_t>(activated_.size()) / n);
  std::copy(activated_.begin(), activated_.end(), reinterpret_cast<int8_t*>(ub_row(instr.ub)));
  return step;
}

}  // namespace tpu::model
