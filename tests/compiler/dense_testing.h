// Shared by the compiler tests: random quantized dense layers and tensors, running a lowered
// program on the reference machine with every check a program must pass (no unordered access,
// no deadlock and every token counter back at 0 in several schedules, HALT on the machine),
// tensors resident in the machine's UB (compiler::UbTensor layout), and comparisons.
#ifndef TPU_TESTS_RUNTIME_DENSE_TESTING_H_
#define TPU_TESTS_RUNTIME_DENSE_TESTING_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "golden/format.h"

#include "compiler/compiler.h"
#include "golden/activation.h"
#include "golden/requant.h"
#include "golden/tensor.h"
#include "isa/isa.h"
#include "model/model.h"

namespace tpu::compiler {

// TPU_SEED from the environment, else a fresh one; printed so a failure can be replayed.
inline uint64_t TestSeed() {
  const char* env = std::getenv("TPU_SEED");
  const uint64_t seed = env != nullptr ? std::strtoull(env, nullptr, 0) : std::random_device{}();
  std::cout << "[ seed     ] TPU_SEED=" << seed << "\n";
  return seed;
}

inline int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

inline golden::Tensor<int8_t> RandomInt8(std::mt19937_64& rng, int64_t rows, int64_t cols) {
  golden::Tensor<int8_t> t({rows, cols});
  for (int8_t& v : t.data) v = static_cast<int8_t>(Uniform(rng, -128, 127));
  return t;
}

// A random layer with K inputs and `nout` outputs: per-tensor or per-channel multipliers scaled
// so that outputs spread over int8, bias or none, random zero points, activation none / ReLU /
// ReLU6 as clamp bounds.
inline DenseLayer RandomDenseLayer(std::mt19937_64& rng, int64_t k, int64_t nout) {
  DenseLayer layer;
  layer.weights = RandomInt8(rng, k, nout);
  if (Uniform(rng, 0, 3) != 0) {
    layer.bias.resize(static_cast<std::size_t>(nout));
    for (int32_t& b : layer.bias) b = static_cast<int32_t>(Uniform(rng, -40000, 40000));
  }
  layer.input_zero_point = static_cast<int32_t>(Uniform(rng, -128, 127));
  const double typical = std::sqrt(static_cast<double>(k)) * 128.0 * 80.0;  // |acc| scale
  const int64_t count = Uniform(rng, 0, 1) == 0 ? 1 : nout;
  for (int64_t c = 0; c < count; ++c) {
    const double real = std::uniform_real_distribution<double>(20.0, 200.0)(rng) / typical;
    layer.requant.multipliers.push_back(golden::QuantizeMultiplier(real));
  }
  const int32_t zp = static_cast<int32_t>(Uniform(rng, -100, 100));
  const auto activation = static_cast<golden::Activation>(Uniform(rng, 0, 2));
  const golden::ActivationRange range = golden::QuantizedActivationRange(activation, 0.05f, zp);
  layer.requant.out_zero_point = zp;
  layer.requant.act_min = range.min;
  layer.requant.act_max = range.max;
  return layer;
}

inline std::string LimitsText(const isa::DeviceLimits& l) {
  return "N=" + std::to_string(l.n) + " UB_ROWS=" + std::to_string(l.ub_rows) +
         " ACC_ROWS=" + std::to_string(l.acc_rows) + " DRAM_BYTES=" + std::to_string(l.dram_bytes) +
         " PARAM_SETS=" + std::to_string(l.param_sets);
}

// Checks that every program must pass: tokens order every conflicting access, several schedules
// (in-order dispatch, queues of 4, FIFO of 4) reach HALT with every counter at 0.
inline void ExpectWellFormed(const std::vector<isa::Instr>& program,
                             const isa::DeviceLimits& limits, int random_schedules = 2) {
  const auto hazard = model::FindUnorderedAccess(program, limits);
  EXPECT_FALSE(hazard.has_value()) << hazard->message;
  for (int s = 0; s <= random_schedules; ++s) {
    model::ScheduleOptions options;
    options.seed = static_cast<uint64_t>(s) * 7919;
    const model::ScheduleResult schedule = model::SimulateSchedule(program, limits, options);
    ASSERT_TRUE(schedule.halted) << "schedule seed " << options.seed << ": "
                                 << isa::ErrorName(schedule.error) << " at " << schedule.index
                                 << ": " << schedule.message;
    for (int t = 0; t < isa::kNumTokens; ++t) {
      EXPECT_EQ(schedule.tokens[t], 0) << "t" << t << " at HALT, schedule seed " << options.seed;
    }
  }
}
inline void ExpectWellFormed(const isa::Program& program, const isa::DeviceLimits& limits,
                             int random_schedules = 2) {
  ExpectWellFormed(program.Instrs(), limits, random_schedules);
}

// Places the images, runs the program on a fresh reference machine, returns the result.
inline golden::Tensor<int8_t> RunOnMachine(const DenseProgram& program) {
  model::Machine machine(program.limits);
  for (const HostImage& image : program.images) machine.host().Write(image.address, image.bytes);
  const model::RunResult result = machine.Run(program.instrs);
  EXPECT_TRUE(result.halted()) << model::ToString(result);
  for (int t = 0; t < isa::kNumTokens; ++t) EXPECT_EQ(result.tokens[t], 0) << "t" << t;
  EXPECT_EQ(result.fifo_tiles, 0);
  return ExtractDenseOutput(program.output, [&machine](uint64_t address, uint64_t length) {
    return machine.host().Read(address, length);
  });
}

inline std::string Shape(const std::vector<int64_t>& shape) {
  return golden::ShapeToString(shape);
}

inline golden::Tensor<int8_t> RandomTensor(std::mt19937_64& rng, std::vector<int64_t> shape) {
  golden::Tensor<int8_t> t(std::move(shape));
  for (int8_t& v : t.data) v = static_cast<int8_t>(Uniform(rng, -128, 127));
  return t;
}

inline void ExpectSame(const golden::Tensor<int8_t>& got, const golden::Tensor<int8_t>& expected) {
  ASSERT_EQ(Shape(got.shape), Shape(expected.shape));
  for (std::size_t i = 0; i < got.data.size(); ++i) {
    ASSERT_EQ(got.data[i], expected.data[i]) << "element " << i << " of " << Shape(got.shape);
  }
}

// fn throws std::invalid_argument whose message contains `part`.
inline void ExpectThrows(const std::function<void()>& fn, const std::string& part) {
  try {
    fn();
    ADD_FAILURE() << "no exception, expected one containing '" << part << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
        << "message '" << e.what() << "' lacks '" << part << "'";
  }
}

// Writes x, viewed as (M, C) with C its last dimension, into the machine's UB from row `ub` in
// the UbTensor layout (channel tile j: a slice of M rows at ub + j * M).
inline void WriteUbTensor(model::Machine& machine, const golden::Tensor<int8_t>& x, int64_t ub) {
  const golden::Tensor<int8_t> rows({x.NumElements() / x.shape.back(), x.shape.back()}, x.data);
  const std::vector<uint8_t> image = SliceImage(rows, machine.n());
  const auto n = static_cast<std::size_t>(machine.n());
  for (std::size_t r = 0; r < image.size() / n; ++r) {
    std::copy_n(&image[r * n], n, machine.ub_row(ub + static_cast<int64_t>(r)));
  }
}

// The tensor `t` left in the machine's UB, in `shape`.
inline golden::Tensor<int8_t> ReadUbTensor(const model::Machine& machine, const UbTensor& t,
                                           std::vector<int64_t> shape) {
  golden::Tensor<int8_t> y(std::move(shape));
  const int64_t n = machine.n();
  for (int64_t r = 0; r < t.m; ++r) {
    for (int64_t c = 0; c < t.channels; ++c) {
      y.data[static_cast<std::size_t>(r * t.channels + c)] =
          static_cast<int8_t>(machine.ub_row(t.ub + (c / n) * t.m + r)[c % n]);
    }
  }
  return y;
}

inline int CountWindowMatmuls(const DenseProgram& program) {
  int count = 0;
  for (const auto& instr : program.instrs) {
    if (const auto* m = std::get_if<isa::Matmul>(&instr)) count += m->window ? 1 : 0;
  }
  return count;
}

// Runs a layer's program on a fresh reference machine (ExpectWellFormed first, over
// `random_schedules` random schedules), with `x` written into the UB at options.input_in_ub
// when the program reads it there; returns the output in the layer's shape, from the host or,
// when the program left it there, the UB.
inline golden::Tensor<int8_t> RunLayerOnMachine(const DenseProgram& program,
                                                const golden::Tensor<int8_t>* x = nullptr,
                                                std::optional<int64_t> input_ub = std::nullopt,
                                                int random_schedules = 1) {
  ExpectWellFormed(program.instrs, program.limits, random_schedules);
  model::Machine machine(program.limits);
  if (x != nullptr && input_ub) WriteUbTensor(machine, *x, *input_ub);
  for (const HostImage& image : program.images) machine.host().Write(image.address, image.bytes);
  const model::RunResult result = machine.Run(program.instrs);
  EXPECT_TRUE(result.halted()) << model::ToString(result);
  for (int t = 0; t < isa::kNumTokens; ++t) EXPECT_EQ(result.tokens[t], 0) << "t" << t;
  EXPECT_EQ(result.fifo_tiles, 0);
  if (program.ub_output) return ReadUbTensor(machine, *program.ub_output, program.output_shape);
  return ExtractLayerOutput(program, [&machine](uint64_t address, uint64_t length) {
    return machine.host().Read(address, length);
  });
}

}  // namespace tpu::compiler

#endif  // TPU_TESTS_RUNTIME_DENSE_TESTING_H_
