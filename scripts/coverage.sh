#!/usr/bin/env bash
# make coverage (docs/coverage.md): line and toggle coverage of rtl/ over the RTL regression.
#
# A build of its own ($COVERAGE_BUILD, default build-coverage; one device, n16_small, the RTL
# tests' device: the coverage build verilates no other tpu_top, cmake/TpuDevices.cmake, and
# compiles the models at -O1, their run-once code at -O0) verilated with TPU_COVERAGE=ON
# (--coverage-line --coverage-toggle) and TPU_X_ASSIGN=unique. It runs the test binaries that
# simulate the RTL: the layer regression (short suite; then two of its layers again with
# random initial state, TPU_RANDOM_INIT_SEED, whose counts are kept apart: before the first
# reset, random state reaches defensive defaults no real run does), the device end to end
# (registers, errors, soft resets and the reset stress), the driver on the device, and the
# host interface's own benches (malformed and failing TLPs, the register file, the beat
# adapter). Every model a test builds writes its counts to a file of its own; they are merged
# with verilator_coverage, annotated (coverage/annotated/) and summed per RTL file by
# scripts/coverage_report.py, which refreshes docs/coverage.md. The build and run times are
# printed.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${COVERAGE_BUILD:-build-coverage}
JOBS=${JOBS:-2}
OUT=$BUILD/coverage
TARGETS=(test_layer_regression test_tpu_top test_tpu_top_stress test_device test_host_dma
         test_host_regs test_beat_adapter)

start=$(date +%s)
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTPU_COVERAGE=ON -DTPU_X_ASSIGN=unique \
    -DTPU_BUILD_DEVICES=n16_small
fi
if ! grep -q '^TPU_COVERAGE:BOOL=ON' "$BUILD/CMakeCache.txt"; then
  echo "coverage.sh: $BUILD is not a coverage build (TPU_COVERAGE is off); remove it or set" \
       "COVERAGE_BUILD to another folder" >&2
  exit 2
fi
# Verilator first, then the build, which configures again when a model's file list changed
# (cmake/TpuVerilate.cmake, tpu_verilate_step).
cmake --build "$BUILD" -j "$JOBS" --target verilated
cmake --build "$BUILD" -j "$JOBS" --target "${TARGETS[@]}"
built=$(date +%s)

rm -rf "$OUT"
mkdir -p "$OUT/raw" "$OUT/xinit" "$OUT/logs"
export TPU_COVERAGE_DIR=$PWD/$OUT/raw SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
quick="Short/LayerRegression.MatchesGolden/n16_small_dense_seed1:"
quick+="Short/LayerRegression.MatchesGolden/n16_small_conv2d_window_seed2"
# name|environment|command, run $JOBS at a time; each log in $OUT/logs/<name>.log.
runs=(
  "regression||$BUILD/tests/regression/test_layer_regression --gtest_filter=Short/*"
  "regression_xinit11|TPU_RANDOM_INIT_SEED=11 TPU_COVERAGE_DIR=$PWD/$OUT/xinit|$BUILD/tests/regression/test_layer_regression --gtest_filter=$quick"
  "regression_xinit12|TPU_RANDOM_INIT_SEED=12 TPU_COVERAGE_DIR=$PWD/$OUT/xinit|$BUILD/tests/regression/test_layer_regression --gtest_filter=$quick"
  "tpu_top||$BUILD/tests/rtl/host_if/test_tpu_top"
  "tpu_top_stress||$BUILD/tests/rtl/host_if/test_tpu_top_stress"
  "device||$BUILD/tests/device/test_device"
  "host_dma||$BUILD/tests/rtl/host_if/test_host_dma"
  "host_regs||$BUILD/tests/rtl/host_if/test_host_regs"
  "beat_adapter||$BUILD/tests/rtl/host_if/test_beat_adapter"
)
run_one() {
  set -f  # the filters' * are gtest's, not the shell's
  local name=${1%%|*} rest=${1#*|}
  local envs=${rest%%|*} cmd=${rest#*|}
  if env $envs $cmd > "$OUT/logs/$name.log" 2>&1; then
    echo "passed  $name"
  else
    echo "FAILED  $name (see $OUT/logs/$name.log)"
    return 1
  fi
}
export -f run_one
export OUT
status=0
printf '%s\n' "${runs[@]}" | xargs -P "$JOBS" -I{} bash -c 'run_one "$@"' _ {} || status=1
ran=$(date +%s)

verilator_coverage --write "$OUT/merged.dat" "$OUT"/raw/*.dat
verilator_coverage --annotate "$OUT/annotated" --annotate-min 1 "$OUT/merged.dat" > /dev/null
files=$(ls "$OUT"/raw/*.dat | wc -l)
meta="Measured by \`make coverage\` ($(date -u +%Y-%m-%d), verilator $(verilator --version | cut -d' ' -f2)): ${#runs[@]} test processes, $files models' counts merged; the build took $((built - start)) s and the run $((ran - built)) s on $JOBS jobs."
python3 scripts/coverage_report.py --data "$OUT/merged.dat" --summary "$OUT/summary.md" \
  --json "$OUT/summary.json" --docs docs/coverage.md --meta "$meta" || status=1
echo "build $((built - start)) s, run $((ran - built)) s; summary $OUT/summary.md, annotated" \
     "sources $OUT/annotated/, list of unreached lines docs/coverage.md"
exit $status
