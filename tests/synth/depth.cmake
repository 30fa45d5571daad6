# The logic-depth budget (docs/fpga.md): every RTL module, flattened with what it instantiates,
# mapped to two-input gates; its deepest path between flip-flops and ports may have at most 64
# gate levels, or the ceiling tests/synth/depth_ceilings.txt records for a module that does not
# meet the budget yet. Memories are small here (generic synthesis turns them into flip-flops and
# read multiplexers, a few levels deep); the parameters that set the arithmetic (N where a sum
# or a product grows with it, the controller's limits) are the defaults unless stated.
# The blocks that contain others and take a minute or more (the requantization stage, the
# activation pipeline, the controller, the DMA engine, the host interface) are in the
# label `long`: their deepest paths are their parts' (measured in the short suite), or longer.
# `make depth` runs them all and prints the table.
set(depth_ctrl ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_CTRL})
set(depth_host ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_REGS_PKG} ${TPU_RTL_HOST_IF})
set(depth_small_host MaxPayload=64 MaxReadReq=64)

# Primitives.
tpu_add_depth_test(tpu_fifo TOP tpu_fifo SOURCES ${TPU_RTL_PKG} ${TPU_RTL_PRIM})
tpu_add_depth_test(tpu_resp_buf TOP tpu_resp_buf SOURCES ${TPU_RTL_PKG} ${TPU_RTL_PRIM})
tpu_add_depth_test(tpu_mem_1r1w TOP tpu_mem_1r1w SOURCES ${TPU_RTL_PKG} ${TPU_RTL_PRIM}
  PARAMS Lanes=4 Depth=64)
tpu_add_depth_test(tpu_skew TOP tpu_skew SOURCES ${TPU_RTL_PKG} ${TPU_RTL_PRIM})
tpu_add_depth_test(tpu_tap_delay TOP tpu_tap_delay SOURCES ${TPU_RTL_PKG} ${TPU_RTL_PRIM}
  PARAMS Depth=4)
tpu_add_depth_test(tpu_add_short TOP tpu_add_short SOURCES ${TPU_RTL_PKG} ${TPU_RTL_PRIM})
tpu_add_depth_test(tpu_mul_csa_reg TOP tpu_mul_csa_reg SOURCES ${TPU_RTL_PKG} ${TPU_RTL_PRIM})
# MXU (the PE's depth does not depend on N).
tpu_add_depth_test(tpu_mxu_pe TOP tpu_mxu_pe SOURCES ${TPU_RTL_PKG} ${TPU_RTL_MXU})
tpu_add_depth_test(tpu_mxu_weight_ctrl TOP tpu_mxu_weight_ctrl
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_MXU})
tpu_add_depth_test(tpu_mxu_array TOP tpu_mxu_array SOURCES ${TPU_RTL_PKG} ${TPU_RTL_MXU}
  PARAMS N=4)
tpu_add_depth_test(tpu_mxu TOP tpu_mxu SOURCES ${TPU_RTL_PKG} ${TPU_RTL_MXU} PARAMS N=4)
# Buffers.
tpu_add_depth_test(tpu_ub TOP tpu_ub SOURCES ${TPU_RTL_PKG} ${TPU_RTL_UB} PARAMS N=4 Depth=64)
tpu_add_depth_test(tpu_acc TOP tpu_acc SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ACC}
  PARAMS N=4 Depth=32)
tpu_add_depth_test(tpu_wfifo TOP tpu_wfifo SOURCES ${TPU_RTL_PKG} ${TPU_RTL_WFIFO} PARAMS N=4)
# Activation pipeline (the pooling limits' defaults but 16-pixel lines).
tpu_add_depth_test(tpu_act_lut TOP tpu_act_lut SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ACT}
  PARAMS Ports=4)
tpu_add_depth_test(tpu_act_requant_lane TOP tpu_act_requant_lane
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ACT})
tpu_add_depth_test(tpu_act_requant TOP tpu_act_requant SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ACT}
  PARAMS N=4 LABEL long)
