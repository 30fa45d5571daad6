#!/usr/bin/env bash
# Runs an example network on the RTL backend, checked against golden:
#   examples/run.sh fashion_mnist_cnn|deep_cnn [more `tpu run` options, e.g. --report json]
#   examples/run.sh mnist [seed|deep] [...]: examples/mnist/run.sh (real digits, trained)
# BUILD (default: build) is the CMake build directory holding host_driver/cli/tpu; the network
# is generated into $BUILD/examples/NAME. BACKEND (default: rtl) picks the backend.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
name="${1:-}"
if [[ "$name" == mnist ]]; then  # trained on real digits: its own flow (examples/mnist/run.sh)
  shift
  exec "$here/mnist/run.sh" "$@"
fi
if [[ -z "$name" || ! -f "$here/$name/make_network.py" ]]; then
  echo "usage: examples/run.sh NAME [tpu run options]; NAME is one of:" \
    $(cd "$here" && ls -d */ | tr -d /) >&2
  exit 2
fi
shift
source "$here/find_tpu.sh" examples/run.sh
out="$build/examples/$name"
python3 "$here/$name/make_network.py" "$out" >&2  # stdout: only the report
exec "$tpu" run "$out/net.json" --input "$out/x.npy" --output "$out/y.npy" \
  --backend "${BACKEND:-rtl}" --check "$@"
