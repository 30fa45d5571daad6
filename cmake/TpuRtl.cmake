# RTL source lists, one variable per block, in dependency order (package first).
# Every consumer (verilate(), lint tests, Yosys scripts) takes its files from here.
set(TPU_RTL_DIR ${CMAKE_SOURCE_DIR}/rtl)

set(TPU_RTL_PKG
  ${TPU_RTL_DIR}/tpu_pkg.sv)

set(TPU_RTL_MXU
  ${TPU_RTL_DIR}/mxu/tpu_mxu_pe.sv
  ${TPU_RTL_DIR}/mxu/tpu_mxu_array.sv
  ${TPU_RTL_DIR}/mxu/tpu_skew.sv
  ${TPU_RTL_DIR}/mxu/tpu_mxu_weight_ctrl.sv
  ${TPU_RTL_DIR}/mxu/tpu_mxu.sv)

# Every RTL file of the project, for lint.
set(TPU_RTL_ALL ${TPU_RTL_PKG} ${TPU_RTL_MXU})
