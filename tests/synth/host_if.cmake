# BAR0 register file at N=8 (its parameters only set the capability registers): elaborates,
# no latch; its state is flip-flops only (no memory: the PERF HI latches are ten registers).
# 612 flops: MSI address 30+32, MSI data 16, ring base 28+32, ring size 17, ring tail 16,
# irq_enable 1, IRQ_MASK 2, IRQ_STATUS 2, ring fetch error 1, three pulses, the core's reset 1,
# read response 1+32, PERF HI latches 10x32, WATCHDOG 32 and its counter 32, the watchdog
# error 1, DMA_ERROR_CAUSE 14 (one of them merged by Yosys).
tpu_add_synth_test(host_regs_n8 TOP tpu_host_regs
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_REGS_PKG}
          ${TPU_RTL_DIR}/host_if/tpu_host_regs.sv
  PARAMS N=8 UbRows=256 AccRows=64 DramBytes=65536 ParamSets=8
  CHECKS "select -assert-none t:$mem_v2 t:$mem"
         "select -assert-count 612 t:$_DFF_* t:$_DFFE_*")

# TLP and DMA blocks of the host interface at their defaults (N = 16: MPS 256, MRRS 512, 16
# tags). Each is stopped before memory mapping to count its memories, then mapped to gates
# for the flip-flop count (the bound is the count measured, rounded up).
set(TPU_HOST_IF_SYNTH_COMMON ${TPU_RTL_PKG} ${TPU_RTL_PRIM_DIR}/tpu_fifo.sv
    ${TPU_RTL_PRIM_DIR}/tpu_mem_1r1w.sv ${TPU_RTL_PRIM_DIR}/tpu_add_short.sv)
set(TPU_HOST_IF_TO_GATES "techmap" "opt -fast" "abc -fast" "opt -fast")

# Receive: the register-read completion FIFO is a memory; 318 flops (completion beat register
# 128, register request 50, completion header 42, BAR0 write header 16, a configuration
# write's header 54, drop counter 16, state).
tpu_add_synth_test(host_rx TOP tpu_host_rx
  SOURCES ${TPU_HOST_IF_SYNTH_COMMON} ${TPU_RTL_DIR}/host_if/tpu_host_rx.sv
  FLOW "synth -top tpu_host_rx -flatten -run begin:fine"
  CHECKS "select -assert-count 1 t:$mem_v2" ${TPU_HOST_IF_TO_GATES}
         "select -assert-max 320 t:$_*DFF*")

# Read engine: the completion buffer (16 tags x 512 bytes = 512 rows of 128 bits) and the
# per-client order and output FIFOs are memories (5); 1068 flops, mostly the 16 tags' state
# (beats requested and received, address bits 6:0, an 18-bit issue or quarantine stamp,
# flags) and the two clients' open and waiting runs (64-bit addresses).
tpu_add_synth_test(host_dma_rd TOP tpu_host_dma_rd
  SOURCES ${TPU_HOST_IF_SYNTH_COMMON} ${TPU_RTL_DIR}/host_if/tpu_host_dma_rd.sv
  FLOW "synth -top tpu_host_dma_rd -flatten -run begin:fine"
  CHECKS "select -assert-count 5 t:$mem_v2"
         "select -assert-count 1 t:$mem_v2 r:SIZE=512 %i r:WIDTH=128 %i"
         "select -assert-none t:$mul t:$div t:$mod"
         ${TPU_HOST_IF_TO_GATES}
         "select -assert-max 1100 t:$_*DFF*")

# Write engine: data FIFO (32 beats of 128 bits) and descriptor FIFO are memories; 196 flops
# (open run, split beat, pointers).
tpu_add_synth_test(host_dma_wr TOP tpu_host_dma_wr
  SOURCES ${TPU_HOST_IF_SYNTH_COMMON} ${TPU_RTL_DIR}/host_if/tpu_host_dma_wr.sv
  FLOW "synth -top tpu_host_dma_wr -flatten -run begin:fine"
  CHECKS "select -assert-count 2 t:$mem_v2"
         "select -assert-count 1 t:$mem_v2 r:SIZE=32 %i r:WIDTH=128 %i"
         "select -assert-none t:$mul t:$div t:$mod"
         ${TPU_HOST_IF_TO_GATES}
         "select -assert-max 210 t:$_*DFF*")