tpu_add_depth_test(tpu_act_pool_axis TOP tpu_act_pool_axis SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ACT})
tpu_add_depth_test(tpu_act_pool_div TOP tpu_act_pool_div SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ACT})
tpu_add_depth_test(tpu_act_pool TOP tpu_act_pool SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ACT}
  PARAMS N=4 MaxWidth=16)
tpu_add_depth_test(tpu_act TOP tpu_act SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ACT}
  PARAMS N=4 MaxWidth=16 LABEL long)
# Controller (default N = 16 and limits; the parameter memory small).
foreach(m decode dispatch tokens perf dma matrix weights)
  tpu_add_depth_test(tpu_ctrl_${m} TOP tpu_ctrl_${m} SOURCES ${depth_ctrl})
endforeach()
tpu_add_depth_test(tpu_ctrl_act TOP tpu_ctrl_act SOURCES ${depth_ctrl} PARAMS ParamSets=8)
tpu_add_depth_test(tpu_ctrl TOP tpu_ctrl SOURCES ${depth_ctrl}
  PARAMS N=4 UbRows=64 AccRows=32 ParamSets=2 LABEL long)
# Host interface (64-byte payloads and read requests, few tags: small buffers).
foreach(m tx rx ring)
  tpu_add_depth_test(tpu_host_${m} TOP tpu_host_${m} SOURCES ${depth_host})
endforeach()
tpu_add_depth_test(tpu_host_cfg TOP tpu_host_cfg SOURCES ${depth_host} PARAMS ${depth_small_host})
tpu_add_depth_test(tpu_host_beat_adapter TOP tpu_host_beat_adapter SOURCES ${depth_host}
  PARAMS N=4 UseDepth=8)
tpu_add_depth_test(tpu_host_regs TOP tpu_host_regs SOURCES ${depth_host}
  PARAMS N=4 UbRows=64 AccRows=32 ParamSets=2)
tpu_add_depth_test(tpu_host_dma_wr TOP tpu_host_dma_wr SOURCES ${depth_host}
  PARAMS MaxPayload=64)
tpu_add_depth_test(tpu_host_dma_rd TOP tpu_host_dma_rd SOURCES ${depth_host}
  PARAMS MaxReadReq=64 NumTags=4 Timeout=64)
tpu_add_depth_test(tpu_host_dma TOP tpu_host_dma SOURCES ${depth_host}
  PARAMS ${depth_small_host} NumTags=4 Timeout=64 LABEL long)
# The host interface at N = 4 with small buffers: a minute, label long. Not measured as
# wholes: tpu_core and tpu_top (the flattened core to gates with `abc -g` took over 10 minutes
# of CPU without finishing; every module they are made of is measured above, docs/fpga.md).
tpu_add_depth_test(tpu_host_if TOP tpu_host_if SOURCES ${depth_host}
  PARAMS N=4 UbRows=64 AccRows=32 ParamSets=2 ${depth_small_host} NumTags=4 Timeout=64
  LABEL long)

# The ceilings list names only blocks measured here; `make depth` prints the table.
get_property(depth_blocks GLOBAL PROPERTY TPU_DEPTH_BLOCKS)
add_test(NAME depth.ceilings_known
  COMMAND ${Python3_EXECUTABLE} ${TPU_DEPTH_SCRIPT} ceilings --ceilings ${TPU_DEPTH_CEILINGS}
          ${depth_blocks})
set_tests_properties(depth.ceilings_known PROPERTIES LABELS synth)
add_custom_target(depth_report
  COMMAND ${Python3_EXECUTABLE} ${TPU_DEPTH_SCRIPT} report ${CMAKE_BINARY_DIR}/depth
          ${depth_blocks}
  COMMENT "Logic depth per block (docs/fpga.md)" VERBATIM)
