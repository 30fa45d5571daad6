// Per-lane data delay lines: lane i of in_i leaves on out_o after Base + i cycles, or after
// Base + (Lanes - 1 - i) cycles when Reverse is set. Skews activation and weight rows into the
// systolic array, de-skews its results, and (Lanes = 1) delays a tag by a fixed latency.
//
// Data only, so no reset: the lines hold Lanes * (Base + (Lanes - 1) / 2) * Width flip-flops
// (1.58 M in the MXU at N = 256), and what they hold before the first valid input is never used.
// The valid and control bits that say when a lane's data matters travel on one shared, reset
// tpu_tap_delay line instead (lane i taps it at its own delay).
module tpu_skew #(
  parameter int unsigned Lanes   = 4,  // independent lanes
  parameter int unsigned Width   = 8,  // bits per lane
  parameter int unsigned Base    = 0,  // delay of the least delayed lane, in cycles
  parameter bit          Reverse = 0,  // 0: lane 0 least delayed; 1: lane Lanes-1 least delayed
  parameter bit          SimRing = 0   // simulation only: one ring buffer instead (see below)
) (
  input  logic                   clk_i,
  input  logic [Lanes*Width-1:0] in_i,   // lanes in, lane i at bits [i*Width +: Width]
  output logic [Lanes*Width-1:0] out_o   // the same lanes, each delayed
);

  // Two descriptions of the same lines. Synthesis and small simulations use one shift
  // register per lane: Lanes * (Lanes - 1) / 2 registers, which a simulator turns into as
  // many copies a cycle and as many lines of code (the MXU's three lines at N = 256 are over
  // 98,000 registers). With SimRing, Verilator builds keep one ring buffer of whole rows
  // instead: each cycle writes the input row once, and lane i reads the row written Depth(i)
  // cycles ago, so a cycle costs one row, not Lanes^2 / 2 lanes. tests/rtl/mxu runs both.
`ifdef VERILATOR
  localparam bit Ring = SimRing;
`else
  localparam bit Ring = 1'b0;
`endif

  if (!Ring) begin : g_shift
    for (genvar i = 0; i < Lanes; i++) begin : g_lane
      localparam int unsigned Depth = Base + (Reverse ? Lanes - 1 - i : i);
      if (Depth == 0) begin : g_wire
        assign out_o[i*Width +: Width] = in_i[i*Width +: Width];
      end else begin : g_regs
        // One register per stage; stage 0 takes the input.
        logic [Width-1:0] sr_q [Depth];
        logic [Width-1:0] sr_d [Depth];
        always_comb begin
          sr_d[0] = in_i[i*Width +: Width];
          for (int j = 1; j < Depth; j++) sr_d[j] = sr_q[j-1];
        end
        // One always_ff per stage: Yosys 0.23 cannot assign a whole unpacked array.
        for (genvar j = 0; j < Depth; j++) begin : g_stage
          always_ff @(posedge clk_i) sr_q[j] <= sr_d[j];
        end
        assign out_o[i*Width +: Width] = sr_q[Depth-1];
      end
    end
  end
`ifdef VERILATOR
  else begin : g_ring
    localparam int unsigned MaxDepth = Base + Lanes - 1;
    localparam int unsigned PtrWidth = $clog2(MaxDepth + 1) > 0 ? $clog2(MaxDepth + 1) : 1;
    localparam int unsigned Rows     = 1 << PtrWidth;  // > MaxDepth: no row is overwritten early

    logic [Lanes*Width-1:0] ring [Rows];
    logic [PtrWidth-1:0]    wptr_q;  // any start value works: only differences matter

    always_ff @(posedge clk_i) begin
      ring[wptr_q] <= in_i;
      wptr_q       <= wptr_q + 1'b1;
    end

    always_comb begin
      for (int i = 0; i < Lanes; i++) begin
        automatic int unsigned depth = Base + (Reverse ? Lanes - 1 - i : i);
        automatic logic [PtrWidth-1:0] row = wptr_q - PtrWidth'(depth);
        out_o[i*Width +: Width] = (depth == 0) ? in_i[i*Width +: Width]
                                               : ring[row][i*Width +: Width];
      end
    end
  end
`endif

endmodule
