# BAR0 register file at N=8 (its parameters only set the capability registers): elaborates,
# no latch; its state is flip-flops only (no memory: the PERF HI latches are ten registers).
# 533 flops: MSI address 30+32, MSI data 16, ring base 28+32, ring size 17, ring tail 16,
# irq_enable 1, IRQ_MASK 2, IRQ_STATUS 2, ring fetch error 1, three pulses, read response
# 1+32, PERF HI latches 10x32.
tpu_add_synth_test(host_regs_n8 TOP tpu_host_regs
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_REGS_PKG}
          ${TPU_RTL_DIR}/host_if/tpu_host_regs.sv
  PARAMS N=8 UbRows=256 AccRows=64 DramBytes=65536 ParamSets=8
  CHECKS "select -assert-none t:$mem_v2 t:$mem"
         "select -assert-count 533 t:$_DFF_* t:$_DFFE_*")
