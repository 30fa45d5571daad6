#include "core/program_gen.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "model/access.h"
#include "model/activate.h"

namespace tpu::tb {
namespace {

using model::Access;
using model::Memory;

constexpr int kUnits = 5;  // isa::Unit: control, dma, weights, matrix, activation
constexpr int kDma = static_cast<int>(isa::Unit::kDma);
constexpr int kWeights = static_cast<int>(isa::Unit::kWeights);
constexpr int kMatrix = static_cast<int>(isa::Unit::kMatrix);
constexpr int kActivation = static_cast<int>(isa::Unit::kActivation);
constexpr int kNoToken = -1;
constexpr int kDecorationToken = 7;  // t7: signalled at random, consumed by SYNC, orders nothing
constexpr int64_t kFifoTiles = isa::kWeightFifoTiles;

// The token of each producer -> consumer unit pair that can conflict; -1: ordered by SYNC.
int EdgeToken(int producer, int consumer) {
  static const std::map<std::pair<int, int>, int> kTokens = {
      {{kDma, kMatrix}, 0},        {{kDma, kWeights}, 1},       {{kDma, kActivation}, 2},
      {{kMatrix, kActivation}, 3}, {{kActivation, kMatrix}, 4}, {{kActivation, kDma}, 5},
      {{kMatrix, kDma}, 6}};
  const auto it = kTokens.find({producer, consumer});
  return it == kTokens.end() ? kNoToken : it->second;
}

uint8_t* WaitOf(isa::Instr& instr) {
  return std::visit(
      [](auto& op) -> uint8_t* {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, isa::Nop> || std::is_same_v<T, isa::Halt>) {
          return nullptr;
        } else {
          return &op.wait;
        }
      },
      instr);
}

uint8_t* SignalOf(isa::Instr& instr) {
  return std::visit(
      [](auto& op) -> uint8_t* {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, isa::Nop> || std::is_same_v<T, isa::Halt>) {
          return nullptr;
        } else {
          return &op.signal;
        }
      },
      instr);
}

class Generator {
 public:
  Generator(uint64_t seed, const isa::DeviceLimits& limits, const ProgramGenOptions& options)
      : rng_(seed), limits_(limits), options_(options), n_(limits.n) {
    isa::CheckLimits(limits);
    ub_rows_ = std::min(options.ub_rows, limits.ub_rows);
    acc_rows_ = std::min(options.acc_rows, limits.acc_rows);
    dram_tiles_ = std::min(options.dram_tiles, limits.dram_bytes / (n_ * n_));
    param_sets_ = std::min(options.param_sets, limits.param_sets);
    max_rows_ = std::max<int64_t>(1, std::min({options.max_rows, ub_rows_, acc_rows_}));
    if (ub_rows_ < 8 || acc_rows_ < 8 || dram_tiles_ < 1) {
      throw std::invalid_argument(
          "GenerateProgram: the device (or the options) leave fewer than "
          "8 UB or accumulator rows or no DRAM tile to work with");
    }
    ub_defined_.assign(static_cast<std::size_t>(ub_rows_), false);
    acc_defined_.assign(static_cast<std::size_t>(acc_rows_), false);
    dram_defined_.assign(static_cast<std::size_t>(dram_tiles_ * n_ * n_), false);
    param_defined_.assign(static_cast<std::size_t>(param_sets_ * 9 * n_), false);
    lut_defined_.assign(isa::kLutBytes, false);
    result_.seed = seed;
    result_.limits = limits;
    PlaceHostMemory();
  }

  GeneratedProgram Run() {
    if (Chance(0.85)) Bootstrap();
    const int ops = static_cast<int>(Uniform(options_.min_ops, options_.max_ops));
    for (int op = 0; op < ops; ++op) {
      for (int attempt = 0; attempt < 20 && !RandomOp(); ++attempt) {
      }
    }
    while (fifo_ > kFifoTiles) Matmul(true);
    WriteBack();
    while (decorations_ > 0) {
      isa::Sync sync;
      sync.wait = 1u << kDecorationToken;
      --decorations_;
      Emit(sync);
    }
    Emit(isa::Halt{});
    for (const HostSegment& segment : result_.memory) {
      result_.compare.push_back({segment.address, segment.bytes.size()});
    }
    return std::move(result_);
  }

