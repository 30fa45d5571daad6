# The whole core at N = 8 (label `synth`) and N = 16 (label `long`), small memories, mapped to
# generic gates with the memories kept as $mem_v2 (28 of them, as at N = 4: synth.core_n4):
# it elaborates with no latch at every size, and the statistics give the cell and flip-flop
# counts that docs/synthesis.md tabulates per N.
set(core_flow "synth -top tpu_core -run begin:fine")
set(core_checks "select -assert-count 28 t:$mem_v2" "techmap" "opt -fast" "abc -fast"
  "opt -fast" "check -assert" "select -assert-count 28 t:$mem_v2")
tpu_add_synth_test(core_n8_gates TOP tpu_core SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG}
  ${TPU_RTL_CORE} PARAMS N=8 UbRows=128 AccRows=64 DramBytes=4096 ParamSets=2 DramWidth=32
  FLOW ${core_flow} CHECKS ${core_checks})
tpu_add_synth_test(core_n16_gates TOP tpu_core SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG}
  ${TPU_RTL_CORE} PARAMS N=16 UbRows=256 AccRows=128 DramBytes=4096 ParamSets=2 DramWidth=32
  FLOW ${core_flow} CHECKS ${core_checks} LABEL long)
