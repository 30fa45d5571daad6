`include "tpu_assert.svh"

// Rounded average of a pooling window, exactly as TFLite's integer reference
// (host_driver/golden/pool.cpp): sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count
// with C++ truncating division, i.e. round to nearest, halves away from zero.
//
// The divide is a multiply by a reciprocal of the count, prepared a cycle earlier: the count is
// known a stage before the sum, so the pooling unit registers recip_o (from count_i) and hands it
// back as recip_i with the sum. Only the multiply and one add then stay in the sum's cycle
// (the restoring long division this replaces was 94 gate levels deep, this 44).
//
// With c = count, h = floor(c / 2) and B = 2^QuotWidth:
//   sum >= 0: avg = floor((sum + h) / c)
//   sum <  0: avg = -floor((-sum + h) / c) = floor((sum + c - 1 - h) / c)
// so avg = floor(u / c) - B with u = sum + k + B * c, k = h or c - 1 - h by the sum's sign, and
// u >= 0 over the domain below. floor(u / c) = (u * m) >> S with m = ceil(2^S / c) is exact for
// every u < 2^UW when S = UW + clog2(MaxCount) (the error u * (m * c - 2^S) / 2^S stays below
// 1 / c). The sum's cycle computes u * m as sum * m + (k + B * c) * m, the second term one of
// two prepared constants, so the add merges into the multiply's adder tree. floor(u / c) is in
// [0, 2B), and subtracting B only flips its top bit.
//
// Domain: |sum| + h < B * c, which holds for every sum of count int8 values (|sum| <= 128 *
// count) with QuotWidth = 8. tests/rtl/act/pool checks this module exhaustively over every count
// and every sum of that domain. Combinational, in two independent halves: count_i -> recip_o
// (a table of three constants per count) and sum_i, recip_i -> avg_o.
module tpu_act_pool_div #(
  parameter int unsigned SumWidth  = 12,  // bits of the signed window sum
  parameter int unsigned MaxCount  = 16,  // largest element count of a window
  parameter int unsigned QuotWidth = 8,   // quotient bits (int8 averages need 8)
  // Bits of the prepared reciprocal: three fields of 2 * SumWidth + clog2(MaxCount) + 3 bits.
  parameter int unsigned RecipWidth = 3 * (2 * SumWidth + $clog2(MaxCount) + 3)
) (
  // Preparation, a cycle ahead of the sum.
  input  logic [$clog2(MaxCount + 1)-1:0] count_i,  // elements in the window, 1..MaxCount
  output logic [RecipWidth-1:0]           recip_o,  // the count's constants, for recip_i
  // The divide.
  input  logic signed [SumWidth-1:0]      sum_i,    // sum of the window's elements
  input  logic [RecipWidth-1:0]           recip_i,  // recip_o of the sum's count
  output logic signed [SumWidth-1:0]      avg_o     // rounded average
);

  localparam int unsigned CountWidth = $clog2(MaxCount + 1);
  localparam int unsigned Bias       = 1 << QuotWidth;             // B
  localparam int unsigned UW         = SumWidth + 1;               // bits of u
  localparam int unsigned S          = UW + $clog2(MaxCount);      // reciprocal's scale
  localparam int unsigned MW         = S + 1;                      // bits of m (2^S for c = 1)
  localparam int unsigned PW         = UW + MW;                    // bits of u * m
  localparam logic [CountWidth-1:0] CountOne = 1;

  // ---------------------------------------------------------------------------------------
  // Preparation: m, (h + B * c) * m and (c - 1 - h + B * c) * m for the count.
  // ---------------------------------------------------------------------------------------
  logic [CountWidth-1:0] half, less_one;  // h, c - 1
  logic [UW-1:0]         k_pos, k_neg;
  logic [MW-1:0] m_prep;
  logic [PW-1:0] km_pos_prep, km_neg_prep;

  always_comb begin
    m_prep = '0;
    for (int unsigned c = 1; c <= MaxCount; c++) begin
      if (count_i == CountWidth'(c)) m_prep = MW'(((64'd1 << S) + 64'(c) - 64'd1) / 64'(c));
    end
    half        = count_i >> 1;
    less_one    = count_i - CountOne;
    k_pos       = UW'(half) + (UW'(count_i) << QuotWidth);
    k_neg       = UW'(less_one) - UW'(half) + (UW'(count_i) << QuotWidth);
    km_pos_prep = PW'(k_pos) * PW'(m_prep);
    km_neg_prep = PW'(k_neg) * PW'(m_prep);
    recip_o     = RecipWidth'({km_pos_prep, km_neg_prep, PW'(m_prep)});
  end

  // ---------------------------------------------------------------------------------------
  // Divide: u * m = sum * m + k-term, then bits [S, S + QuotWidth] with the top bit flipped.
  // ---------------------------------------------------------------------------------------
  logic [PW-1:0] km_pos, km_neg;
  /* verilator lint_off UNUSEDSIGNAL */  // the bits below S are the fraction; m <= 2^S
  logic [PW-1:0] prod, m_wide;
  logic [MW-1:0] m;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [QuotWidth:0] quot_biased;

  always_comb begin
    {km_pos, km_neg, m_wide} = recip_i;
    m           = m_wide[MW-1:0];
    // Both operands signed: the sum sign-extends, m (positive) gets a zero sign bit.
    prod        = PW'($signed(sum_i) * $signed({1'b0, m})) +
                  (sum_i[SumWidth-1] ? km_neg : km_pos);
    quot_biased = prod[S +: QuotWidth + 1];
    avg_o       = SumWidth'($signed({~quot_biased[QuotWidth], quot_biased[QuotWidth-1:0]}));
  end

  // u < 2^UW: |sum| < 2^(SumWidth - 1), k + B * c < (B + 1) * MaxCount.
  `TPU_ASSERT_INIT(DivWidthsFit, MaxCount >= 2 && QuotWidth < SumWidth &&
                   (1 << (SumWidth - 1)) + (Bias + 1) * MaxCount < (1 << UW) &&
                   RecipWidth == 3 * PW)

endmodule
