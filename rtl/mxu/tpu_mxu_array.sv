// N x N grid of weight-stationary PEs, with no skew or control logic.
//
// Row k of the grid multiplies activation lane k; column c produces output lane c. Activations
// enter on the west edge and move east, partial sums start at zero on the north edge and move
// south, weights enter on the south edge and move north. Callers present activation lane k
// k cycles late and weight lane c c cycles late (tpu_skew); column c's sum leaves the south
// edge N + 1 + c cycles after lane 0 of its row entered (each PE registers its product, then
// adds it a cycle later: tpu_mxu_pe). This is also the "bare array" that the
// benchmark measures simulation speed against. Port lanes are packed flat (lane i at bits
// [i*Width +: Width]) because Yosys 0.23 reads only one packed dimension.
module tpu_mxu_array #(
  parameter int unsigned N        = tpu_pkg::MxuDim,       // rows and columns of PEs
  parameter int unsigned InWidth  = tpu_pkg::MxuInWidth,   // activation and weight bits
  parameter int unsigned AccWidth = tpu_pkg::MxuAccWidth,  // partial-sum bits
  // simulation only: above this N the grid runs as loops, not PE instances (as in tpu_mxu)
  parameter int unsigned SimLoopsAbove = 32
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,      // unused: the PEs have no reset
  input  logic [N*InWidth-1:0]    act_i,       // west edge, lane k = grid row k
  input  logic [N-1:0]            act_sel_i,   // weight bank of each lane
  input  logic [N*InWidth-1:0]    weight_i,    // south edge, lane c = grid column c
  input  logic [N-1:0]            wshift_i,    // per column: weight pipe moves north
  input  logic [N-1:0]            wcapture_i,  // per column: banks take the weights
  input  logic [N-1:0]            wbank_i,     // per column: bank written on capture
  output logic [N*AccWidth-1:0]   psum_o       // south edge, lane c = grid column c
);

  // Two descriptions of the same grid. Synthesis and small simulations use PE instances
  // (tpu_mxu_pe). A simulator flattens every instance into straight-line code, which grows with
  // N^2 (at N = 256 it does not compile in useful time), so Verilator builds above
  // SimLoopsAbove use g_loops instead: the same registers as arrays, updated by loops that stay
  // loops in C++. tests/rtl/mxu runs both forms against the golden GEMM.
`ifdef VERILATOR
  localparam bit Loops = N > SimLoopsAbove;
`else
  localparam bit Loops = 1'b0;
