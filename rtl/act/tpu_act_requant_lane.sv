// One output channel of the requantization datapath (see tpu_act_requant): stages 1 to 6 of
// y = clamp(zp + MultiplyByQuantizedMultiplier(acc + bias, M0, shift), act_min, act_max),
// bit-exact with TFLite / gemmlowp (host_driver/golden/requant.h):
//   stage 1: acc + bias                                int32, wraps
//   stage 2: p  = x * M0, x = (acc + bias) << max(shift, 0) (wraps), p in carry-save form:
//            32 x 32 -> 64 signed, two rows
//   stage 3: P  = p[63:30], the rows added (of bits [29:0] only their carry)
//   stage 4: saturation, wrap and rounding constant, from P
//   stage 5: s  = RoundingDivideByPOT(SRDHM(x, M0), max(-shift, 0)), P + K shifted
//   stage 6: y  = clamp(s + zp, act_min, act_max)      the add is exact (33 bits)
// The multiply is split over stages 2 and 3 so that no stage is deeper than the logic-depth
// budget (64 gate levels, docs/fpga.md): a tree to two rows (tpu_mul_csa_reg, 25 levels), then
// their add (one adder instead of the 85 to 95 levels of `*` in one stage). The decisions on P
// have a stage of their own so that the add's cycle ends at P (on an iCE40 the add and the
// decisions in one cycle were the activation pipeline's critical path, docs/fpga.md). The
// shift's decode is registered every cycle (shift_i holds for a whole pass).
// Each stage register loads when its bit of en_i is set and holds otherwise; the controller
// (tpu_act_requant) sets it when the stage takes a valid row. Latency: y_o shows a row's result
// 6 loads after acc_i was taken. Datapath registers have no reset: only valid bits need one.
module tpu_act_requant_lane (
  input  logic                  clk_i,
  input  logic [5:0]            en_i,              // bit s: the stage s+1 register loads
  input  logic [31:0]           acc_i,             // int32 accumulator, taken by stage 1
  input  logic [31:0]           bias_i,            // int32 bias, added with wraparound
  input  logic [31:0]           multiplier_i,      // M0 as signed Q0.31 (any int32 value)
  input  logic [5:0]            shift_i,           // signed exponent in [-31, 30]; > 0: left
  input  logic [7:0]            out_zero_point_i,  // int8 output zero point
  input  logic [7:0]            act_min_i,         // int8 lower clamp bound
  input  logic [7:0]            act_max_i,         // int8 upper clamp bound, >= act_min_i
  output logic [7:0]            y_o                // int8 result (stage 6 register)
);

  // Exponents: left = max(shift, 0) in [0, 30], right = max(-shift, 0) in [0, 31], registered
  // every cycle: stage 2 reads left a cycle after its row was taken, stages 4 and 5 read right
  // later still, and shift_i holds from the row's acceptance to the end of its pass. (Decoded
  // in stage 2's cycle, the sign's fan-out into the left shift was part of the FPGA critical
  // path, docs/fpga.md.)
  logic [4:0] left_shift_q, right_shift_q;

  always_ff @(posedge clk_i) begin
    left_shift_q  <= shift_i[5] ? 5'd0 : shift_i[4:0];
    right_shift_q <= shift_i[5] ? 5'(-shift_i) : 5'd0;
  end

  // add_ks(a, b, cin): a + b + cin in 35 bits, for the adds of stages 1, 3, 5 and 6. Prefix
  // carries for the logic-depth budget (in generic gates a plain `+` is a ripple chain: with
  // the logic around it 69, 76 and 75 levels; the budget is 64, docs/fpga.md); a plain `+` on
  // an FPGA, whose carry chain is faster. A late cin (stage 3's, the low product bits' carry,
  // itself a prefix carry) adds one level instead of a whole prefix.
  `include "tpu_add_ks.svh"

  // ---------------------------------------------------------------------------------------
  // Stage 1: the bias add, wrapping in int32. TFLite's x * 2^left (wrapping too) is the first
  // step of stage 2, in front of the multiply: with the add in one stage the two came to 56 to
  // 60 gate levels, close to the budget; the shift is a few levels, the tree 35.
  // ---------------------------------------------------------------------------------------
  logic [31:0] biased_q1, x_shifted;

  always_ff @(posedge clk_i) begin
    if (en_i[0]) biased_q1 <= 32'(add_ks({3'b0, acc_i}, {3'b0, bias_i}, 1'b0));
  end

  assign x_shifted = biased_q1 << left_shift_q;

  // ---------------------------------------------------------------------------------------
  // Stage 2: the 32 x 32 -> 64 signed multiply, a tree into two rows that stage 3 adds. Bits
  // [29:0] of the product never reach the result (the rounding constant 2^30 only carries into
  // bit 30): of the rows' low 30 bits stage 3 takes only their carry into bit 30.
  // ---------------------------------------------------------------------------------------
  logic [33:0] sum_q2, carry_q2;
  logic [29:0] low_sum_q2, low_carry_q2;

  tpu_mul_csa_reg #(
    .Width(32),
    .Drop (30)
  ) u_mul (
    .clk_i  (clk_i),
    .en_i   (en_i[1]),
    .a_i    (x_shifted),
    .b_i    (multiplier_i),
    .sum_o      (sum_q2),
    .carry_o    (carry_q2),
    .low_sum_o  (low_sum_q2),
    .low_carry_o(low_carry_q2)
  );

  // ---------------------------------------------------------------------------------------
  // Stages 3 to 5: SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT.
  // gemmlowp's (p + nudge) / 2^31, truncating, with nudge 2^30 or 1 - 2^30 by the sign of p, is
  // floor((p + 2^30) / 2^31) for both signs (round half up) = floor((P + 1) / 2) with P =
  // p[63:30]. The only result beyond int32 is 2^31 from INT32_MIN * INT32_MIN; it saturates to
  // INT32_MAX. RoundingDivideByPOT(v, e), ties away from zero, is floor((v + 2^(e-1) - [v < 0])
  // / 2^e) for e > 0 (v itself for e = 0).
  // The two roundings are folded into one add and one shift, so the datapath is an adder and a
  // shifter deep rather than two adders and a shifter (105 gate levels before): with v =
  // floor((P + 1) / 2), floor((v + c) / 2^e) = floor((P + 1 + 2c) / 2^(e+1)) for an integer c,
  // so the result is (P + K) >>> (e + 1) with K = 1 + 2^e - 2 * [v < 0] for e > 0 and K = 1 for
  // e = 0, and v < 0 exactly when P <= -2. Which of P + 1's top bits overflow int32 is decided
  // from P directly (whether the carry of + 1 passes bit 31), beside the add:
  //  - P + 1 in [2^32, 2^33): v saturates to INT32_MAX, whose rounded shift is INT32_MAX for
  //    e = 0 and 2^(31-e) otherwise;
  //  - P + 1 in [-2^33, -2^32) (34 bits, with P = 2^33 - 1 wrapping there): the 32-bit v is
  //    v + 2^32, i.e. P with bit 33 flipped (never reached by a product, kept exact anyway).
  // Stage 3 adds the product's rows into P; stage 4 decides, from P, the saturation, the wrap
  // and the rounding constant K; stage 5 adds K and shifts. (One stage for all measured 84 gate
  // levels, the budget is 64; stages 3 and 4 in one were the FPGA's critical path.)
  // ---------------------------------------------------------------------------------------

  // Stage 3: the product's rows added into P = p[63:30], and whether P's bits 31:0 are all
  // ones.
  function automatic logic [34:0] stage3(logic [33:0] sum, logic [33:0] carry,
                                         logic [29:0] low_sum, logic [29:0] low_carry);
    /* verilator lint_off UNUSEDSIGNAL */  // only the carry into bit 30 is taken
    logic [34:0] low_total;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [33:0] prod_hi;  // P = p[63:30]; exact: |x * M0| <= 2^62
    logic        low_ones, cin;
    // The low bits' carry into bit 30 (synthesis keeps only that bit of their sum).
    low_total = add_ks({5'b0, low_sum}, {5'b0, low_carry}, 1'b0);
    cin       = low_total[30];
    prod_hi   = 34'(add_ks({1'b0, sum}, {1'b0, carry}, cin));
    // P[31:0] all ones, decided from the rows beside the add rather than after it: their sum's
    // bits 31:0 are all ones exactly when every bit's sum is one with a carry in of a & b from
    // the bit below (the carry out of a bit whose sum is one).
    low_ones = &(sum[31:0] ^ carry[31:0] ^ {sum[30:0] & carry[30:0], cin});
    stage3 = {low_ones, prod_hi};
  endfunction

  // Stage 4: from P to {saturated, K, P adjusted for the wrap}.
  function automatic logic [69:0] stage4(logic [33:0] prod_hi, logic low_ones, logic [4:0] e);
    logic [33:0] p_adj;
    logic [34:0] round_k, k_neg, k_pos;
    logic        v_sat, v_wrap, v_neg;
    // P + 1's bits 33:32 from P's: + 1 carries into bit 32 exactly when P[31:0] is all ones.
    v_sat    = low_ones ? prod_hi[33:32] == 2'b00 : prod_hi[33:32] == 2'b01;
    v_wrap   = low_ones ? prod_hi[33:32] == 2'b01 : prod_hi[33:32] == 2'b10;
    p_adj    = {prod_hi[33] ^ v_wrap, prod_hi[32:0]};
    v_neg    = p_adj[33] && !(low_ones && prod_hi[32]);  // P <= -2: not all of bits 32:0 set
    // K without an adder: 2^e - 1 (e ones) or 2^e + 1 (two bits), by the sign; both from e
    // alone, so the sign only selects.
    k_neg    = (e == 5'd0) ? 35'd1 : (35'd1 << e) - 35'd1;
    k_pos    = (35'd1 << e) | 35'd1;
    round_k  = v_neg ? k_neg : k_pos;
    stage4 = {v_sat, round_k, p_adj};
  endfunction

  // Stage 5: (P + K) >>> (e + 1), or the saturated value's rounded shift.
  function automatic logic [31:0] stage5(logic [33:0] p_adj, logic [34:0] round_k,
                                         logic v_sat, logic [4:0] e);
    /* verilator lint_off UNUSEDSIGNAL */  // bits above 31 of the shifted sum are its sign
    logic signed [34:0] total, shifted;
    /* verilator lint_on UNUSEDSIGNAL */
    total   = $signed(add_ks({p_adj[33], p_adj}, round_k, 1'b0));
    shifted = total >>> ({1'b0, e} + 6'd1);
    if (v_sat) stage5 = (e == 5'd0) ? 32'h7FFF_FFFF : 32'h8000_0000 >> e;
    else       stage5 = shifted[31:0];
  endfunction

  // The stages' logic is in functions called under the registers' enables, so that Verilator
  // evaluates it only in the cycles a row enters the stage (as an always_comb it ran every
  // cycle, in every lane); synthesis sees the same logic.
  logic [33:0] prod_hi_q3, p_adj_q4;
  logic        low_ones_q3;
  logic [34:0] round_k_q4;
  logic        v_sat_q4;
  logic [31:0] scaled_q5;

  always_ff @(posedge clk_i) begin
    if (en_i[2]) {low_ones_q3, prod_hi_q3} <= stage3(sum_q2, carry_q2, low_sum_q2, low_carry_q2);
  end

  always_ff @(posedge clk_i) begin
    if (en_i[3]) {v_sat_q4, round_k_q4, p_adj_q4} <= stage4(prod_hi_q3, low_ones_q3,
                                                            right_shift_q);
  end

  always_ff @(posedge clk_i) begin
    if (en_i[4]) scaled_q5 <= stage5(p_adj_q4, round_k_q4, v_sat_q4, right_shift_q);
  end

  // ---------------------------------------------------------------------------------------
  // Stage 6: exact zero-point add (33 bits) and the activation clamp (none, ReLU, ReLU6 ...)
  // ---------------------------------------------------------------------------------------
  // The zero point added exactly and the clamp. The clamp compares 8 bits: a sum
  // in [-128, 127] (bits 32:7 all equal) is its own low byte; one outside is below every int8
  // bound if negative, above every bound if not.
  function automatic logic [7:0] stage6(logic [31:0] scaled, logic [7:0] zp, logic [7:0] act_min,
                                        logic [7:0] act_max);
    /* verilator lint_off UNUSEDSIGNAL */  // bits 34:33 repeat the sign, bit 32
    logic [34:0] with_zp;
    /* verilator lint_on UNUSEDSIGNAL */
    logic        neg, in_int8, below, above;
    with_zp = add_ks({{3{scaled[31]}}, scaled}, {{27{zp[7]}}, zp}, 1'b0);
    neg     = with_zp[32];
    in_int8 = neg ? &with_zp[32:7] : !(|with_zp[32:7]);
    below   = in_int8 ? $signed(with_zp[7:0]) < $signed(act_min) : neg;
    above   = in_int8 ? $signed(with_zp[7:0]) > $signed(act_max) : !neg;
    // std::clamp order: below the minimum first.
    if (below)      stage6 = act_min;
    else if (above) stage6 = act_max;
    else            stage6 = with_zp[7:0];
  endfunction

  logic [7:0] y_q6;

  always_ff @(posedge clk_i) begin
    if (en_i[5]) y_q6 <= stage6(scaled_q5, out_zero_point_i, act_min_i, act_max_i);
  end

  assign y_o = y_q6;

endmodule
