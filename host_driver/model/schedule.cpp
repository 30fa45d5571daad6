#include "model/schedule.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <random>
#include <type_traits>
#include <variant>

#include "isa/disassembler.h"
#include "isa/instr.h"
#include "isa/validate.h"

namespace tpu::model {
namespace {

constexpr int kUnits = 5;  // isa::Unit; 0 is the dispatcher itself

enum class ActionKind { kDispatch, kPop, kStart, kStep };

struct Action {
  ActionKind kind;
  int unit;
};

// An instruction a unit has popped from its queue.
struct Held {
  int64_t index = 0;
  bool started = false;
  int64_t tiles_left = 0;  // READ_WEIGHTS
};

template <typename Field>
uint8_t MaskOf(const isa::Instr& instr, Field field) {
  return std::visit(
      [field](const auto& op) -> uint8_t {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, isa::Nop> || std::is_same_v<T, isa::Halt>) {
          return 0;
        } else {
          return field(op);
        }
      },
      instr);
}

uint8_t WaitOf(const isa::Instr& instr) {
  return MaskOf(instr, [](const auto& op) { return op.wait; });
}
uint8_t SignalOf(const isa::Instr& instr) {
  return MaskOf(instr, [](const auto& op) { return op.signal; });
}

class Scheduler {
 public:
  Scheduler(const std::vector<isa::Instr>& program, const isa::DeviceLimits& limits,
            const ScheduleOptions& options)
      : program_(program), limits_(limits), options_(options), rng_(options.seed) {}

  ScheduleResult Run() {
    while (!done_) {
      const std::vector<Action> actions = Enabled();
      if (actions.empty()) {
        Stuck();
        break;
      }
      std::size_t pick = 0;
      if (options_.seed != 0) {
        pick = std::uniform_int_distribution<std::size_t>(0, actions.size() - 1)(rng_);
      }
      ++result_.steps;
      Take(actions[pick]);
    }
    result_.tokens = tokens_;
    return result_;
  }

 private:
  int UnitOf(int64_t index) const { return static_cast<int>(isa::InfoOf(program_[index]).unit); }

  bool TokensAvailable(uint8_t wait) const {
    for (int t = 0; t < isa::kNumTokens; ++t) {
      if (((wait >> t) & 1) != 0 && tokens_[t] == 0) return false;
    }
    return true;
  }

  bool Idle(int unit) const { return !held_[unit] && queues_[unit].empty(); }

  bool CanDispatch() const {
    if (pc_ >= static_cast<int64_t>(program_.size())) return false;
    const isa::Instr& instr = program_[pc_];
    if (std::holds_alternative<isa::Nop>(instr)) return true;
    if (std::holds_alternative<isa::Halt>(instr)) {
      for (int u = 1; u < kUnits; ++u) {
        if (!Idle(u)) return false;
      }
      return true;
    }
    if (const auto* sync = std::get_if<isa::Sync>(&instr)) {
      for (int u = 1; u < kUnits; ++u) {
        if (((sync->units >> (u - 1)) & 1) != 0 && !Idle(u)) return false;
      }
      return TokensAvailable(sync->wait);
    }
    return static_cast<int>(queues_[UnitOf(pc_)].size()) < options_.queue_depth;
  }

  bool CanStep(int unit) const {
    const isa::Instr& instr = program_[held_[unit]->index];
    if (std::holds_alternative<isa::ReadWeights>(instr)) return fifo_ < options_.fifo_tiles;
    if (const auto* matmul = std::get_if<isa::Matmul>(&instr)) {
      return !matmul->new_tile || fifo_ > 0;
    }
    return true;
  }

  std::vector<Action> Enabled() const {
    std::vector<Action> actions;
    if (CanDispatch()) actions.push_back({ActionKind::kDispatch, 0});
    for (int u = 1; u < kUnits; ++u) {
      if (!held_[u]) {
        if (!queues_[u].empty()) actions.push_back({ActionKind::kPop, u});
      } else if (!held_[u]->started) {
        if (TokensAvailable(WaitOf(program_[held_[u]->index]))) {
          actions.push_back({ActionKind::kStart, u});
        }
      } else if (CanStep(u)) {
        actions.push_back({ActionKind::kStep, u});
      }
    }
    return actions;
  }

