`include "tpu_assert.svh"

// A signed multiply of logarithmic gate depth, registered in carry-save form: when en_i is
// set, the registers load two rows whose sum is a_i * b_i (both two's complement, the product
// exact), each split at bit Drop:
//   a_i * b_i  ==  {sum_o, low_sum_o} + {carry_o, low_carry_o}   (mod 2^(2 Width))
// The user adds them in the next stage. One that keeps only the product's bits from Drop up
// needs of the low parts only their carry into bit Drop: a prefix carry over Drop bits, beside
// the high parts' own prefix carries. Generic synthesis (Yosys 0.23) maps `*` to an array
// multiplier, a chain of adders (a 32 x 32 measured 85 to 111 two-input gates deep,
// docs/fpga.md, the logic-depth budget); this is a tree, about 30 levels at 32 x 32:
//  - Baugh-Wooley partial products: row i is a[i] * b << i with the bits that carry a sign
//    weight (exactly one of the two operand bits is the sign bit) inverted, and one constant
//    row, 2^Width + 2^(2 Width - 1), makes up for the inversions (mod 2^(2 Width)). Every row
//    is then a plain sum.
//  - A Wallace tree: each step adds rows three at a time into a sum and a carry row (a carry-
//    save adder, a few gates deep); n rows become 2 (n / 3) + n % 3 (33 -> 22 -> 15 -> 10 -> 7
//    -> 5 -> 4 -> 3 -> 2 at Width = 32).
// Every add is left to the next stage on purpose: in the same cycle as the tree, the depth
// flow's area rewriting (ABC's dc2) reshapes the whole cone into 85 levels or more, whatever
// the adder; and on an FPGA the low parts' carry after the tree was the requantization's
// critical path (docs/fpga.md). The tree is a function called under the enable, so that the
// Verilated model computes it only in the cycles the registers load (a combinational block
// would run every cycle); synthesis builds the same logic either way. Datapath registers: no
// reset.
module tpu_mul_csa_reg #(
  parameter int unsigned Width = 32,  // bits of each operand, 2 .. 32
  parameter int unsigned Drop  = 30   // where the rows split, 1 .. 2 Width - 2
) (
  input  logic                      clk_i,
  input  logic                      en_i,     // load the terms of a_i * b_i this cycle
  input  logic [Width-1:0]          a_i,      // signed
  input  logic [Width-1:0]          b_i,      // signed
  output logic [2*Width-Drop-1:0]   sum_o,        // registered: the sum row from bit Drop up
  output logic [2*Width-Drop-1:0]   carry_o,      // registered: the carry row from bit Drop up
  output logic [Drop-1:0]           low_sum_o,    // registered: the sum row's low Drop bits
  output logic [Drop-1:0]           low_carry_o   // registered: the carry row's low Drop bits
);

  localparam int unsigned PW   = 2 * Width;    // product bits
  localparam int unsigned Rows = Width + 1;    // partial products and the constant row

  // Carry-save steps from Rows rows to 2.
  function automatic int unsigned csa_steps(int unsigned rows);
    int unsigned n;
    n = rows;
    csa_steps = 0;
    for (int k = 0; k < 64; k++) begin
      if (n > 2) begin
        n = 2 * (n / 3) + n % 3;
        csa_steps++;
      end
    end
  endfunction

  localparam int unsigned Steps = csa_steps(Rows);
  localparam int          Left  = Rows % 3;  // rows not in a group of three

  // {carry row, sum row} of a * b.
  function automatic logic [2*PW-1:0] tree(logic [Width-1:0] a, logic [Width-1:0] b);
    logic [Rows*PW-1:0] rows, next;
    logic [PW-1:0] x, y, z;
    for (int i = 0; i < Width - 1; i++) begin
      rows[i*PW +: PW] = ({PW{a[i]}} & (PW'(b) << i)) ^ (PW'(1) << (i + Width - 1));
    end
    rows[(Width-1)*PW +: PW] = ({PW{a[Width-1]}} & (PW'(b) << (Width - 1))) ^
                               (((PW'(1) << (Width - 1)) - PW'(1)) << (Width - 1));
    rows[Width*PW +: PW] = (PW'(1) << Width) | (PW'(1) << (PW - 1));
    // Rows at and above the live count are zero: a group of them adds nothing, and the rows
    // left over from whole groups move down behind the groups' results.
    for (int s = 0; s < Steps; s++) begin
      next = '0;
      for (int t = 0; t < Rows / 3; t++) begin
        x = rows[(3*t)*PW +: PW];
        y = rows[(3*t+1)*PW +: PW];
        z = rows[(3*t+2)*PW +: PW];
        next[(2*t)*PW +: PW]   = x ^ y ^ z;
        next[(2*t+1)*PW +: PW] = ((x & y) | (z & (x ^ y))) << 1;
      end
      for (int k = 0; k < Left; k++) begin
        next[(2*(Rows/3)+k)*PW +: PW] = rows[(3*(Rows/3)+k)*PW +: PW];
      end
      rows = next;
    end
    tree = rows[2*PW-1:0];
  endfunction

  logic [2*PW-1:0] rows_q;  // {carry row, sum row}

  always_ff @(posedge clk_i) begin
    if (en_i) rows_q <= tree(a_i, b_i);
  end

  assign sum_o       = rows_q[PW-1:Drop];
  assign low_sum_o   = rows_q[Drop-1:0];
  assign carry_o     = rows_q[2*PW-1:PW+Drop];
  assign low_carry_o = rows_q[PW+Drop-1:PW];

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(WidthLegal, Width >= 2 && Width <= 32)
  `TPU_ASSERT_INIT(DropLegal, Drop >= 1 && Drop <= 2 * Width - 2)

endmodule
