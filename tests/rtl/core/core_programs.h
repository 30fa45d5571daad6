// Small hand-lowered programs for the core tests: a dense layer tiled the plain way (every
// output tile through one accumulator region, tokens between the units), with its host-memory
// image and the golden result. The double-buffered lowering of the runtime is tested on top.
#ifndef TPU_TESTS_RTL_CORE_CORE_PROGRAMS_H_
#define TPU_TESTS_RTL_CORE_CORE_PROGRAMS_H_

#include <cstdint>
#include <random>
#include <vector>

#include "core/core_harness.h"
#include "golden/tensor.h"
#include "isa/isa.h"

namespace tpu::tb {

struct DenseCase {
  int64_t m = 0, k = 0, n_out = 0;
  int32_t input_zero_point = 0;
  golden::Tensor<int8_t> x, w, expected;
  std::vector<int32_t> bias;
  // Host-memory images: weight tiles, parameter sets, x as K slices of UB rows.
  std::vector<uint8_t> w_image, param_image, x_image;
  // Where things live in host memory.
  uint64_t w_host = 0x100000, param_host = 0x200000, x_host = 0x300000, y_host = 0x400000;
  std::vector<isa::Instr> program;
};

// A random dense layer y = act(requant(x W + b)) of the given shape, lowered for `limits`
// (K and n_out in tiles of N, M rows at a time through accumulator region 0).
DenseCase MakeDenseCase(const isa::DeviceLimits& limits, int64_t m, int64_t k, int64_t n_out,
                        std::mt19937_64& rng);

// Writes the case's inputs into the harness's host memory (and clears the output area).
void LoadDenseCase(const DenseCase& c, CoreHarness& h);

// The (M, n_out) result the core wrote to host memory.
golden::Tensor<int8_t> ReadDenseResult(const DenseCase& c, CoreHarness& h);

}  // namespace tpu::tb

#endif  // TPU_TESTS_RTL_CORE_CORE_PROGRAMS_H_
