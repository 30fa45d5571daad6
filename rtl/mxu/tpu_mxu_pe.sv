// Weight-stationary MXU processing element.
//
// Holds two weight banks: the one an activation selects (`act_sel_i`, which travels east with
// the activation) is used, the other can be overwritten with the next tile at the same time.
// Two stages: the product act_i * bank[act_sel_i] is registered (prod_q), and the partial sum
// psum_o = psum_i + prod_q one cycle later; act_i and act_sel_i pass east registered (1 cycle).
// Every PE adds the same cycle, so the sums meet the products of their own row: the sum from
// the north left its PE one cycle after that PE's product was registered, as this one's is. The
// multiply and the add in one cycle were the MXU's critical path (the bank select, an 8 x 8
// multiply and a 32-bit add); split, the array runs faster at the cost of 16 flip-flops per PE
// and one cycle of latency. Weights move north through `wpipe`, one register per PE, while
// `wshift_i` is high; `wcapture_i` copies the weight arriving from the south into bank
// `wbank_i` (see tpu_mxu_weight_ctrl for the timing that makes this safe). Every register is
// datapath, so the PE has no reset (see below).
module tpu_mxu_pe #(
  parameter int unsigned InWidth  = tpu_pkg::MxuInWidth,   // activation and weight bits
  parameter int unsigned AccWidth = tpu_pkg::MxuAccWidth   // partial-sum bits
) (
  input  logic                       clk_i,
  input  logic signed [InWidth-1:0]  act_i,       // activation from the PE to the west
  input  logic                       act_sel_i,   // weight bank this activation uses
  input  logic signed [AccWidth-1:0] psum_i,      // partial sum from the PE to the north
  input  logic signed [InWidth-1:0]  weight_i,    // weight from the PE to the south
  input  logic                       wshift_i,    // weight pipe moves one PE north
  input  logic                       wcapture_i,  // bank wbank_i takes weight_i
  input  logic                       wbank_i,     // bank written by wcapture_i
  output logic signed [InWidth-1:0]  act_o,       // activation to the PE to the east
  output logic                       act_sel_o,   // its bank select, to the east
  output logic signed [AccWidth-1:0] psum_o,      // partial sum to the PE to the south
  output logic signed [InWidth-1:0]  weight_o     // weight to the PE to the north
);

  logic signed [InWidth-1:0]  act_q, wpipe_q, wpipe_d;
  logic                       act_sel_q;
  logic signed [AccWidth-1:0] psum_q, psum_d;
  logic signed [InWidth-1:0]  bank0_q, bank0_d, bank1_q, bank1_d;
  logic signed [InWidth-1:0]  weight;     // the bank the activation selects
  logic signed [2*InWidth-1:0] prod_d;  // an int8 x int8 product fits 16 bits
  // keep: Yosys 0.23's iCE40 DSP packing (synth_ice40 -dsp) crashes when it may fold this
  // register into the SB_MAC16 of a whole array; kept as a plain register it maps to one DSP
  // per PE and its flip-flops. No other flow is affected (the register is real either way).
  (* keep *) logic signed [2*InWidth-1:0] prod_q;

  always_comb begin
    weight  = act_sel_i ? bank1_q : bank0_q;
    prod_d  = (2*InWidth)'(act_i) * (2*InWidth)'(weight);  // sign-extended operands
    psum_d  = psum_i + AccWidth'(prod_q);  // sign-extended
    wpipe_d = wshift_i ? weight_i : wpipe_q;
    bank0_d = (wcapture_i && !wbank_i) ? weight_i : bank0_q;
    bank1_d = (wcapture_i &&  wbank_i) ? weight_i : bank1_q;
  end

  // Datapath only, so no reset (81 flip-flops per PE, most of the chip at N = 256): what these
  // hold before the first row or tile is never observed. A valid row's partial sum starts from
  // the constant zero on the array's north edge and each PE overwrites its prod_q, psum_q, act_q
  // and act_sel_q with that row's values as it passes; the bank it selects was captured from a
  // tile before the row entered (the controller rejects a MATMUL that uses no tile, NO_TILE);
  // the weight pipe is only captured after N shifts have filled it. The weight pipe and the
  // banks only change on wshift_i / wcapture_i, whose lines in tpu_mxu are reset.
  always_ff @(posedge clk_i) begin
    act_q     <= act_i;
    act_sel_q <= act_sel_i;
    prod_q    <= prod_d;
    psum_q    <= psum_d;
    wpipe_q   <= wpipe_d;
    bank0_q   <= bank0_d;
    bank1_q   <= bank1_d;
  end

  assign act_o     = act_q;
  assign act_sel_o = act_sel_q;
  assign psum_o    = psum_q;
  assign weight_o  = wpipe_q;

endmodule
