// The cases the timing model is calibrated on (docs/model_calibration.md), run on a layer
// backend that records each device program (recording_backend.h):
//   regression  the layer regression's random layers (tests/regression/layer_cases.h), every
//               layer type at its short seeds (short set: seed 1 of dense, conv2d_window,
//               pool_max and activation_clamp);
//   examples    every layer program of both example networks (examples/, generated into
//               `networks_dir` at build time), intermediates kept in the UB as `tpu run` does;
//   bench       the bench shapes: `make run`'s dense 256 x 512 x 256, bench_system's dense
//               256^3 and conv2d cases (both lowerings), bench_scale's dense 4N x 8N x 8N.
// The full set is all three; the short set a few fast regression cases and one bench shape.
#ifndef TPU_BENCH_CALIBRATION_CASES_H_
#define TPU_BENCH_CALIBRATION_CASES_H_

#include <cstdint>
#include <string>

#include "recording_backend.h"

namespace tpu::bench {

enum class CaseSet { kShort, kFull };

// Runs every case of `set` for a device of array size `n` on `backend`, labelling each
// recorded program "<group>/<case>[/<layer>]". Throws std::runtime_error when a network file
// is missing (naming it and the target that generates it) or a run fails.
void RunCalibrationCases(CaseSet set, int64_t n, const std::string& networks_dir,
                         RecordingBackend& backend);

}  // namespace tpu::bench

#endif  // TPU_BENCH_CALIBRATION_CASES_H_
