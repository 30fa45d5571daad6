# Controller blocks (docs/controller.md) at N=8 with small limits: elaborate, no latch, the
# memories (queue storage, parameter memory) inferred.

# Unit queue (the FIFO tpu_fifo, rtl/prim/) at the controller's configuration (Width=160,
# Depth=4): stopped before memory mapping the storage is one $mem_v2 of 4 words of 160 bits
# with one clocked write port and one asynchronous read port; then a full generic synthesis
# for the cell statistics.
tpu_add_synth_test(ctrl_queue_w160d4_mem TOP tpu_fifo
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_PRIM_DIR}/tpu_fifo.sv
  PARAMS Width=160 Depth=4 FLOW "synth -top tpu_fifo -run begin:fine"
  CHECKS "select -assert-count 1 t:$mem_v2"
  "select -assert-count 1 t:$mem_v2 r:SIZE=4 %i r:WIDTH=160 %i"
  "select -assert-count 1 t:$mem_v2 r:RD_CLK_ENABLE=1'0 %i r:WR_CLK_ENABLE=1'1 %i")
tpu_add_synth_test(ctrl_queue_w160d4 TOP tpu_fifo
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_PRIM_DIR}/tpu_fifo.sv
  PARAMS Width=160 Depth=4)

# DMA unit sequencer at N=8, UbRows=256. Before fine mapping: the divisions and remainders by N
# (host and destination offsets, beat counts) have become bit slices, no divider or multiplier
# left. Then mapped to gates: about 410 flip-flops (two 64-bit beat registers, two 48-bit
# address registers, four 25-bit counters, the instruction's index and masks).
tpu_add_synth_test(ctrl_dma_n8 TOP tpu_ctrl_dma
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_DIR}/ctrl/tpu_ctrl_dma.sv
  PARAMS N=8 UbRows=256 FLOW "synth -top tpu_ctrl_dma -run begin:fine"
  CHECKS "select -assert-none t:$div t:$mod t:$divfloor t:$modfloor t:$mul"
         "techmap" "opt -fast" "abc -fast" "opt -fast"
         "select -assert-max 450 t:$_*DFF*")

# Activation unit sequencer at N=8, ParamSets=8, UbRows=256, AccRows=64. Before fine mapping:
# the parameter memory is one $mem_v2 of 72 rows of 64 bits (byte-masked write port, registered
# read port) and nothing divides or multiplies (9 * param_set is a shift and an add, the table
# entry row * N a shift). Then mapped to gates: about 780 flip-flops, mostly the 8 parameter rows
# driving tpu_act's bias and multiplier (512) and its shifts (48), and the table row buffer (77).
tpu_add_synth_test(ctrl_act_n8 TOP tpu_ctrl_act
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_DIR}/ctrl/tpu_ctrl_act.sv
  PARAMS N=8 ParamSets=8 UbRows=256 AccRows=64 FLOW "synth -top tpu_ctrl_act -run begin:fine"
  CHECKS "select -assert-count 1 t:$mem_v2"
         "select -assert-count 1 t:$mem_v2 r:SIZE=72 %i r:WIDTH=64 %i"
         "select -assert-none t:$div t:$mod t:$divfloor t:$modfloor t:$mul"
         "techmap" "opt -fast" "abc -fast" "opt -fast"
         "select -assert-count 1 t:$mem_v2"
         "select -assert-max 900 t:$_*DFF*")

# Dispatcher, weight and matrix units, performance counters: elaborate, no latch.
tpu_add_synth_test(ctrl_dispatch TOP tpu_ctrl_dispatch
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_DIR}/ctrl/tpu_ctrl_dispatch.sv)
tpu_add_synth_test(ctrl_weights_n8 TOP tpu_ctrl_weights
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_DIR}/ctrl/tpu_ctrl_weights.sv
  PARAMS N=8 DramWidth=64)
tpu_add_synth_test(ctrl_matrix_n8 TOP tpu_ctrl_matrix
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_PRIM_DIR}/tpu_fifo.sv
          ${TPU_RTL_DIR}/ctrl/tpu_ctrl_matrix.sv
  PARAMS N=8 UbRows=256 AccRows=64)
tpu_add_synth_test(ctrl_perf TOP tpu_ctrl_perf
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_DIR}/ctrl/tpu_ctrl_perf.sv)

# The whole core at N=4 with small memories, stopped before memory mapping: it elaborates with
# no latch, and every storage array stays a memory (UB banks 2, accumulator regions 2, weight
# FIFO 1, parameter memory 1, unit queues 4, matrix side and completion FIFOs 2, tpu_act's LUT 1
# and pooling line buffers 15): 28 $mem_v2. Its blocks' resets are flip-flops.
tpu_add_synth_test(core_n4 TOP tpu_core SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_CORE}
  PARAMS N=4 UbRows=64 AccRows=32 DramBytes=4096 ParamSets=2 DramWidth=32
  FLOW "synth -top tpu_core -flatten -run begin:fine"
  CHECKS "select -assert-count 28 t:$mem_v2" "${TPU_SYNTH_RESETS_FROM_FLOPS}")

# Parameter checks fail synthesis too (TPU_ASSERT_INIT is a generate-time $error under
# SYNTHESIS): the core at N=4 asked for one tile more weight DRAM than ISA version 2 addresses
# (8 GiB + 16 bytes) stops elaboration with the decoder's check, instead of synthesizing a
# device whose READ_HOST dest cannot reach its last bytes.
tpu_add_synth_reject_test(core_rejects_dram_above_isa TOP tpu_core
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_CORE}
  PARAMS N=4 UbRows=64 AccRows=32 DramBytes=8589934608 ParamSets=2 DramWidth=32
  EXPECT DeviceDramBytes)