# Transmit: no memory; 170 flops (the output beat register, the held payload DW, state).
tpu_add_synth_test(host_tx TOP tpu_host_tx
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_DIR}/host_if/tpu_host_tx.sv
  CHECKS "select -assert-none t:$mem_v2" "select -assert-max 180 t:$_*DFF*")

# Configuration space: no memory; 43 flops (Command's two enables, BAR0 bits 31:12, the bus
# and device numbers 13, Device Control's RO / NS enables and MPS / MRRS fields).
tpu_add_synth_test(host_cfg TOP tpu_host_cfg
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_DIR}/host_if/tpu_host_cfg.sv
  CHECKS "select -assert-none t:$mem_v2" "select -assert-count 43 t:$_*DFF*")

# Ring: no memory (the slots wait in the read engine's buffer); 41 flops (head, fetch pointer,
# slots in flight, state).
tpu_add_synth_test(host_ring TOP tpu_host_ring
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_PRIM_DIR}/tpu_add_short.sv
          ${TPU_RTL_DIR}/host_if/tpu_host_ring.sv
  CHECKS "select -assert-none t:$mem_v2" "select -assert-max 45 t:$_*DFF*")

# Beat adapter (core beats of N bytes <-> the engines' 16-byte beats). N = 8: the queue of
# core reads waiting for data (512 entries of slot + last flag) is a memory; 264 flops (the
# write merge register 189: line 44, data 128, mask 16, valid; the newest 16-byte read's line
# and flags 46; the staged read's slot and valid 2; queue pointers and count 27). N = 32: no
# memory; 131 flops (the first piece of a read 128, piece counts, error). N = 16: wires, no
# flop.
tpu_add_synth_test(host_beat_adapter_n8 TOP tpu_host_beat_adapter
  SOURCES ${TPU_HOST_IF_SYNTH_COMMON} ${TPU_RTL_DIR}/host_if/tpu_host_beat_adapter.sv
  PARAMS N=8
  FLOW "synth -top tpu_host_beat_adapter -flatten -run begin:fine"
  CHECKS "select -assert-count 1 t:$mem_v2" "select -assert-none t:$mul t:$div t:$mod"
         ${TPU_HOST_IF_TO_GATES} "select -assert-max 270 t:$_*DFF*")
tpu_add_synth_test(host_beat_adapter_n32 TOP tpu_host_beat_adapter
  SOURCES ${TPU_HOST_IF_SYNTH_COMMON} ${TPU_RTL_DIR}/host_if/tpu_host_beat_adapter.sv
  PARAMS N=32
  FLOW "synth -top tpu_host_beat_adapter -flatten -run begin:fine"
  CHECKS "select -assert-none t:$mem_v2" ${TPU_HOST_IF_TO_GATES}
         "select -assert-max 135 t:$_*DFF*")
tpu_add_synth_test(host_beat_adapter_n16 TOP tpu_host_beat_adapter
  SOURCES ${TPU_HOST_IF_SYNTH_COMMON} ${TPU_RTL_DIR}/host_if/tpu_host_beat_adapter.sv
  FLOW "synth -top tpu_host_beat_adapter -flatten -run begin:fine"
  CHECKS "select -assert-none t:$mem_v2" ${TPU_HOST_IF_TO_GATES}
         "select -assert-none t:$_*DFF*")

# The TLP and DMA path (tpu_host_dma: receive, read and write engines, transmit, configuration
# space): their 8 memories (receive 1, read engine 5, write engine 2), nothing more.
tpu_add_synth_test(host_dma TOP tpu_host_dma
  SOURCES ${TPU_HOST_IF_SYNTH_COMMON} ${TPU_RTL_DIR}/host_if/tpu_host_rx.sv
          ${TPU_RTL_DIR}/host_if/tpu_host_dma_rd.sv ${TPU_RTL_DIR}/host_if/tpu_host_dma_wr.sv
          ${TPU_RTL_DIR}/host_if/tpu_host_tx.sv ${TPU_RTL_DIR}/host_if/tpu_host_cfg.sv
          ${TPU_RTL_DIR}/host_if/tpu_host_dma.sv
  FLOW "synth -top tpu_host_dma -flatten -run begin:fine"
  CHECKS "select -assert-count 8 t:$mem_v2")

