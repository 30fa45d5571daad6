# Accumulators at N=8 with 64 rows (two regions of 32). The coarse flow keeps each region as a
# $mem_v2 cell (two memories: one filled by the MXU while the other drains); the rest is mapped
# to gates so that the flip-flop count is the real one: about 1050 (the read-modify-write stage,
# the forwarding register and the response buffer), far below the 16384 bits of the arrays.
tpu_add_synth_test(acc_n8 TOP tpu_acc SOURCES ${TPU_RTL_PKG} ${TPU_RTL_UB} ${TPU_RTL_ACC}
  PARAMS N=8 Depth=64
  FLOW "synth -top tpu_acc -flatten -run begin:fine"
  CHECKS "techmap" "opt -fast"
         "select -assert-count 2 t:$mem_v2"
         "select -assert-max 1638 t:$_*DFF*")
