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
  // floor((p + 2^30) / 2^31) for both signs (round half up) = floor((p[63:30] + 1) / 2). The
  // only result beyond int32 is 2^31 from INT32_MIN * INT32_MIN; it saturates to INT32_MAX.
  // RoundingDivideByPOT(v, e), ties away from zero, is floor((v + 2^(e-1) - [v < 0]) / 2^e)
  // for e > 0 (v itself for e = 0), computed in 33 bits so the add cannot wrap.
  // ---------------------------------------------------------------------------------------
  /* verilator lint_off UNUSEDSIGNAL */  // rounded[0] is below the / 2; shifted[32] is sign
  logic [33:0] rounded;
  logic [32:0] shifted;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [32:0] srdhm_wide, round_add;
  logic [31:0] srdhm, scaled_d3, scaled_q3;

  always_comb begin
    rounded    = prod_hi_q2 + 34'd1;
    srdhm_wide = rounded[33:1];
    // > INT32_MAX: non-negative with bit 31 set.
    srdhm      = (!srdhm_wide[32] && srdhm_wide[31]) ? 32'h7FFF_FFFF : srdhm_wide[31:0];
    round_add  = '0;
    if (right_shift != 5'd0) begin
      round_add = (33'd1 << (right_shift - 5'd1)) - {32'd0, srdhm[31]};
    end
    shifted    = 33'($signed({srdhm[31], srdhm} + round_add) >>> right_shift);
    scaled_d3  = shifted[31:0];  // |result| <= 3 * 2^29 for e > 0: fits
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
