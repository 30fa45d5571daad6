`include "tpu_assert.svh"

// Rounded average of a pooling window, exactly as TFLite's integer reference
// (host_driver/golden/pool.cpp): sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count
// with C++ truncating division, i.e. round to nearest, halves away from zero.
//
// Truncation is symmetric, so avg = sign(sum) * floor(num / count) with num = |sum| +
// floor(count / 2). The floor division is a restoring long division that produces the QuotWidth
// low quotient bits; it is exact whenever the quotient fits them, i.e. num < count * 2^QuotWidth.
// A window of count int8 elements has |sum| <= 128 * count, so num < 129 * count and the rounded
// average (at most 128 in magnitude) needs QuotWidth = 8. tests/rtl/act/pool checks this module
// exhaustively over every count and every sum of that domain. Combinational: QuotWidth
// subtract-and-select steps of clog2(MaxCount + 1) + 1 bits.
module tpu_act_pool_div #(
  parameter int unsigned SumWidth  = 12,  // bits of the signed window sum
  parameter int unsigned MaxCount  = 16,  // largest element count of a window
  parameter int unsigned QuotWidth = 8    // quotient bits (int8 averages need 8)
) (
  input  logic signed [SumWidth-1:0]      sum_i,    // sum of the window's elements
  input  logic [$clog2(MaxCount + 1)-1:0] count_i,  // elements in the window, 1..MaxCount
  output logic signed [SumWidth-1:0]      avg_o     // rounded average
);

  localparam int unsigned CountWidth = $clog2(MaxCount + 1);

  logic                  neg;
  logic [SumWidth-1:0]   mag, num;
  logic [CountWidth-1:0] rem;
  logic [CountWidth:0]   trial;
  logic [QuotWidth-1:0]  quot;

  always_comb begin
    neg = sum_i[SumWidth-1];
    mag = neg ? SumWidth'(-sum_i) : SumWidth'(sum_i);  // 2^(SumWidth-1) for the most negative
    num = mag + SumWidth'(count_i[CountWidth-1:1]);
    // The bits above the quotient's are a remainder below count (the domain above).
    rem   = CountWidth'(num >> QuotWidth);
    trial = '0;
    quot  = '0;
    for (int i = QuotWidth - 1; i >= 0; i--) begin
      trial = {rem, num[i]};
      if (trial >= {1'b0, count_i}) begin
        quot[i] = 1'b1;
        trial   = trial - {1'b0, count_i};
      end
      rem = trial[CountWidth-1:0];
    end
    avg_o = neg ? -$signed(SumWidth'(quot)) : $signed(SumWidth'(quot));
  end

  `TPU_ASSERT_INIT(DivWidthsFit, MaxCount >= 2 && QuotWidth < SumWidth)

endmodule
