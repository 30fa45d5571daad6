# The MXU, generic synthesis to gates, hierarchical: the PE is synthesized once and counted N^2
# times in the statistics. A PE is 81 flip-flops (two weight banks, the weight pipe, the
# activation and its bank bit, the product, the partial sum), none with a reset, and no skew line's data
# register has one either (docs/mxu.md). Label `synth` up to N = 16; N = 32 and 64 in `long`.
# Cell and flip-flop counts per N, and their growth: docs/synthesis.md.
set(mxu_checks
  "select -assert-count 81 *tpu_mxu_pe/t:$_DFF*"
  "select -assert-none *tpu_mxu_pe/t:$_DFF_PN* *tpu_mxu_pe/t:$_DFFE_PN*"
  "select -assert-min 1 *tpu_skew/t:$_DFF*"
  "select -assert-none *tpu_skew/t:$_DFF_PN* *tpu_skew/t:$_DFFE_PN*")
foreach(n 4 8 16)
  tpu_add_synth_test(mxu_n${n} TOP tpu_mxu SOURCES ${TPU_RTL_PKG} ${TPU_RTL_MXU} PARAMS N=${n}
    CHECKS ${mxu_checks})
endforeach()
foreach(n 32 64)
  tpu_add_synth_test(mxu_n${n} TOP tpu_mxu SOURCES ${TPU_RTL_PKG} ${TPU_RTL_MXU} PARAMS N=${n}
    CHECKS ${mxu_checks} LABEL long)
endforeach()
