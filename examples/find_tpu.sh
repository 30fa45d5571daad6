# Sourced by the example scripts (examples/run.sh, examples/mnist/run.sh) with $root set to the
# repository root and the calling script's name as $1: sets `build` (BUILD, default build,
# relative to the repository root) and `tpu`, the built tpu command, or exits 2 with the
# command that builds it.
build="${BUILD:-build}"
[[ "$build" = /* ]] || build="$root/$build"
tpu="$build/host_driver/cli/tpu"
if [[ ! -x "$tpu" ]]; then
  echo "$1: $tpu not built: cmake --build $build --target tpu" >&2
  exit 2
fi
