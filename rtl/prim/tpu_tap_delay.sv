`include "tpu_assert.svh"

// One reset delay line tapped after every stage: tap d of taps_o is in_i delayed d + 1 cycles.
// Carries the valid and control bits of data that tpu_skew delays by a different amount per
// lane: lane i reads the tap of its own delay, so the bits are stored once, not once per lane
// (at N = 256 that saves some 130,000 flip-flops in the MXU). Reset clears every stage, so no
// stale valid or weight-capture bit leaves the line after reset.
module tpu_tap_delay #(
  parameter int unsigned Width = 1,  // bits per stage
  parameter int unsigned Depth = 1   // stages, i.e. the longest delay, in cycles
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic [Width-1:0]       in_i,    // bits entering the line
  output logic [Depth*Width-1:0] taps_o   // stage d (delay d + 1) at bits [d*Width +: Width]
);

  logic [Depth*Width-1:0] line_q, line_d;

  if (Depth == 1) begin : g_one
    assign line_d = in_i;
  end else begin : g_many
    assign line_d = {line_q[(Depth-1)*Width-1:0], in_i};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) line_q <= '0;
    else         line_q <= line_d;
  end

  assign taps_o = line_q;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(DepthNonZero, Depth > 0)

endmodule