 private:
  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  // ----------------------------------------------------------------------------------------
  // Host memory: source bytes, parameter and LUT images, a result area, a dump area.
  // ----------------------------------------------------------------------------------------
  uint64_t AddSegment(std::vector<uint8_t> bytes) {
    next_host_ += static_cast<uint64_t>(Uniform(1, 300));  // random gaps, unaligned starts
    const uint64_t address = next_host_;
    next_host_ += bytes.size();
    result_.memory.push_back({address, std::move(bytes)});
    return address;
  }

  std::vector<uint8_t> RandomBytes(std::size_t size) {
    std::vector<uint8_t> bytes(size);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(Uniform(0, 255));
    return bytes;
  }

  std::vector<uint8_t> ParamImage() {
    std::vector<uint8_t> image;
    for (int64_t s = 0; s < param_sets_; ++s) {
      model::ParamSet set;
      for (int64_t c = 0; c < n_; ++c) {
        set.bias.push_back(static_cast<int32_t>(Chance(0.1) ? Uniform(INT32_MIN, INT32_MAX)
                                                            : Uniform(-50000, 50000)));
        set.multiplier.push_back(static_cast<int32_t>(Chance(0.1) ? Uniform(INT32_MIN, INT32_MAX)
                                                                  : Uniform(1 << 30, INT32_MAX)));
        set.shift.push_back(static_cast<int8_t>(Chance(0.1) ? Uniform(-31, 30) : Uniform(-14, -4)));
      }
      const std::vector<uint8_t> bytes = model::EncodeParamSet(set);
      image.insert(image.end(), bytes.begin(), bytes.end());
    }
    return image;
  }

  void PlaceHostMemory() {
    next_host_ = (static_cast<uint64_t>(Uniform(1, (int64_t{1} << 35) - 1)) << 12);
    source_size_ = static_cast<uint64_t>(std::max<int64_t>(4096, 4 * n_ * n_));
    source_ = AddSegment(RandomBytes(source_size_));
    for (uint64_t& image : param_images_) image = AddSegment(ParamImage());
    for (uint64_t& image : lut_images_) image = AddSegment(RandomBytes(isa::kLutBytes));
    results_size_ = static_cast<uint64_t>(std::max<int64_t>(2048, 4 * max_rows_ * n_));
    results_ = AddSegment(RandomBytes(results_size_));
    dump_ = AddSegment(RandomBytes(static_cast<std::size_t>((ub_rows_ + 2) * n_)));
  }

  // ----------------------------------------------------------------------------------------
  // Emission with ordering.
  // ----------------------------------------------------------------------------------------
  static int UnitOf(const isa::Instr& instr) { return static_cast<int>(isa::InfoOf(instr).unit); }

  // The latest instruction of `unit` after index `after` that conflicts with `accesses`.
  std::optional<int64_t> LatestConflict(int unit, int64_t after,
                                        const std::vector<Access>& accesses) const {
    const std::vector<int64_t>& list = by_unit_[unit];
    for (auto it = list.rbegin(); it != list.rend() && *it > after; ++it) {
      for (const Access& a : accesses_[static_cast<std::size_t>(*it)]) {
        for (const Access& b : accesses) {
          if (model::Conflict(a, b)) return *it;
        }
      }
    }
    return std::nullopt;
  }

