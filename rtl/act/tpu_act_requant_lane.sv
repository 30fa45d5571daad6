// One output channel of the requantization datapath (see tpu_act_requant): stages 1 to 4 of
// y = clamp(zp + MultiplyByQuantizedMultiplier(acc + bias, M0, shift), act_min, act_max),
// bit-exact with TFLite / gemmlowp (host_driver/golden/requant.h):
//   stage 1: x  = (acc + bias) << max(shift, 0)        int32, both steps wrap
//   stage 2: p  = x * M0                               32 x 32 -> 64 signed, bits [63:30] kept
//   stage 3: s  = RoundingDivideByPOT(SRDHM(x, M0), max(-shift, 0))
//   stage 4: y  = clamp(s + zp, act_min, act_max)      the add is exact (33 bits)
// Each stage register loads when its bit of en_i is set and holds otherwise; the controller
// (tpu_act_requant) sets it when the stage takes a valid row. Latency: y_o shows a row's result
// 4 loads after acc_i was taken. Datapath registers have no reset: only valid bits need one.
module tpu_act_requant_lane (
  input  logic                  clk_i,
  input  logic [3:0]            en_i,              // bit s: the stage s+1 register loads
  input  logic [31:0]           acc_i,             // int32 accumulator, taken by stage 1
  input  logic [31:0]           bias_i,            // int32 bias, added with wraparound
  input  logic [31:0]           multiplier_i,      // M0 as signed Q0.31 (any int32 value)
  input  logic [5:0]            shift_i,           // signed exponent in [-31, 30]; > 0: left
  input  logic [7:0]            out_zero_point_i,  // int8 output zero point
  input  logic [7:0]            act_min_i,         // int8 lower clamp bound
  input  logic [7:0]            act_max_i,         // int8 upper clamp bound, >= act_min_i
  output logic [7:0]            y_o                // int8 result (stage 4 register)
);

  // Exponents: left = max(shift, 0) in [0, 30], right = max(-shift, 0) in [0, 31].
  logic [4:0] left_shift, right_shift;
  logic       shift_neg;

  always_comb begin
    shift_neg   = shift_i[5];
    left_shift  = shift_neg ? 5'd0 : shift_i[4:0];
    right_shift = shift_neg ? 5'(-shift_i) : 5'd0;
  end

  // ---------------------------------------------------------------------------------------
  // Stage 1: bias add and TFLite's x * 2^left, both wrapping in int32
  // ---------------------------------------------------------------------------------------
  logic [31:0] biased, x_d1, x_q1;

  always_comb begin
    biased = acc_i + bias_i;
    x_d1   = biased << left_shift;
  end

  always_ff @(posedge clk_i) begin
    if (en_i[0]) x_q1 <= x_d1;
  end

  // ---------------------------------------------------------------------------------------
  // Stage 2: the 32 x 32 -> 64 signed multiply, alone in its stage. Bits [29:0] of the
  // product never reach the result (the rounding constant 2^30 only carries into bit 30).
  // ---------------------------------------------------------------------------------------
  logic signed [63:0] x_ext, m_ext;
  /* verilator lint_off UNUSEDSIGNAL */  // bits [29:0] cannot affect the result, see above
  logic signed [63:0] product;
  /* verilator lint_on UNUSEDSIGNAL */
  logic        [33:0] prod_hi_d2, prod_hi_q2;

  always_comb begin
    x_ext      = $signed({{32{x_q1[31]}}, x_q1});
    m_ext      = $signed({{32{multiplier_i[31]}}, multiplier_i});
    product    = x_ext * m_ext;  // exact: |x * M0| <= 2^62
    prod_hi_d2 = product[63:30];
  end

  always_ff @(posedge clk_i) begin
    if (en_i[1]) prod_hi_q2 <= prod_hi_d2;
  end

  // ---------------------------------------------------------------------------------------
  // Stage 3: SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT.
  // gemmlowp's (p + nudge) / 2^31, truncating, with nudge 2^30 or 1 - 2^30 by the sign of p, is
  // floor((p + 2^30) / 2^31) for both signs (round half up) = floor((P + 1) / 2) with P =
  // p[63:30]. The only result beyond int32 is 2^31 from INT32_MIN * INT32_MIN; it saturates to
  // INT32_MAX. RoundingDivideByPOT(v, e), ties away from zero, is floor((v + 2^(e-1) - [v < 0])
  // / 2^e) for e > 0 (v itself for e = 0).
  // The two roundings are folded into one add and one shift, so the stage is an adder and a
  // shifter deep rather than two adders and a shifter (105 gate levels before): with v =
  // floor((P + 1) / 2), floor((v + c) / 2^e) = floor((P + 1 + 2c) / 2^(e+1)) for an integer c,
  // so the result is (P + K) >>> (e + 1) with K = 1 + 2^e - 2 * [v < 0] for e > 0 and K = 1 for
  // e = 0, and v < 0 exactly when P <= -2. Which of P + 1's top bits overflow int32 is decided
  // from P directly (whether the carry of + 1 passes bit 31), beside the add:
  //  - P + 1 in [2^32, 2^33): v saturates to INT32_MAX, whose rounded shift is INT32_MAX for
  //    e = 0 and 2^(31-e) otherwise;
  //  - P + 1 in [-2^33, -2^32) (34 bits, with P = 2^33 - 1 wrapping there): the 32-bit v is
  //    v + 2^32, i.e. P with bit 33 flipped (never reached by a product, kept exact anyway).
  // ---------------------------------------------------------------------------------------
  /* verilator lint_off UNUSEDSIGNAL */  // bits above 31 of the shifted sum are its sign
  logic signed [34:0] total, shifted;
  /* verilator lint_on UNUSEDSIGNAL */
  logic        [33:0] p_adj;
  logic        [34:0] round_k;
  logic               low_ones, v_sat, v_wrap, v_neg;
  logic        [31:0] scaled_d3, scaled_q3;

  always_comb begin
    // P + 1's bits 33:32 from P's: + 1 carries into bit 32 exactly when P[31:0] is all ones.
    low_ones = &prod_hi_q2[31:0];
    v_sat    = low_ones ? prod_hi_q2[33:32] == 2'b00 : prod_hi_q2[33:32] == 2'b01;
    v_wrap   = low_ones ? prod_hi_q2[33:32] == 2'b01 : prod_hi_q2[33:32] == 2'b10;
    p_adj    = {prod_hi_q2[33] ^ v_wrap, prod_hi_q2[32:0]};
    v_neg    = p_adj[33] && !(&p_adj[32:0]);
    // K without an adder: 2^e - 1 (e ones) or 2^e + 1 (two bits), by the sign.
    round_k  = 35'd1;
    if (right_shift != 5'd0) begin
      round_k = v_neg ? (35'd1 << right_shift) - 35'd1 : (35'd1 << right_shift) | 35'd1;
    end
    total    = $signed({p_adj[33], p_adj}) + $signed(round_k);
    shifted  = total >>> ({1'b0, right_shift} + 6'd1);
    if (v_sat) begin
      scaled_d3 = (right_shift == 5'd0) ? 32'h7FFF_FFFF : 32'h8000_0000 >> right_shift;
    end else begin
      scaled_d3 = shifted[31:0];
    end
  end

  always_ff @(posedge clk_i) begin
    if (en_i[2]) scaled_q3 <= scaled_d3;
  end

  // ---------------------------------------------------------------------------------------
  // Stage 4: exact zero-point add (33 bits) and the activation clamp (none, ReLU, ReLU6 ...)
  // ---------------------------------------------------------------------------------------
  logic signed [32:0] with_zp, lo, hi;
  logic        [7:0]  y_d4, y_q4;

  always_comb begin
    with_zp = $signed({scaled_q3[31], scaled_q3}) + $signed({{25{out_zero_point_i[7]}},
                                                             out_zero_point_i});
    lo      = $signed({{25{act_min_i[7]}}, act_min_i});
    hi      = $signed({{25{act_max_i[7]}}, act_max_i});
    // std::clamp order: below the minimum first.
    if (with_zp < lo)      y_d4 = act_min_i;
    else if (with_zp > hi) y_d4 = act_max_i;
    else                   y_d4 = with_zp[7:0];
  end

  always_ff @(posedge clk_i) begin
    if (en_i[3]) y_q4 <= y_d4;
  end

  assign y_o = y_q4;

endmodule