`endif

  if (!Loops) begin : g_pes
    // Nets between neighbours, as unpacked arrays (one small variable per net keeps Verilator
    // fast; Yosys turns them into plain wires). act[k][c] and act_sel[k][c] enter PE(k,c) from
    // the west (c = N: the east edge); psum[r][c] enters PE(r,c) from the north (r = N: the
    // south edge); weight[r][c] leaves PE(r,c) to the north (r = N: the south edge input).
    logic [InWidth-1:0]  act     [N][N+1];
    logic                act_sel [N][N+1];
    logic [AccWidth-1:0] psum    [N+1][N];
    logic [InWidth-1:0]  weight  [N+1][N];

    for (genvar k = 0; k < N; k++) begin : g_row
      assign act[k][0]     = act_i[k*InWidth +: InWidth];
      assign act_sel[k][0] = act_sel_i[k];
      for (genvar c = 0; c < N; c++) begin : g_col
        tpu_mxu_pe #(
          .InWidth (InWidth),
          .AccWidth(AccWidth)
        ) u_pe (
          .clk_i     (clk_i),
          .act_i     (act[k][c]),
          .act_sel_i (act_sel[k][c]),
          .psum_i    (psum[k][c]),
          .weight_i  (weight[k+1][c]),
          .wshift_i  (wshift_i[c]),
          .wcapture_i(wcapture_i[c]),
          .wbank_i   (wbank_i[c]),
          .act_o     (act[k][c+1]),
          .act_sel_o (act_sel[k][c+1]),
          .psum_o    (psum[k+1][c]),
          .weight_o  (weight[k][c])
        );
      end
    end

    for (genvar c = 0; c < N; c++) begin : g_edge
      assign psum[0][c]                     = '0;
      assign weight[N][c]                   = weight_i[c*InWidth +: InWidth];
      assign psum_o[c*AccWidth +: AccWidth] = psum[N][c];
    end

    // The east edge's activations and the north edge's weights leave the array unused.
    logic [N-1:0] unused_edges;
    for (genvar i = 0; i < N; i++) begin : g_unused
      assign unused_edges[i] = ^{act[i][N], act_sel[i][N], weight[0][i]};
    end
  end
`ifdef VERILATOR
  else begin : g_loops
    // PE (r, c) at index r * N + c, with the same registers and next-state functions as
    // tpu_mxu_pe. One process owns the state and updates it in place with blocking
    // assignments, in an order that reads every register before overwriting it: partial sums
    // and activations move south and east, so rows and columns are visited last to first
    // (using the banks before they change); then the weight pipe moves north, so rows are
    // visited first to last, and the banks capture. Loops over a flat index stay loops in the
    // simulator's C++ (an unpacked array assigned whole with <= would be copied element by
    // element). Nothing outside this process reads the state: the south edge leaves through
    // psum_q, assigned with <= like any register, so consumers see no race.
    localparam int unsigned Pes = N * N;
    logic signed [InWidth-1:0]  act [Pes], wpipe [Pes], bank0 [Pes], bank1 [Pes];
    logic signed [2*InWidth-1:0] prod [Pes];
    logic                       sel [Pes];
    logic signed [AccWidth-1:0] psum [Pes];
    logic [N*AccWidth-1:0]      psum_q;

    /* verilator lint_off BLKSEQ */
    always_ff @(posedge clk_i) begin
      for (int i = Pes - 1; i >= 0; i--) begin
        automatic int r = i / N;
        automatic int c = i % N;
        automatic logic signed [InWidth-1:0] a;       // from the west: act_i of PE (r, c)
        automatic logic s;
        automatic logic signed [InWidth-1:0] w;       // the bank s selects
        automatic logic signed [AccWidth-1:0] p_in;   // from the north
        a        = (c == 0) ? act_i[r*InWidth +: InWidth] : act[i-1];
        s        = (c == 0) ? act_sel_i[r] : sel[i-1];
        w        = s ? bank1[i] : bank0[i];
        p_in     = (r == 0) ? '0 : psum[i-N];
        psum[i]  = p_in + AccWidth'(prod[i]);            // the product registered last cycle
        prod[i]  = (2*InWidth)'(a) * (2*InWidth)'(w);  // sign-extended operands
        act[i]   = a;
        sel[i]   = s;
      end
      for (int i = 0; i < Pes; i++) begin
        automatic int r = i / N;
        automatic int c = i % N;
        automatic logic signed [InWidth-1:0] w_in;
        w_in = (r == N - 1) ? weight_i[c*InWidth +: InWidth] : wpipe[i+N];
        if (wcapture_i[c] && !wbank_i[c]) bank0[i] = w_in;
        if (wcapture_i[c] &&  wbank_i[c]) bank1[i] = w_in;
        if (wshift_i[c]) wpipe[i] = w_in;
      end
      for (int c = 0; c < N; c++) psum_q[c*AccWidth +: AccWidth] <= psum[(N-1)*N + c];
    end
    /* verilator lint_on BLKSEQ */

    assign psum_o = psum_q;
  end
`endif

  // The PEs hold datapath only and have no reset; the port stays so that the array is a
  // top like every other (the benchmark's harness drives rst_ni).
  logic unused_rst_n;
  assign unused_rst_n = rst_ni;

endmodule