  void Emit(isa::Instr instr) {
    const isa::Violation violation = isa::Explain(instr, limits_);
    if (violation.error != isa::Error::kOk) {
      throw std::logic_error("GenerateProgram produced an invalid instruction: " +
                             isa::Disassemble(instr) + ": " + violation.message);
    }
    const int unit = UnitOf(instr);
    std::vector<Access> accesses = model::AccessesOf(instr, limits_);
    if (unit != 0) {
      for (int producer = 1; producer < kUnits; ++producer) {
        if (producer == unit) continue;
        const int token = EdgeToken(producer, unit);
        const int64_t known =
            std::max(synced_[producer], token == kNoToken ? -1 : last_signal_[producer][unit]);
        const std::optional<int64_t> x = LatestConflict(producer, known, accesses);
        if (!x) continue;
        if (token == kNoToken) {
          isa::Sync sync;  // weights -> dma: wait until the weights unit is idle
          sync.units = static_cast<uint8_t>(1u << (producer - 1));
          Emit(sync);
          continue;
        }
        *SignalOf(result_.program[static_cast<std::size_t>(*x)]) |= 1u << token;
        last_signal_[producer][unit] = *x;
        *WaitOf(instr) |= 1u << token;
      }
      // Decoration: t7, consumed by a later SYNC (never while the FIFO is overfilled, so a
      // READ_WEIGHTS waiting for room never holds a SYNC, and with it the dispatcher, back).
      if (Chance(0.05)) {
        *SignalOf(instr) |= 1u << kDecorationToken;
        ++decorations_;
      }
    }
    if (const auto* sync = std::get_if<isa::Sync>(&instr)) {
      for (int u = 1; u < kUnits; ++u) {
        if (((sync->units >> (u - 1)) & 1) != 0 && !by_unit_[u].empty()) {
          synced_[u] = by_unit_[u].back();
        }
      }
    }
    const auto index = static_cast<int64_t>(result_.program.size());
    result_.program.push_back(instr);
    accesses_.push_back(std::move(accesses));
    by_unit_[unit].push_back(index);
  }

