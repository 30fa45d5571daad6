`include "tpu_assert.svh"

// Matrix multiply unit: an N x N weight-stationary systolic array with double-buffered weights.
//
// Users stream plain rows: a weight tile is N beats of weight_row_i (tile row k first to last,
// row k multiplying activation column k; weight_row_i[c] feeds output column c), and each
// activation row act_row_i leaves as out_row_o[c] = sum_k act_row_i[k] * W[k][c] exactly
// 2N + 1 cycles after it was accepted (the PEs register their products: tpu_mxu_pe), with its
// act_tag_i on out_tag_o. A row with act_new_tile_i set switches to the most recently loaded
// tile; rows without it keep the current tile. The next
// tile loads while the current one computes and the switch costs no bubble, so weight loading
// is hidden whenever each tile is used for at least N rows (see tpu_mxu_weight_ctrl). Inputs
// are skewed and results de-skewed inside. Results have no back-pressure: the consumer (the
// accumulators) takes one row per cycle.
module tpu_mxu #(
  parameter int unsigned N        = tpu_pkg::MxuDim,       // array rows and columns
  parameter int unsigned InWidth  = tpu_pkg::MxuInWidth,   // activation and weight bits
  parameter int unsigned AccWidth = tpu_pkg::MxuAccWidth,  // partial-sum bits
  parameter int unsigned TagWidth = tpu_pkg::MxuTagWidth,  // user bits carried with each row
  // simulation only: above this N the array and skew lines run as loops (tpu_mxu_array)
  parameter int unsigned SimLoopsAbove = 32
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,
  // Weight tiles, one row per beat.
  input  logic                        weight_valid_i,  // weight_row_i holds a tile row
  output logic                        weight_ready_o,  // ... and is taken this cycle
  input  logic [N*InWidth-1:0]        weight_row_i,    // int8 per output column c, at c*8
  // Activation rows.
  input  logic                        act_valid_i,     // act_row_i holds a row
  output logic                        act_ready_o,     // ... and is taken this cycle
  input  logic                        act_new_tile_i,  // row starts using the loaded tile
  input  logic [N*InWidth-1:0]        act_row_i,       // int8 per input column k, at k*8
  input  logic [TagWidth-1:0]         act_tag_i,       // returned with the row's result
  // Results, 2N + 1 cycles after their activation row.
  output logic                        out_valid_o,     // out_row_o holds a result row
  output logic [N*AccWidth-1:0]       out_row_o,       // int32 per output column c, at c*32
  output logic [TagWidth-1:0]         out_tag_o,       // the row's act_tag_i
                                                       // (both undefined while !out_valid_o)
  // Status.
  output logic                        tile_loaded_o    // a loaded tile waits for new_tile
);

  localparam int unsigned Latency = 2 * N + 1;  // acceptance to result: the lane delays below
  localparam bit SimLoops = N > SimLoopsAbove;  // large arrays: simulate as loops and rings

  // ---------------------------------------------------------------------------------------
  // Control
  // ---------------------------------------------------------------------------------------
  logic weight_shift, weight_capture, weight_bank, act_sel, act_fire;

  tpu_mxu_weight_ctrl #(
    .N(N)
  ) u_weight_ctrl (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .weight_valid_i  (weight_valid_i),
    .weight_ready_o  (weight_ready_o),
    .weight_shift_o  (weight_shift),
    .weight_capture_o(weight_capture),
    .weight_bank_o   (weight_bank),
    .act_valid_i     (act_valid_i),
    .act_new_tile_i  (act_new_tile_i),
    .act_ready_o     (act_ready_o),
    .act_sel_o       (act_sel),
    .tile_loaded_o   (tile_loaded_o)
  );

  assign act_fire = act_valid_i && act_ready_o;

  // ---------------------------------------------------------------------------------------
  // Input skew: activation lane k enters the array 1 + k cycles after acceptance, weight
  // lane c 1 + c cycles after. The data lanes (tpu_skew, no reset) carry only data; the bits
  // that say what the data means travel on two shared, reset lines that each lane taps at its
  // own delay (tpu_tap_delay): {accepted, bank select} for the rows, 2N + 1 long so that its last
  // stage is also the result's valid bit, and {shift, capture, bank} for the weights.
  //
  // The inputs go in as they are, not gated with their valid bits: a cycle without a row or a
  // beat puts junk on the lanes, and that is safe. A row's partial sum starts from the zero on
  // the array's north edge and meets only that row's activations (each PE passes activation
  // and sum on in step), so a junk activation only makes a junk sum that leaves with
  // out_valid_o low; the weight pipe and the banks only take a lane's weight when its shift
  // or capture bit, from the reset control line, says so. out_row_o and out_tag_o are junk
  // while out_valid_o is low, and every user reads them only with out_valid_o.
  // ---------------------------------------------------------------------------------------
  localparam int unsigned ActCtrlW    = 2;  // {accepted, bank select}
  localparam int unsigned WeightCtrlW = 3;  // {shift, capture, bank}

  logic [Latency*ActCtrlW-1:0] act_ctrl_taps;
  logic [N*WeightCtrlW-1:0]    weight_ctrl_taps;
  logic [N*InWidth-1:0]        arr_act, arr_weight;

  tpu_skew #(
    .Lanes(N), .Width(InWidth), .Base(1), .Reverse(1'b0), .SimRing(SimLoops)
  ) u_act_skew (
    .clk_i(clk_i),
    .in_i (act_row_i),
    .out_o(arr_act)
  );

  tpu_tap_delay #(
    .Width(ActCtrlW), .Depth(Latency)
  ) u_act_ctrl (
    .clk_i (clk_i),
    .rst_ni(rst_ni),
    .in_i  ({act_fire, act_sel}),
    .taps_o(act_ctrl_taps)
  );

  tpu_skew #(
    .Lanes(N), .Width(InWidth), .Base(1), .Reverse(1'b0), .SimRing(SimLoops)
  ) u_weight_skew (
    .clk_i(clk_i),
    .in_i (weight_row_i),
    .out_o(arr_weight)
  );

  tpu_tap_delay #(
    .Width(WeightCtrlW), .Depth(N)
  ) u_weight_ctrl_line (
    .clk_i (clk_i),
    .rst_ni(rst_ni),
    .in_i  ({weight_shift, weight_capture, weight_bank}),
    .taps_o(weight_ctrl_taps)
  );

  // ---------------------------------------------------------------------------------------
  // Array
  // ---------------------------------------------------------------------------------------
  logic [N-1:0]          arr_sel, arr_shift, arr_capture, arr_bank;
  logic [N*AccWidth-1:0] arr_psum;

  // Lane i enters 1 + i cycles after acceptance: tap i of each control line.
  always_comb begin
    for (int i = 0; i < N; i++) begin
      arr_sel[i] = act_ctrl_taps[i*ActCtrlW];
      {arr_shift[i], arr_capture[i], arr_bank[i]} = weight_ctrl_taps[i*WeightCtrlW +: WeightCtrlW];
    end
  end

  // Only the last stage's accepted bit is used (as out_valid_o); the others are the stages
  // the bank selects share.
  logic unused_act_ctrl;
  always_comb begin
    unused_act_ctrl = 1'b0;
    for (int d = 0; d < Latency - 1; d++) unused_act_ctrl ^= act_ctrl_taps[d*ActCtrlW + 1];
    for (int d = N; d < Latency; d++) unused_act_ctrl ^= act_ctrl_taps[d*ActCtrlW];
  end

  tpu_mxu_array #(
    .N       (N),
    .InWidth (InWidth),
    .AccWidth     (AccWidth),
    .SimLoopsAbove(SimLoopsAbove)
  ) u_array (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .act_i     (arr_act),
    .act_sel_i (arr_sel),
    .weight_i  (arr_weight),
    .wshift_i  (arr_shift),
    .wcapture_i(arr_capture),
    .wbank_i   (arr_bank),
    .psum_o    (arr_psum)
  );

  // ---------------------------------------------------------------------------------------
  // Output de-skew: column c leaves the array N + 2 + c cycles after acceptance (lane 0 enters
  // after 1, the sum takes N + 1 + c: tpu_mxu_array); delaying it N - 1 - c more lines all
  // columns up at 2N + 1.
  // ---------------------------------------------------------------------------------------
  tpu_skew #(
    .Lanes(N), .Width(AccWidth), .Base(0), .Reverse(1'b1), .SimRing(SimLoops)
  ) u_out_deskew (
    .clk_i(clk_i),
    .in_i (arr_psum),
    .out_o(out_row_o)
  );

  // The valid bit is the act control line's last stage; the tag (data) takes the same 2N + 1
  // cycles on its own line.
  assign out_valid_o = act_ctrl_taps[(Latency-1)*ActCtrlW + 1];

  tpu_skew #(
    .Lanes(1), .Width(TagWidth), .Base(Latency), .Reverse(1'b0)
  ) u_tag_delay (
    .clk_i(clk_i),
    .in_i (act_tag_i),
    .out_o(out_tag_o)
  );

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(InWidthFitsAcc, 2 * InWidth <= AccWidth)
  `TPU_ASSERT(NoXOnValid, !$isunknown(weight_valid_i) && !$isunknown(act_valid_i), clk_i, rst_ni)

endmodule
