// The bare PE array (tpu_mxu_array) at one size, driven with fresh activations every cycle and a
// weight tile shifted in during N of every 4N cycles, as the MXU benchmark streams: the
// simulation-speed reference for the whole MXU.
#ifndef TPU_BENCH_BARE_ARRAY_H_
#define TPU_BENCH_BARE_ARRAY_H_

#include <cstdint>

namespace tpu::bench {

// Simulates `cycles` clock cycles and returns the wall-clock seconds they took.
template <int N>
double RunBareArray(uint64_t cycles);

}  // namespace tpu::bench

#endif  // TPU_BENCH_BARE_ARRAY_H_
