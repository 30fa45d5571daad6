`include "tpu_assert.svh"

// A wide value plus a short one (an address plus an offset), combinational, of logarithmic
// gate depth: sum_o = a_i + b_i (modulo 2^Width). The low ShortW bits add with Kogge-Stone
// prefix carries; the bits above take that carry out as an increment whose carries are a
// prefix AND. Generic synthesis maps a plain `+` of a 64-bit address to a ripple chain some 70
// two-input gates deep (docs/fpga.md, the logic-depth budget); this is about 30.
module tpu_add_short #(
  parameter int unsigned Width  = 64,  // bits of a_i and sum_o
  parameter int unsigned ShortW = 16   // bits of b_i: 1 .. Width - 1
) (
  input  logic [Width-1:0]  a_i,    // the wide operand
  input  logic [ShortW-1:0] b_i,    // the short operand (zero above bit ShortW - 1)
  output logic [Width-1:0]  sum_o   // a_i + b_i
);

  localparam int unsigned HighW = Width - ShortW;

  logic [ShortW-1:0] low;    // sum bits ShortW - 1 .. 0
  logic              carry;  // their carry out
  logic [HighW-1:0]  inc;    // a_i's high bits plus one

  // Low bits: g = generate, p = propagate over a span that doubles each step. Each step is
  // written on whole vectors (bit i takes bit i - span; the bits below span keep theirs): the
  // same gates as a loop over the bits, and a few word operations for the simulator instead of
  // one per bit.
  always_comb begin
    logic [ShortW-1:0] g, p;
    g = a_i[ShortW-1:0] & b_i;
    p = a_i[ShortW-1:0] ^ b_i;
    for (int span = 1; span < ShortW; span = 2 * span) begin
      g = g | (p & (g << span));
      p = p & ~(~p << span);  // ones shift in: p[i] ends as the propagate of bits i..0
    end
    low   = a_i[ShortW-1:0] ^ b_i ^ ShortW'({g, 1'b0});
    carry = g[ShortW-1];
  end

  // High bits plus one: bit i flips when every high bit below it is one.
  always_comb begin
    logic [HighW-1:0] ones;
    ones = HighW'({a_i[Width-1:ShortW], 1'b1});
    for (int span = 1; span < HighW; span = 2 * span) ones = ones & ~(~ones << span);
    inc = a_i[Width-1:ShortW] ^ ones;
  end

  assign sum_o = {carry ? inc : a_i[Width-1:ShortW], low};

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(ShortWLegal, ShortW >= 1 && ShortW < Width)

endmodule
