#!/bin/bash
# Working file of PLAN-wide-tlp.md (deleted with it): Yosys equivalence of host-interface
# modules between main's 7df19ac ("gold") and the working tree ("gate"), at the default
# TlpWidth (128): proves the width parameter changed nothing there.
#
#   PLAN-wide-tlp-equiv.sh TOP FILE... [-- SED_EXPR...]
#
# TOP is the module, FILE... the rtl/ files (paths from the repository root) of it and its
# submodules that differ between the two sides; the packages, tpu_fifo and tpu_mem_1r1w are read
# on both sides as they are. Each SED_EXPR is applied to every FILE on both sides (to shrink
# parameter defaults: a mapped 512 x 128 completion buffer is too large for the check). Prints
# Yosys's equivalence summary; exit status 0 when proven. Examples (CPU times on the 2-core
# machine): tpu_host_tx 2 s, tpu_host_rx 6 s, tpu_host_dma_wr 4 min, tpu_host_dma_rd with
#   -- 's/MaxReadReq  = 512/MaxReadReq  = 64/' 's/NumTags     = 16/NumTags     = 4/' \
#      's/Timeout     = 65536/Timeout     = 8/'
# 2.5 min, tpu_host_beat_adapter with -- 's/N        = 16,/N        = 8,/' \
#   's/UseDepth = 512,/UseDepth = 4,/' a few seconds per N.
set -eu
base=7df19ac
top=$1
shift
files=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do files+=("$1"); shift; done
[ $# -gt 0 ] && shift
seds=("$@")
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/gold" "$work/gate"
for f in "${files[@]}"; do
  git -C "$root" show "$base:$f" > "$work/gold/$(basename "$f")"
  cp "$root/$f" "$work/gate/$(basename "$f")"
  for e in "${seds[@]+"${seds[@]}"}"; do
    sed -i "$e" "$work/gold/$(basename "$f")" "$work/gate/$(basename "$f")"
  done
done
common="$root/rtl/pkg/tpu_pkg.sv $root/rtl/pkg/tpu_isa_pkg.sv $root/rtl/pkg/tpu_regs_pkg.sv"
common="$common $root/rtl/prim/tpu_fifo.sv $root/rtl/prim/tpu_mem_1r1w.sv"
side() {
  local dir=$1 name=$2 list=""
  for f in "${files[@]}"; do list="$list $dir/$(basename "$f")"; done
  cat <<EOS
read_verilog -sv -DSYNTHESIS -I$root/rtl/prim $common $list
hierarchy -top $top
proc; flatten; opt_clean; memory -nomap; memory_map; opt -fast
rename -top $name
design -stash $name
EOS
}
{
  side "$work/gold" gold
  side "$work/gate" gate
  cat <<EOS
design -copy-from gold -as gold gold
design -copy-from gate -as gate gate
async2sync
equiv_make gold gate equiv
hierarchy -top equiv
equiv_simple -seq 2
equiv_induct -seq 2
equiv_status -assert
EOS
} > "$work/equiv.ys"
status=0
nice -n 19 yosys -q -l "$work/equiv.log" "$work/equiv.ys" > /dev/null 2>&1 || status=$?
grep -E "Found [0-9]+ \\\$equiv cells in equiv|Equivalence successfully proven|unproven \\\$equiv cells in module equiv|ERROR" \
  "$work/equiv.log" | tail -3
echo "$top: $([ $status -eq 0 ] && echo proven || echo NOT proven)"
exit $status
