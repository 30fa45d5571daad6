# ---- Requantization stage (tpu_act_requant; rtl/act/tpu_act_requant*.sv, tpu_act_lut.sv) ----
# Generic synthesis at N=8: no latches, cell statistics in synth/act_requant_n8.stat.txt. A
# second run stops before fine-grained mapping to check what was inferred: one 256-entry table
# memory with a read port per lane, and no multiplier cell (each lane multiplies with
# tpu_mul_csa_reg's tree of gates, not a `*` that Yosys would map to an array multiplier).
set(act_requant_rtl ${TPU_RTL_ACT})
list(FILTER act_requant_rtl EXCLUDE REGEX "/tpu_act_pool[^/]*\\.sv$")
tpu_add_synth_test(act_requant_n8 TOP tpu_act_requant
  SOURCES ${TPU_RTL_PKG} ${act_requant_rtl} PARAMS N=8)
tpu_add_synth_test(act_requant_n8_inferred TOP tpu_act_requant
  SOURCES ${TPU_RTL_PKG} ${act_requant_rtl} PARAMS N=8
  FLOW "synth -flatten -top tpu_act_requant -run begin:fine"
  CHECKS "select -assert-count 1 t:$mem_v2 r:SIZE=256 %i r:RD_PORTS=8 %i"
         "select -assert-none t:$macc t:$mul")
# The tree multiplier (tpu_mul_csa_reg) against `*`: SAT proves by induction that its two
# registered rows, each split at Drop, always add up to the registered product, for every input,
# at narrow widths (the same loops as at 32 x 32, where a SAT proof of a multiplier does not
# finish; there the requantization tests check it against golden).
foreach(params IN ITEMS "2;1" "3;2" "4;3" "5;1" "6;5" "8;6")
  list(GET params 0 w)
  list(GET params 1 d)
  tpu_add_equiv_test(mul_csa_reg_${w}_${d} ${TPU_RTL_PRIM_DIR}/tpu_mul_csa_reg.sv
    "module gold (input clk, input en, input signed [${w}-1:0] a, input signed [${w}-1:0] b,
             output [2*${w}-1:0] y);
  reg signed [2*${w}-1:0] p;
  always @(posedge clk) if (en) p <= a * b;
  assign y = p;
endmodule"
    "module gate (input clk, input en, input [${w}-1:0] a, input [${w}-1:0] b,
             output [2*${w}-1:0] y);
  wire [2*${w}-${d}-1:0] s, c;
  wire [${d}-1:0] ls, lc;
  tpu_mul_csa_reg #(.Width(${w}), .Drop(${d})) u_mul (.clk_i(clk), .en_i(en), .a_i(a),
    .b_i(b), .sum_o(s), .carry_o(c), .low_sum_o(ls), .low_carry_o(lc));
  assign y = {s, ls} + {c, lc};
endmodule" SEQUENTIAL)
endforeach()
# The lanes' adds (tpu_add_ks.svh): SAT proves the prefix adder equal to a + b + cin for every
# input. The FPGA flow reads the same function as that plain `+` (TPU_FPGA_CARRY_CHAIN), so this
# also proves the FPGA's requantization the same as the one simulated.
tpu_add_equiv_test(add_ks ${TPU_RTL_INCLUDE_DIR}/tpu_add_ks.svh
  "module gold (input [34:0] a, input [34:0] b, input cin, output [34:0] y);
  assign y = a + b + cin;
endmodule"
  "module gate (input [34:0] a, input [34:0] b, input cin, output [34:0] y);
  `include \"tpu_add_ks.svh\"
  assign y = add_ks(a, b, cin);
endmodule")
# ---- end of requantization stage ----
# ---- Pooling unit (tpu_act_pool; rtl/act/tpu_act_pool*.sv) ----
# N=8 with the default limits (64-pixel lines, windows and strides up to 4). The coarse flow keeps
# the four line buffers as $mem_v2 cells (64 x 80 bits each: RAM macros or block RAMs); the rest
# is mapped to gates, so the statistics in synth/act_pool_n8.stat.txt are the logic around the
# memories, and the flip-flop bound shows that no line buffer became registers (20480 bits):
# 1334 flip-flops remain, the stages and the configuration registers.
file(GLOB act_pool_rtl CONFIGURE_DEPENDS ${TPU_RTL_DIR}/act/tpu_act_pool*.sv)
list(SORT act_pool_rtl)
tpu_add_synth_test(act_pool_n8 TOP tpu_act_pool SOURCES ${TPU_RTL_PKG} ${act_pool_rtl} PARAMS N=8
  FLOW "synth -flatten -top tpu_act_pool -run begin:fine"
  CHECKS "select -assert-count 4 t:$mem_v2 r:SIZE=64 %i r:WIDTH=80 %i"
         "techmap" "opt -fast" "abc -fast" "opt -fast"
         "select -assert-count 4 t:$mem_v2"
         "select -assert-max 2000 t:$_*DFF*")
# ---- end of pooling unit ----
# ---- Activation pipeline top (tpu_act: requantization -> pooling; rtl/act/*.sv) ----
# N=8 with the default pooling limits, coarse flow like the pooling unit's: the four line
# buffers (64 x 80 bits) and the 256-entry lookup table (8 read ports) stay $mem_v2 cells, the
# rest is mapped to gates (statistics in synth/act_n8.stat.txt). The flip-flop bound shows that
# no line buffer became registers (20480 bits): 3878 flip-flops remain, the pipeline registers
# (the requantization's multiply keeps two 64-bit rows a lane between its stages).
tpu_add_synth_test(act_n8 TOP tpu_act SOURCES ${TPU_RTL_PKG} ${TPU_RTL_ACT} PARAMS N=8
  FLOW "synth -flatten -top tpu_act -run begin:fine"
  CHECKS "select -assert-count 4 t:$mem_v2 r:SIZE=64 %i r:WIDTH=80 %i"
         "select -assert-count 1 t:$mem_v2 r:SIZE=256 %i r:RD_PORTS=8 %i"
         "techmap" "opt -fast" "abc -fast" "opt -fast"
         "select -assert-count 5 t:$mem_v2"
         "select -assert-max 5000 t:$_*DFF*")
# ---- end of activation pipeline top ----
