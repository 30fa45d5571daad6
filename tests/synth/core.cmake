# The whole core at N = 8 and 16, small memories (N = 4: synth.core_n4 in ctrl.cmake). Label
# `synth`: it elaborates with no latch and keeps its 28 memories at both sizes (coarse flow, a
# few minutes; flattened so that every instance counts). Mapped to generic gates with the
# memories kept as $mem_v2, hierarchically (the PE once), at N = 8 and 16 (label `long`): the
# statistics give the cell and flip-flop counts that docs/synthesis.md tabulates per N.
set(core_flow "synth -top tpu_core -flatten -run begin:fine")
foreach(n 8 16)
  math(EXPR ub "16 * ${n}")
  math(EXPR acc "8 * ${n}")
  set(params N=${n} UbRows=${ub} AccRows=${acc} DramBytes=4096 ParamSets=2 DramWidth=32)
  tpu_add_synth_test(core_n${n} TOP tpu_core
    SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_CORE} PARAMS ${params}
    FLOW ${core_flow} CHECKS "select -assert-count 28 t:$mem_v2")
  tpu_add_synth_test(core_n${n}_gates TOP tpu_core
    SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_CORE} PARAMS ${params}
    FLOW "synth -top tpu_core -run begin:fine"
    CHECKS "techmap" "opt -fast" "abc -fast" "opt -fast" "check -assert"
    LABEL long)
endforeach()
