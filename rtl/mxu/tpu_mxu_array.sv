// N x N grid of weight-stationary PEs, with no skew or control logic.
//
// Row k of the grid multiplies activation lane k; column c produces output lane c. Activations
// enter on the west edge and move east, partial sums start at zero on the north edge and move
// south, weights enter on the south edge and move north. Callers present activation lane k
// k cycles late and weight lane c c cycles late (tpu_skew); column c's sum leaves the south
// edge N + c cycles after lane 0 of its row entered. This is also the "bare array" that the
// benchmark measures simulation speed against. Lanes are packed flat (lane i at bits
// [i*Width +: Width]) because Yosys 0.23 reads only one packed dimension.
module tpu_mxu_array #(
  parameter int unsigned N        = tpu_pkg::MxuDim,       // rows and columns of PEs
  parameter int unsigned InWidth  = tpu_pkg::MxuInWidth,   // activation and weight bits
  parameter int unsigned AccWidth = tpu_pkg::MxuAccWidth   // partial-sum bits
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic [N*InWidth-1:0]    act_i,       // west edge, lane k = grid row k
  input  logic [N-1:0]            act_sel_i,   // weight bank of each lane
  input  logic [N*InWidth-1:0]    weight_i,    // south edge, lane c = grid column c
  input  logic [N-1:0]            wshift_i,    // per column: weight pipe moves north
  input  logic [N-1:0]            wcapture_i,  // per column: banks take the weights
  input  logic [N-1:0]            wbank_i,     // per column: bank written on capture
  output logic [N*AccWidth-1:0]   psum_o       // south edge, lane c = grid column c
);

  // Nets between neighbours, flattened. Horizontal nets (activation, bank select) are indexed
  // k * (N + 1) + c: the one entering PE(k,c) from the west, c = N being the east edge.
  // Vertical nets are indexed r * N + c: psum r enters PE(r,c) from the north (r = N: south
  // edge); weight r leaves PE(r,c) to the north (r = N: the south edge input).
  logic [N*(N+1)*InWidth-1:0]  act;
  logic [N*(N+1)-1:0]          act_sel;
  logic [(N+1)*N*AccWidth-1:0] psum;
  logic [(N+1)*N*InWidth-1:0]  weight;

  for (genvar k = 0; k < N; k++) begin : g_row
    localparam int unsigned West = k * (N + 1);
    assign act[West*InWidth +: InWidth] = act_i[k*InWidth +: InWidth];
    assign act_sel[West]                = act_sel_i[k];
    for (genvar c = 0; c < N; c++) begin : g_col
      localparam int unsigned H = k * (N + 1) + c;  // horizontal net entering from the west
      localparam int unsigned V = k * N + c;        // vertical net on this PE's north side
      tpu_mxu_pe #(
        .InWidth (InWidth),
        .AccWidth(AccWidth)
      ) u_pe (
        .clk_i     (clk_i),
        .rst_ni    (rst_ni),
        .act_i     (act[H*InWidth +: InWidth]),
        .act_sel_i (act_sel[H]),
        .psum_i    (psum[V*AccWidth +: AccWidth]),
        .weight_i  (weight[(V+N)*InWidth +: InWidth]),
        .wshift_i  (wshift_i[c]),
        .wcapture_i(wcapture_i[c]),
        .wbank_i   (wbank_i[c]),
        .act_o     (act[(H+1)*InWidth +: InWidth]),
        .act_sel_o (act_sel[H+1]),
        .psum_o    (psum[(V+N)*AccWidth +: AccWidth]),
        .weight_o  (weight[V*InWidth +: InWidth])
      );
    end
  end

  assign psum[0 +: N*AccWidth]        = '0;
  assign weight[N*N*InWidth +: N*InWidth] = weight_i;
  assign psum_o                       = psum[N*N*AccWidth +: N*AccWidth];

  // The east edge's activations and the north edge's weights leave the array unused.
  logic [N-1:0] unused_east;
  for (genvar k = 0; k < N; k++) begin : g_east
    assign unused_east[k] = ^{act[(k*(N+1)+N)*InWidth +: InWidth], act_sel[k*(N+1)+N]};
  end
  logic unused_edges;
  assign unused_edges = ^{unused_east, weight[0 +: N*InWidth]};

endmodule
