foreach(n 4 8)
  tpu_add_synth_test(mxu_n${n} TOP tpu_mxu SOURCES ${TPU_RTL_PKG} ${TPU_RTL_MXU} PARAMS N=${n})
endforeach()
