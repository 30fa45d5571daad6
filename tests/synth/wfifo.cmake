# Weight FIFO at N=8: one row per DRAM beat (the default), half a row and two rows per beat.
# Each configuration twice: stopped before memory mapping, the storage must be one inferred
# memory (a $mem_v2 of 32 words of 64 bits, or 16 of 128) with the output register merged into
# its synchronous read port; and a full generic synthesis for the cell statistics.
foreach(cfg "64;32;64" "32;32;64" "128;16;128")
  list(GET cfg 0 dw)
  list(GET cfg 1 words)
  list(GET cfg 2 width)
  set(mem "t:$mem_v2 r:SIZE=${words} %i r:WIDTH=${width} %i r:RD_CLK_ENABLE=1'1 %i")
  tpu_add_synth_test(wfifo_n8_dw${dw}_mem TOP tpu_wfifo
    SOURCES ${TPU_RTL_PKG} ${TPU_RTL_WFIFO} PARAMS N=8 DramWidth=${dw}
    FLOW "synth -top tpu_wfifo -run begin:fine"
    CHECKS "select -assert-count 1 t:$mem_v2" "select -assert-count 1 ${mem}")
  tpu_add_synth_test(wfifo_n8_dw${dw} TOP tpu_wfifo
    SOURCES ${TPU_RTL_PKG} ${TPU_RTL_WFIFO} PARAMS N=8 DramWidth=${dw})
endforeach()