  void Fail(isa::Error error, int64_t index, const std::string& why) {
    result_.error = error;
    result_.index = index;
    result_.message = why + " (" + isa::Disassemble(program_[index]) + ")";
    done_ = true;
  }

  void TakeTokens(uint8_t wait) {
    for (int t = 0; t < isa::kNumTokens; ++t) {
      if (((wait >> t) & 1) != 0) --tokens_[t];
    }
  }

  void GiveTokens(int64_t index) {
    const uint8_t signal = SignalOf(program_[index]);
    for (int t = 0; t < isa::kNumTokens; ++t) {
      if (((signal >> t) & 1) == 0) continue;
      if (tokens_[t] == isa::kTokenMax) {
        Fail(isa::Error::kTokenOverflow, index, "t" + std::to_string(t) + " overflows");
        return;
      }
      ++tokens_[t];
      result_.max_tokens[t] = std::max(result_.max_tokens[t], tokens_[t]);
    }
  }

  void Dispatch() {
    const isa::Instr& instr = program_[pc_];
    const isa::Error error = isa::Validate(instr, limits_);
    if (error != isa::Error::kOk) {
      Fail(error, pc_, "rejected by the dispatcher");
      return;
    }
    if (std::holds_alternative<isa::Halt>(instr)) {
      result_.halted = true;
      result_.index = pc_;
      done_ = true;
      return;
    }
    if (const auto* sync = std::get_if<isa::Sync>(&instr)) {
      TakeTokens(sync->wait);
      GiveTokens(pc_);
    } else if (!std::holds_alternative<isa::Nop>(instr)) {
      queues_[UnitOf(pc_)].push_back(pc_);
    }
    ++pc_;
  }

  void Step(int unit) {
    Held& held = *held_[unit];
    const isa::Instr& instr = program_[held.index];
    if (std::holds_alternative<isa::ReadWeights>(instr)) {
      ++fifo_;
      result_.max_fifo_tiles = std::max(result_.max_fifo_tiles, fifo_);
      if (--held.tiles_left > 0) return;
    } else if (const auto* matmul = std::get_if<isa::Matmul>(&instr)) {
      if (matmul->new_tile) {
        --fifo_;
        has_tile_ = true;
      } else if (!has_tile_) {
        Fail(isa::Error::kNoTile, held.index, "new_tile=0 before any tile");
        return;
      }
    }
    const int64_t index = held.index;
    held_[unit].reset();
    GiveTokens(index);
  }

  void Take(const Action& action) {
    switch (action.kind) {
      case ActionKind::kDispatch:
        Dispatch();
        break;
      case ActionKind::kPop: {
        Held held;
        held.index = queues_[action.unit].front();
        queues_[action.unit].pop_front();
        if (const auto* rw = std::get_if<isa::ReadWeights>(&program_[held.index])) {
          held.tiles_left = rw->tiles;
        }
        held_[action.unit] = held;
        break;
      }
      case ActionKind::kStart:
        TakeTokens(WaitOf(program_[held_[action.unit]->index]));
        held_[action.unit]->started = true;
        break;
      case ActionKind::kStep:
        Step(action.unit);
        break;
    }
  }

  // Nothing can move.
  void Stuck() {
    done_ = true;
    if (pc_ >= static_cast<int64_t>(program_.size())) {
      result_.message = "the program ended without HALT (the device waits for the host)";
      return;
    }
    Fail(isa::Error::kDeadlock, pc_, "no unit can progress and the dispatcher cannot issue");
  }

  const std::vector<isa::Instr>& program_;
  const isa::DeviceLimits& limits_;
  ScheduleOptions options_;
  std::mt19937_64 rng_;
  ScheduleResult result_;
  bool done_ = false;
  int64_t pc_ = 0;
  std::array<std::deque<int64_t>, kUnits> queues_;
  std::array<std::optional<Held>, kUnits> held_;
  std::array<int, isa::kNumTokens> tokens_{};
  int fifo_ = 0;
  bool has_tile_ = false;
};

}  // namespace

ScheduleResult SimulateSchedule(const std::vector<isa::Instr>& program,
                                const isa::DeviceLimits& limits, const ScheduleOptions& options) {
  return Scheduler(program, limits, options).Run();
}

}  // namespace tpu::model
