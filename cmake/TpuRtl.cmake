# RTL source lists, one variable per block, packages first. Every consumer (verilate(), the
# lint tests, the Yosys scripts) takes its files from here. Module order within a block does
# not matter to Verilator or Yosys; a block's directory holds one module per file.
#   rtl/pkg/   packages: tpu_pkg.sv here, the generated tpu_isa_pkg.sv and tpu_regs_pkg.sv in
#              cmake/TpuIsa.cmake and cmake/TpuRegs.cmake
#   rtl/prim/  generic primitives (FIFO, memory, response buffer, delay lines, a short-operand
#              adder, a tree multiplier) and the assertion header tpu_assert.svh:
#              TPU_RTL_INCLUDE_DIR
#   rtl/<block>/ one block each; a block list that instantiates primitives includes
#              TPU_RTL_PRIM, so a list made of several blocks may name a primitive twice:
#              tpu_verilate() and tpu_add_synth_test() drop the repeats.
set(TPU_RTL_DIR ${CMAKE_SOURCE_DIR}/rtl)
set(TPU_RTL_PKG_DIR ${TPU_RTL_DIR}/pkg)
set(TPU_RTL_PRIM_DIR ${TPU_RTL_DIR}/prim)
set(TPU_RTL_INCLUDE_DIR ${TPU_RTL_PRIM_DIR})  # `include "tpu_assert.svh"

set(TPU_RTL_PKG ${TPU_RTL_PKG_DIR}/tpu_pkg.sv)

# tpu_rtl_block(<VAR> <dir>): VAR = every .sv file of rtl/<dir>, sorted.
macro(tpu_rtl_block var dir)
  file(GLOB ${var} CONFIGURE_DEPENDS ${TPU_RTL_DIR}/${dir}/*.sv)
  list(SORT ${var})
endmacro()

tpu_rtl_block(TPU_RTL_PRIM prim)    # generic: FIFO, memory, response buffer, delays, adder, multiplier

tpu_rtl_block(TPU_RTL_MXU mxu)      # systolic array, weight banks (+ delay lines)
list(APPEND TPU_RTL_MXU ${TPU_RTL_PRIM})
tpu_rtl_block(TPU_RTL_UB ub)        # unified buffer (+ memory, response buffer)
list(APPEND TPU_RTL_UB ${TPU_RTL_PRIM})
tpu_rtl_block(TPU_RTL_ACC acc)      # accumulators (+ memory, response buffer)
list(APPEND TPU_RTL_ACC ${TPU_RTL_PRIM})
tpu_rtl_block(TPU_RTL_WFIFO wfifo)  # weight FIFO
tpu_rtl_block(TPU_RTL_ACT act)      # activation pipeline: bias, requantization, function, pooling
list(APPEND TPU_RTL_ACT ${TPU_RTL_PRIM})  # (+ the tree multiplier)
tpu_rtl_block(TPU_RTL_CTRL ctrl)    # controller: decode, tokens, unit sequencers (+ FIFOs)
list(APPEND TPU_RTL_CTRL ${TPU_RTL_PRIM})
tpu_rtl_block(TPU_RTL_HOST_IF host_if)  # PCIe endpoint application side (+ FIFO, memory)
list(APPEND TPU_RTL_HOST_IF ${TPU_RTL_PRIM})

# tpu_core (rtl/tpu_core.sv) and every block it instantiates (the ISA package is added by
# cmake/TpuIsa.cmake, which defines TPU_RTL_ISA_PKG).
set(TPU_RTL_CORE ${TPU_RTL_MXU} ${TPU_RTL_UB} ${TPU_RTL_ACC} ${TPU_RTL_WFIFO} ${TPU_RTL_ACT}
    ${TPU_RTL_CTRL} ${TPU_RTL_DIR}/tpu_core.sv)
list(REMOVE_DUPLICATES TPU_RTL_CORE)

# Every RTL file of the project, package first: the lint tests check each module in it.
file(GLOB_RECURSE TPU_RTL_ALL CONFIGURE_DEPENDS ${TPU_RTL_DIR}/*.sv)
list(SORT TPU_RTL_ALL)
list(REMOVE_ITEM TPU_RTL_ALL ${TPU_RTL_PKG})
list(PREPEND TPU_RTL_ALL ${TPU_RTL_PKG})
