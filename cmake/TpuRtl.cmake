# RTL source lists, one variable per block, package first. Every consumer (verilate(), the
# lint tests, the Yosys scripts) takes its files from here. Module order within a block does
# not matter to Verilator or Yosys; a block's directory holds one module per file.
set(TPU_RTL_DIR ${CMAKE_SOURCE_DIR}/rtl)

set(TPU_RTL_PKG ${TPU_RTL_DIR}/tpu_pkg.sv)

# tpu_rtl_block(<VAR> <dir>): VAR = every .sv file of rtl/<dir>, sorted.
macro(tpu_rtl_block var dir)
  file(GLOB ${var} CONFIGURE_DEPENDS ${TPU_RTL_DIR}/${dir}/*.sv)
  list(SORT ${var})
endmacro()

tpu_rtl_block(TPU_RTL_MXU mxu)      # systolic array, skew, weight banks
tpu_rtl_block(TPU_RTL_UB ub)        # unified buffer
tpu_rtl_block(TPU_RTL_ACC acc)      # accumulators
tpu_rtl_block(TPU_RTL_WFIFO wfifo)  # weight FIFO
tpu_rtl_block(TPU_RTL_ACT act)      # activation pipeline: bias, requantization, function, pooling
tpu_rtl_block(TPU_RTL_CTRL ctrl)    # controller: instruction check, tokens, unit sequencers
tpu_rtl_block(TPU_RTL_HOST_IF host_if)  # PCIe endpoint application side: registers, DMA, ring

# tpu_core (rtl/tpu_core.sv) and every block it instantiates (the ISA package is added by
# cmake/TpuIsa.cmake, which defines TPU_RTL_ISA_PKG).
set(TPU_RTL_CORE ${TPU_RTL_MXU} ${TPU_RTL_UB} ${TPU_RTL_ACC} ${TPU_RTL_WFIFO} ${TPU_RTL_ACT}
    ${TPU_RTL_CTRL} ${TPU_RTL_DIR}/tpu_core.sv)

# Every RTL file of the project, package first: the lint tests check each module in it.
file(GLOB_RECURSE TPU_RTL_ALL CONFIGURE_DEPENDS ${TPU_RTL_DIR}/*.sv)
list(SORT TPU_RTL_ALL)
list(REMOVE_ITEM TPU_RTL_ALL ${TPU_RTL_PKG})
list(PREPEND TPU_RTL_ALL ${TPU_RTL_PKG})
