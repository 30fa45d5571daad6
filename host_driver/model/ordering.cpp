#include "model/ordering.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>
#include <variant>

#include "isa/disassembler.h"
#include "isa/instr.h"

namespace tpu::model {
namespace {

constexpr int kUnits = 5;                   // isa::Unit: control, dma, weights, matrix, activation
using Clock = std::array<int64_t, kUnits>;  // per unit: last sequence number known complete

void Join(Clock& into, const Clock& other) {
  for (int u = 0; u < kUnits; ++u) into[u] = std::max(into[u], other[u]);
}

struct Node {
  int unit = 0;
  int64_t seq = 0;  // 1-based position among its unit's instructions
  Clock start{};    // completed before this instruction starts
  Clock end{};      // completed when this instruction completes
  std::vector<Access> accesses;
};

std::string RangeText(const Access& a) {
  return std::string(MemoryName(a.memory)) + " [" + std::to_string(a.begin) + ", " +
         std::to_string(a.end) + ")";
}

}  // namespace

std::optional<UnorderedAccess> FindUnorderedAccess(const std::vector<isa::Instr>& program,
                                                   const isa::DeviceLimits& limits) {
  // The part before HALT.
  std::size_t size = program.size();
  for (std::size_t i = 0; i < program.size(); ++i) {
    if (std::holds_alternative<isa::Halt>(program[i])) {
      size = i;
      break;
    }
  }
  // Signals of each token by each unit in the whole checked part.
  std::array<std::array<int64_t, kUnits>, isa::kNumTokens> total_signals{};
  for (std::size_t i = 0; i < size; ++i) {
    const uint8_t signal = isa::SignalTokens(program[i]);
    const int unit = static_cast<int>(isa::InfoOf(program[i]).unit);
    for (int t = 0; t < isa::kNumTokens; ++t) {
      if (((signal >> t) & 1) != 0) ++total_signals[t][unit];
    }
  }

  std::vector<Node> nodes(size);
  std::array<int64_t, kUnits> last{};  // index + 1 of each unit's latest instruction, 0 = none
  std::array<int64_t, kUnits> seq{};
  std::array<std::array<std::vector<int64_t>, kUnits>, isa::kNumTokens> signals{};
  std::array<std::array<int64_t, kUnits>, isa::kNumTokens> waits{};
  Clock barrier{};
  std::array<std::vector<int64_t>, kUnits> by_unit;  // each unit's instructions in order

  for (std::size_t i = 0; i < size; ++i) {
    const isa::Instr& instr = program[i];
    if (std::holds_alternative<isa::Nop>(instr)) continue;
    Node& node = nodes[i];
    node.unit = static_cast<int>(isa::InfoOf(instr).unit);
    node.seq = ++seq[node.unit];
    node.start = barrier;
    const int64_t prev = last[node.unit];
    if (prev != 0) Join(node.start, nodes[prev - 1].start);

    const uint8_t wait = isa::WaitTokens(instr);
    for (int t = 0; t < isa::kNumTokens; ++t) {
      if (((wait >> t) & 1) == 0) continue;
      const int64_t j = ++waits[t][node.unit];
      int64_t all = 0;
      for (int p = 0; p < kUnits; ++p) all += total_signals[t][p];
      for (int p = 0; p < kUnits; ++p) {
        const int64_t k = j - (all - total_signals[t][p]);
        if (k >= 1 && k <= static_cast<int64_t>(signals[t][p].size())) {
          Join(node.start, nodes[signals[t][p][k - 1]].end);
        }
      }
    }
    if (const auto* sync = std::get_if<isa::Sync>(&instr)) {
      for (int u = 1; u < kUnits; ++u) {
        if (((sync->units >> (u - 1)) & 1) != 0 && last[u] != 0) {
          Join(node.start, nodes[last[u] - 1].end);
        }
      }
    }
    node.end = node.start;
    if (prev != 0) Join(node.end, nodes[prev - 1].end);
    node.end[node.unit] = node.seq;
    if (std::holds_alternative<isa::Sync>(instr)) barrier = node.end;

    const uint8_t signal = isa::SignalTokens(instr);
    for (int t = 0; t < isa::kNumTokens; ++t) {
      if (((signal >> t) & 1) != 0) signals[t][node.unit].push_back(static_cast<int64_t>(i));
    }
    last[node.unit] = static_cast<int64_t>(i) + 1;

    node.accesses = AccessesOf(instr, limits);
    by_unit[node.unit].push_back(static_cast<int64_t>(i));
    if (node.accesses.empty()) continue;
    // Only the instructions of other units not yet known to have completed can conflict.
    for (int u = 1; u < kUnits; ++u) {
      if (u == node.unit) continue;
      for (std::size_t pos = static_cast<std::size_t>(node.start[u]); pos < by_unit[u].size();
           ++pos) {
        const int64_t e = by_unit[u][pos];
        for (const Access& a : nodes[e].accesses) {
          for (const Access& b : node.accesses) {
            if (!Conflict(a, b)) continue;
            UnorderedAccess hazard;
            hazard.first = e;
            hazard.second = static_cast<int64_t>(i);
            hazard.first_access = a;
            hazard.second_access = b;
            hazard.message = "instruction " + std::to_string(i) + " (" + isa::Disassemble(instr) +
                             ") " + (b.write ? "writes " : "reads ") + RangeText(b) +
                             " and instruction " + std::to_string(e) + " (" +
                             isa::Disassemble(program[e]) + ") " +
                             (a.write ? "writes " : "reads ") + RangeText(a) +
                             " with no token chain or SYNC ordering them";
            return hazard;
          }
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace tpu::model
