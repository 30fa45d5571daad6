#include "model/access.h"

#include <type_traits>
#include <variant>

#include "model/activate.h"

namespace tpu::model {

const char* MemoryName(Memory memory) {
  switch (memory) {
    case Memory::kUb:
      return "UB rows";
    case Memory::kAcc:
      return "accumulator rows";
    case Memory::kDram:
      return "weight DRAM bytes";
    case Memory::kParam:
      return "parameter memory bytes";
    case Memory::kLut:
      return "LUT entries";
  }
  return "?";
}

std::vector<Access> AccessesOf(const isa::Instr& instr, const isa::DeviceLimits& limits) {
  const int64_t n = limits.n;
  const auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  return std::visit(
      [&](const auto& op) -> std::vector<Access> {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, isa::ReadHost>) {
          const int64_t dest = op.dest;
          const int64_t length = op.length;
          switch (op.target) {
            case isa::Target::kUb:
              return {{Memory::kUb, dest, dest + ceil_div(length, n), true}};
            case isa::Target::kDram:
              return {{Memory::kDram, dest, dest + length, true}};
            case isa::Target::kParam:
              return {{Memory::kParam, dest, dest + length, true}};
            case isa::Target::kLut:
              return {{Memory::kLut, dest, dest + length, true}};
          }
          return {};
        } else if constexpr (std::is_same_v<T, isa::WriteHost>) {
          return {{Memory::kUb, op.ub, op.ub + ceil_div(op.length, n), false}};
        } else if constexpr (std::is_same_v<T, isa::ReadWeights>) {
          const int64_t tile_bytes = n * n;
          return {{Memory::kDram, op.dram_tile * tile_bytes,
                   (int64_t{op.dram_tile} + op.tiles) * tile_bytes, false}};
        } else if constexpr (std::is_same_v<T, isa::Matmul>) {
          // A window reads (at most) its whole image.
          const int64_t ub_rows =
              op.window ? int64_t{op.image_h} * op.image_w : int64_t{op.rows};
          std::vector<Access> accesses = {{Memory::kUb, op.ub, op.ub + ub_rows, false},
                                          {Memory::kAcc, op.acc, op.acc + op.rows, true}};
          if (op.acc_mode == isa::AccMode::kAccumulate) {
            accesses.push_back({Memory::kAcc, op.acc, op.acc + op.rows, false});
          }
          return accesses;
        } else if constexpr (std::is_same_v<T, isa::Activate>) {
          const int64_t set_bytes = 9 * n;
          std::vector<Access> accesses = {
              {Memory::kAcc, op.acc, op.acc + op.rows, false},
              {Memory::kParam, op.param_set * set_bytes, (op.param_set + 1) * set_bytes, false},
              {Memory::kUb, op.ub, op.ub + ActivateOutRows(op), true}};
          if (op.lut) accesses.push_back({Memory::kLut, 0, isa::kLutBytes, false});
          return accesses;
        } else {
          return {};
        }
      },
      instr);
}

}  // namespace tpu::model
