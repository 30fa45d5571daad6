# Unified buffer at N=8 with 256 rows. The coarse flow keeps the array as two $mem_v2 cells, the
# even and the odd rows' banks (they would map to RAM macros or block RAMs); the rest is mapped to gates so that the flip-flop count
# is the real one: about 350 (response buffers and the write bypass), far below the 16384 bits
# of the array, which must not have become registers.
tpu_add_synth_test(ub_n8 TOP tpu_ub SOURCES ${TPU_RTL_PKG} ${TPU_RTL_UB} PARAMS N=8 Depth=256
  FLOW "synth -top tpu_ub -flatten -run begin:fine"
  CHECKS "techmap" "opt -fast"
         "select -assert-count 2 t:$mem_v2"
         "select -assert-count 2 t:$mem_v2 r:SIZE=128 %i"
         "select -assert-max 1024 t:$_*DFF*")