  // ----------------------------------------------------------------------------------------
  // Definedness of device memory.
  // ----------------------------------------------------------------------------------------
  static bool AllDefined(const std::vector<bool>& defined, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if (!defined[static_cast<std::size_t>(i)]) return false;
    }
    return true;
  }

  static void Define(std::vector<bool>& defined, int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) defined[static_cast<std::size_t>(i)] = true;
  }

  // A random start of `length` consecutive defined entries, if any.
  std::optional<int64_t> DefinedRun(const std::vector<bool>& defined, int64_t length) {
    std::vector<int64_t> starts;
    int64_t run = 0;
    for (int64_t i = 0; i < static_cast<int64_t>(defined.size()); ++i) {
      run = defined[static_cast<std::size_t>(i)] ? run + 1 : 0;
      if (run >= length) starts.push_back(i - length + 1);
    }
    if (starts.empty()) return std::nullopt;
    return starts[static_cast<std::size_t>(Uniform(0, static_cast<int64_t>(starts.size()) - 1))];
  }

  // The longest defined run length up to `cap` (0 if nothing is defined).
  static int64_t LongestRun(const std::vector<bool>& defined, int64_t cap) {
    int64_t best = 0;
    int64_t run = 0;
    for (bool d : defined) {
      run = d ? run + 1 : 0;
      best = std::max(best, run);
    }
    return std::min(best, cap);
  }

  bool ParamSetDefined(int64_t set) const {
    return AllDefined(param_defined_, set * 9 * n_, (set + 1) * 9 * n_);
  }

  // ----------------------------------------------------------------------------------------
  // Operations. Each returns false (emitting nothing) if it does not apply now.
  // ----------------------------------------------------------------------------------------
  bool RandomOp() {
    const int64_t pick = Uniform(0, 99);
    if (pick < 13) return LoadUb();
    if (pick < 20) return LoadDram(false);
    if (pick < 26) return LoadParams(false);
    if (pick < 29) return LoadLut();
    if (pick < 40) return ReadWeights();
    if (pick < 62) return Matmul(false);
    if (pick < 80) return Activate(false);
    if (pick < 92) return WriteHost(false);
    if (pick < 97) return Sync();
    Emit(isa::Nop{});
    return true;
  }

  uint64_t SourceAddress(int64_t length) {
    return source_ + static_cast<uint64_t>(Uniform(0, static_cast<int64_t>(source_size_) - length));
  }

  bool LoadUb() {
    const int64_t rows = Uniform(1, max_rows_);
    int64_t length = rows * n_;
    if (Chance(0.3)) length -= Uniform(1, n_ - 1);
    isa::ReadHost rh;
    rh.target = isa::Target::kUb;
    rh.dest = static_cast<uint32_t>(Uniform(0, ub_rows_ - rows));
    rh.length = static_cast<uint32_t>(length);
    rh.host = SourceAddress(length);
    Emit(rh);
    // Whole rows become defined; a partial last row only if it was.
    Define(ub_defined_, rh.dest, rh.dest + length / n_);
    return true;
  }

  // Most programs start by loading whole weight tiles, every parameter set, the LUT and some
  // UB rows (in random order), so that MATMUL and ACTIVATE have data early.
  void Bootstrap() {
    std::array<int, 4> order = {0, 1, 2, 3};
    std::shuffle(order.begin(), order.end(), rng_);
    for (int step : order) {
      if (step == 0) LoadDram(/*whole_tiles=*/true);
      if (step == 1) LoadParams(/*all=*/true);
      if (step == 2 && Chance(0.6)) LoadLut();
      if (step == 3) LoadUb();
    }
  }

  bool LoadDram(bool whole_tiles = false) {
    const int64_t window = dram_tiles_ * n_ * n_;
    const int64_t length = std::min(
        window, whole_tiles || Chance(0.7) ? Uniform(1, 4) * n_ * n_ : Uniform(1, 3 * n_ * n_));
    int64_t dest = Uniform(0, window - length);
    if (whole_tiles || Chance(0.6)) dest = dest / (n_ * n_) * (n_ * n_);
    isa::ReadHost rh;
    rh.target = isa::Target::kDram;
    rh.dest = static_cast<uint32_t>(dest);
    rh.length = static_cast<uint32_t>(length);
    rh.host = SourceAddress(length);
    if (fifo_ > kFifoTiles) return false;  // never SYNC on the weights unit while it may block
    Emit(rh);
    Define(dram_defined_, dest, dest + length);
    return true;
  }

  bool LoadParams(bool all = false) {
    const int64_t bytes = param_sets_ * 9 * n_;
    int64_t begin = all ? 0 : Uniform(0, bytes - 1);
    if (Chance(0.6)) begin = begin / (9 * n_) * (9 * n_);
    const int64_t length = all ? bytes
                               : std::min(bytes - begin, Chance(0.6) ? Uniform(1, 3) * 9 * n_
                                                                     : Uniform(1, 4 * 9 * n_));
    isa::ReadHost rh;
    rh.target = isa::Target::kParam;
    rh.dest = static_cast<uint32_t>(begin);  // the image is positional: any byte range is valid
    rh.length = static_cast<uint32_t>(length);
    rh.host = param_images_[static_cast<std::size_t>(Uniform(0, 1))] + static_cast<uint64_t>(begin);
    Emit(rh);
    Define(param_defined_, begin, begin + length);
    return true;
  }

  bool LoadLut() {
    const int64_t begin = Chance(0.5) ? 0 : Uniform(0, isa::kLutBytes - 1);
    const int64_t length =
        Chance(0.5) ? isa::kLutBytes - begin : Uniform(1, isa::kLutBytes - begin);
    isa::ReadHost rh;
    rh.target = isa::Target::kLut;
    rh.dest = static_cast<uint32_t>(begin);
    rh.length = static_cast<uint32_t>(length);
    rh.host = lut_images_[static_cast<std::size_t>(Uniform(0, 1))] + static_cast<uint64_t>(begin);
    Emit(rh);
    Define(lut_defined_, begin, begin + length);
    return true;
  }

  bool ReadWeights() {
    if (fifo_ > kFifoTiles) return false;
    const bool overfill = options_.fifo_overfill && Chance(0.25) && LongestRun(ub_defined_, 1) > 0;
    const int64_t room = (overfill ? 2 * kFifoTiles : kFifoTiles) - fifo_;
    if (room < 1) return false;
    const int64_t tiles = Uniform(1, std::min<int64_t>(room, dram_tiles_));
    std::vector<bool> tile_defined(static_cast<std::size_t>(dram_tiles_));
    for (int64_t t = 0; t < dram_tiles_; ++t) {
      tile_defined[static_cast<std::size_t>(t)] =
          AllDefined(dram_defined_, t * n_ * n_, (t + 1) * n_ * n_);
    }
    const std::optional<int64_t> first = DefinedRun(tile_defined, tiles);
    if (!first) return false;
    isa::ReadWeights rw;
    rw.dram_tile = static_cast<uint32_t>(*first);
    rw.tiles = static_cast<uint32_t>(tiles);
    Emit(rw);
    fifo_ += tiles;
    return true;
  }

  // Window fields for a MATMUL of `rows` rows over a defined UB image (nullopt if no image
  // fits): images of 1 .. 64 pixels including 1 x W and H x 1, strides 1..3 (sometimes up to
  // 7), taps starting in the padding, inside, or beyond the image, and outputs lines shorter
  // than `rows` so that the rows span several lines.
  std::optional<isa::Matmul> WindowConfig(int64_t rows) {
    const int64_t longest = LongestRun(ub_defined_, 64);
    if (longest < 1) return std::nullopt;
    int64_t ih = 1, iw = 1;
    switch (Uniform(0, 3)) {
      case 0:  // one line
        iw = Uniform(1, std::min<int64_t>(longest, 16));
        break;
      case 1:  // one column
        ih = Uniform(1, std::min<int64_t>(longest, 16));
        break;
      default:
        ih = Uniform(1, std::min<int64_t>(longest, 12));
        iw = Uniform(1, std::min<int64_t>(longest / ih, 12));
        break;
    }
    const std::optional<int64_t> ub = DefinedRun(ub_defined_, ih * iw);
    if (!ub) return std::nullopt;
    isa::Matmul mm;
    mm.window = true;
    mm.ub = static_cast<uint32_t>(*ub);
    mm.rows = static_cast<uint32_t>(rows);
    mm.image_h = static_cast<uint32_t>(ih);
    mm.image_w = static_cast<uint32_t>(iw);
    mm.stride_h = static_cast<uint32_t>(Chance(0.1) ? Uniform(1, 7) : Uniform(1, 3));
    mm.stride_w = static_cast<uint32_t>(Chance(0.1) ? Uniform(1, 7) : Uniform(1, 3));
    mm.out_w = static_cast<uint32_t>(Chance(0.1) ? Uniform(1, 255) : Uniform(1, 8));
    mm.pad_value = static_cast<int32_t>(Uniform(-128, 127));
    mm.y0 = static_cast<int32_t>(Chance(0.05) ? Uniform(-512, 511) : Uniform(-3, ih + 1));
    mm.x0 = static_cast<int32_t>(Chance(0.05) ? Uniform(-16, 15)
                                              : Uniform(-3, std::min<int64_t>(iw + 1, 15)));
    return mm;
  }

  bool Matmul(bool drain) {
    const int64_t rows = Uniform(1, std::max<int64_t>(1, LongestRun(ub_defined_, max_rows_)));
    std::optional<isa::Matmul> windowed;
    if (Chance(0.5)) windowed = WindowConfig(rows);
    const std::optional<int64_t> ub =
        windowed ? std::optional<int64_t>(windowed->ub) : DefinedRun(ub_defined_, rows);
    if (!ub) {
      if (drain) throw std::logic_error("GenerateProgram: no UB rows to drain the FIFO with");
      return false;
    }
    isa::Matmul mm = windowed ? *windowed : isa::Matmul{};
    mm.ub = static_cast<uint32_t>(*ub);
    mm.rows = static_cast<uint32_t>(rows);
    mm.new_tile = drain || (fifo_ > 0 && (!has_tile_ || Chance(0.6)));
    if (!mm.new_tile && !has_tile_) return false;
    const std::optional<int64_t> acc_run = DefinedRun(acc_defined_, rows);
    if (acc_run && Chance(0.4)) {
      mm.acc_mode = isa::AccMode::kAccumulate;
      mm.acc = static_cast<uint32_t>(*acc_run);
    } else {
      mm.acc = static_cast<uint32_t>(Uniform(0, acc_rows_ - rows));
    }
    Emit(mm);
    if (mm.new_tile) {
      --fifo_;
      has_tile_ = true;
    }
    Define(acc_defined_, mm.acc, mm.acc + rows);
    return true;
  }

  // A random pooling configuration whose rows fit in `max_rows` (nullopt if none was found).
  std::optional<isa::Activate> PoolingConfig(int64_t max_rows) {
    isa::Activate act;
    act.pool = Chance(0.5) ? isa::Pool::kMax : isa::Pool::kAvg;
    act.padding = Chance(0.5) ? isa::Padding::kSame : isa::Padding::kValid;
    act.image_h = static_cast<uint32_t>(Uniform(1, 12));
    act.image_w = static_cast<uint32_t>(Uniform(1, 12));
    const int64_t pixels = int64_t{act.image_h} * act.image_w;
    if (pixels > max_rows) return std::nullopt;
    act.rows = static_cast<uint32_t>(pixels * Uniform(1, std::min<int64_t>(3, max_rows / pixels)));
    const bool same = act.padding == isa::Padding::kSame;
    const int64_t big_h = same ? 15 : act.image_h;
    const int64_t big_w = same ? 15 : act.image_w;
    act.win_h =
        static_cast<uint32_t>(Uniform(1, Chance(0.2) ? big_h : std::min<int64_t>(big_h, 4)));
    act.win_w =
        static_cast<uint32_t>(Uniform(1, Chance(0.2) ? big_w : std::min<int64_t>(big_w, 4)));
    act.stride_h = static_cast<uint32_t>(Uniform(1, 3));
    act.stride_w = static_cast<uint32_t>(Uniform(1, 3));
    return act;
  }

  bool Activate(bool final_pass) {
    std::vector<int64_t> sets;
    for (int64_t s = 0; s < param_sets_; ++s) {
      if (ParamSetDefined(s)) sets.push_back(s);
    }
    const int64_t longest = LongestRun(acc_defined_, final_pass ? acc_rows_ : 2 * max_rows_);
    if (sets.empty() || longest == 0) return false;
    isa::Activate act;
    std::optional<isa::Activate> pooled;
    if (!final_pass && Chance(0.45)) pooled = PoolingConfig(longest);
    if (pooled) {
      act = *pooled;
    } else {
      act.rows = static_cast<uint32_t>(final_pass ? longest : Uniform(1, longest));
    }
    const std::optional<int64_t> acc = DefinedRun(acc_defined_, act.rows);
    if (!acc) return false;
    act.acc = static_cast<uint32_t>(*acc);
    act.param_set = static_cast<uint32_t>(
        sets[static_cast<std::size_t>(Uniform(0, static_cast<int64_t>(sets.size()) - 1))]);
    act.zero_point = static_cast<int32_t>(Uniform(-128, 127));
    if (Chance(0.5)) {
      act.clamp_min = static_cast<int32_t>(Uniform(-128, 127));
      act.clamp_max = static_cast<int32_t>(Uniform(act.clamp_min, 127));
    }
    act.lut = AllDefined(lut_defined_, 0, isa::kLutBytes) && Chance(0.4);
    const int64_t out_rows = model::ActivateOutRows(act);
    if (out_rows > ub_rows_) return false;
    act.ub = static_cast<uint32_t>(Uniform(0, ub_rows_ - out_rows));
    Emit(act);
    Define(ub_defined_, act.ub, act.ub + out_rows);
    return true;
  }

  bool WriteHost(bool) {
    const int64_t rows = Uniform(1, std::max<int64_t>(1, LongestRun(ub_defined_, max_rows_)));
    const std::optional<int64_t> ub = DefinedRun(ub_defined_, rows);
    if (!ub) return false;
    int64_t length = rows * n_;
    if (Chance(0.3)) length -= Uniform(0, n_ - 1);
    isa::WriteHost wh;
    wh.ub = static_cast<uint32_t>(*ub);
    wh.length = static_cast<uint32_t>(length);
    wh.host =
        results_ + static_cast<uint64_t>(Uniform(0, static_cast<int64_t>(results_size_) - length));
    Emit(wh);
    return true;
  }

  bool Sync() {
    if (fifo_ > kFifoTiles) return false;
    isa::Sync sync;
    sync.units = static_cast<uint8_t>(Uniform(0, 15));
    if (decorations_ > 0 && Chance(0.5)) {
      sync.wait = 1u << kDecorationToken;
      --decorations_;
    }
    if (Chance(0.3)) {
      sync.signal = 1u << kDecorationToken;
      ++decorations_;
    }
    Emit(sync);
    return true;
  }

  // The results: a last ACTIVATE of some accumulator rows, then every defined UB row to the
  // dump area, in runs.
  void WriteBack() {
    for (int i = 0; i < 2; ++i) Activate(true);
    int64_t row = 0;
    while (row < ub_rows_) {
      if (!ub_defined_[static_cast<std::size_t>(row)]) {
        ++row;
        continue;
      }
      int64_t end = row;
      while (end < ub_rows_ && end - row < 64 && ub_defined_[static_cast<std::size_t>(end)]) ++end;
      isa::WriteHost wh;
      wh.ub = static_cast<uint32_t>(row);
      wh.length = static_cast<uint32_t>((end - row) * n_);
      wh.host = dump_ + static_cast<uint64_t>(row * n_ + 1);
      Emit(wh);
      row = end;
    }
  }

  std::mt19937_64 rng_;
  isa::DeviceLimits limits_;
  ProgramGenOptions options_;
  int64_t n_;
  int64_t ub_rows_ = 0, acc_rows_ = 0, dram_tiles_ = 0, param_sets_ = 0, max_rows_ = 0;
  GeneratedProgram result_;

  // Host layout.
  uint64_t next_host_ = 0;
  uint64_t source_ = 0, source_size_ = 0;
  std::array<uint64_t, 2> param_images_{};
  std::array<uint64_t, 2> lut_images_{};
  uint64_t results_ = 0, results_size_ = 0;
  uint64_t dump_ = 0;

  // What device memory holds known values.
  std::vector<bool> ub_defined_, acc_defined_, dram_defined_, param_defined_, lut_defined_;

  // Ordering state.
  std::vector<std::vector<Access>> accesses_;               // per instruction
  std::array<std::vector<int64_t>, kUnits> by_unit_;        // instruction indices per unit
  std::array<int64_t, kUnits> synced_{-1, -1, -1, -1, -1};  // last index a SYNC covered
  // Index of the latest instruction of unit p that signals the p -> c token (-1: none).
  std::array<std::array<int64_t, kUnits>, kUnits> last_signal_ = [] {
    std::array<std::array<int64_t, kUnits>, kUnits> a{};
    for (auto& row : a) row.fill(-1);
    return a;
  }();
  int decorations_ = 0;  // t7 counter in program order

  // Weight FIFO in program order.
  int64_t fifo_ = 0;
  bool has_tile_ = false;
};

}  // namespace

GeneratedProgram GenerateProgram(uint64_t seed, const isa::DeviceLimits& limits,
                                 const ProgramGenOptions& options) {
  return Generator(seed, limits, options).Run();
}

std::string Describe(const GeneratedProgram& generated) {
  std::map<std::string, int> counts;
  for (const isa::Instr& instr : generated.program) ++counts[isa::InfoOf(instr).name];
  std::string text = "seed " + std::to_string(generated.seed) + ": " +
                     std::to_string(generated.program.size()) + " instructions (";
  bool first = true;
  for (const auto& [name, count] : counts) {
    text += (first ? "" : ", ") + name + " " + std::to_string(count);
    first = false;
  }
  return text + ")";
}

}  // namespace tpu::tb