# The whole host interface at N = 16 with the register file: 8 memories (receive 1, read
# engine 5, write engine 2); 2424 flops, of which the register file holds 612 (and the
# watchdog's progress detector 20) and the configuration space 43.
tpu_add_synth_test(host_if_n16 TOP tpu_host_if
  SOURCES ${TPU_HOST_IF_SYNTH_COMMON} ${TPU_RTL_ISA_PKG} ${TPU_RTL_REGS_PKG}
          ${TPU_RTL_HOST_IF}
  FLOW "synth -top tpu_host_if -flatten -run begin:fine"
  CHECKS "select -assert-count 8 t:$mem_v2" ${TPU_HOST_IF_TO_GATES}
         "select -assert-max 2450 t:$_*DFF*")

# The host interface of n32: N = 32 on a 256-bit TLP stream (docs/host_if.md section 1). The
# core's beats reach the engines as wires; the ring's second beat adapter (16-byte slots joined
# into 32-byte reads) has its queue of slot reads as the ninth memory; 2729 flops (2424 at
# N = 16 on 128 bits: the wider receive, transmit and write-engine registers, the ring's
# adapter). About 30 s.
tpu_add_synth_test(host_if_n32_w256 TOP tpu_host_if
  SOURCES ${TPU_HOST_IF_SYNTH_COMMON} ${TPU_RTL_ISA_PKG} ${TPU_RTL_REGS_PKG}
          ${TPU_RTL_HOST_IF}
  PARAMS N=32 TlpWidth=256
  FLOW "synth -top tpu_host_if -flatten -run begin:fine"
  CHECKS "select -assert-count 9 t:$mem_v2" ${TPU_HOST_IF_TO_GATES}
         "select -assert-max 2750 t:$_*DFF*")

# The host interface at N = 8: the beat adapter's queue of core reads is the ninth memory.
tpu_add_synth_test(host_if_n8 TOP tpu_host_if
  SOURCES ${TPU_HOST_IF_SYNTH_COMMON} ${TPU_RTL_ISA_PKG} ${TPU_RTL_REGS_PKG}
          ${TPU_RTL_HOST_IF}
  PARAMS N=8
  FLOW "synth -top tpu_host_if -flatten -run begin:fine"
  CHECKS "select -assert-count 9 t:$mem_v2")

# The device (tpu_top = host interface + core) at N = 16 with small memories, stopped before
# memory mapping: it elaborates with no latch and every storage array stays a memory (the
# core's 28, see synth.core_n4, and the host interface's 8), and no logic drives a reset (the
# core's and its blocks' are flip-flops). About 75 s.
tpu_add_synth_test(top_n16 TOP tpu_top
  SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ISA_PKG} ${TPU_RTL_REGS_PKG} ${TPU_RTL_CORE}
          ${TPU_RTL_HOST_IF} ${TPU_RTL_DIR}/tpu_top.sv
  PARAMS UbRows=256 AccRows=64 DramBytes=65536 ParamSets=2
  FLOW "synth -top tpu_top -flatten -run begin:fine"
  CHECKS "select -assert-count 36 t:$mem_v2" "${TPU_SYNTH_RESETS_FROM_FLOPS}")

# The short-operand adder (tpu_add_short: the ring's slot address, the write engine's DW
# addresses) is a plain `+`: SAT proves it for every input at the widths the host interface
# uses (60 + 16 bits; 64 + 4, 5, 6 for 128-, 256-, 512-bit beats) and at the narrowest ones.
foreach(widths IN ITEMS "60;16" "64;4" "64;5" "64;6" "2;1")
  list(GET widths 0 w)
  list(GET widths 1 s)
  tpu_add_equiv_test(add_short_${w}_${s} ${TPU_RTL_PRIM_DIR}/tpu_add_short.sv
    "module gold (input [${w}-1:0] a, input [${s}-1:0] b, output [${w}-1:0] y);
  assign y = a + ${w}'(b);
endmodule"
    "module gate (input [${w}-1:0] a, input [${s}-1:0] b, output [${w}-1:0] y);
  tpu_add_short #(.Width(${w}), .ShortW(${s})) u_add (.a_i(a), .b_i(b), .sum_o(y));
endmodule")
endforeach()
