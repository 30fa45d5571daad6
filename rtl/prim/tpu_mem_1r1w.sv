`include "tpu_assert.svh"

// One-read one-write synchronous memory with per-lane write enables, written as a plain array so
// that synthesis infers a memory ($mem_v2 in Yosys), never flip-flops.
//
// A row is Lanes lanes of LaneWidth bits (lane l at bits [l*LaneWidth +: LaneWidth]). Write:
// lanes whose wmask_i bit is set take wdata_i at the clock edge; the other lanes keep their
// value. Read: raddr_i is sampled at the clock edge when re_i is set and the row appears on
// rdata_o in the next cycle, holding until the next read. A read and a write of the same row at
// the same edge return the row as it was before that edge (read-old); callers that need the new
// value bypass it themselves (tpu_ub, tpu_acc). Addresses at or above Depth, which may be any
// number of rows, never write anything and read as zero. Latency 1 (read), 0 (write).
// Used by the unified buffer (lanes of 8 bits), the accumulators (lanes of 32 bits) and the
// host interface's DMA read completion buffer.
module tpu_mem_1r1w #(
  parameter int unsigned Lanes     = 16,    // lanes per row
  parameter int unsigned LaneWidth = 8,     // bits per lane
  parameter int unsigned Depth     = 4096,  // rows; need not be a power of two
  localparam int unsigned Width     = Lanes * LaneWidth,                 // bits per row
  localparam int unsigned AddrWidth = (Depth > 1) ? $clog2(Depth) : 1  // row address bits
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // Write port.
  input  logic                 we_i,     // write the lanes selected by wmask_i
  input  logic [AddrWidth-1:0] waddr_i,  // row written; ignored when >= Depth
  input  logic [Lanes-1:0]     wmask_i,  // lane l is written when bit l is set
  input  logic [Width-1:0]     wdata_i,  // new lane values
  // Read port.
  input  logic                 re_i,     // read raddr_i; rdata_o follows next cycle
  input  logic [AddrWidth-1:0] raddr_i,  // row read; reads as zero when >= Depth
  output logic [Width-1:0]     rdata_o   // the row read at the previous enabled edge
);

  logic [Width-1:0] mem_q [Depth];  // the array: no reset, lane l written by g_lane[l] only
  logic [Width-1:0] rdata_q;        // synchronous read register (part of the inferred memory)
  logic             wr_in_range, rd_in_range;
  logic             rd_oob_q, rd_oob_d;

  assign wr_in_range = 32'(waddr_i) < Depth;
  assign rd_in_range = 32'(raddr_i) < Depth;

  // Synchronous write with lane enables, one process per lane, and a synchronous read. Yosys
  // merges the lanes' writes (same address, same clock) into one lane-enabled write port and
  // the read register into a registered read port: one memory. One process per lane rather
  // than a loop over the lanes in one process: Verilator 5.006 does not unroll a loop of more
  // than 64 iterations and rejects non-blocking writes to an array element inside it
  // (BLKLOOPINIT), which would limit N to 64.
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    always_ff @(posedge clk_i) begin
      if (we_i && wr_in_range && wmask_i[l]) begin
        mem_q[waddr_i][l*LaneWidth +: LaneWidth] <= wdata_i[l*LaneWidth +: LaneWidth];
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (re_i && rd_in_range) rdata_q <= mem_q[raddr_i];
  end

  // Out-of-range reads return zero instead of whatever row the address would alias.
  assign rd_oob_d = re_i ? !rd_in_range : rd_oob_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rd_oob_q <= 1'b0;
    else         rd_oob_q <= rd_oob_d;
  end

  assign rdata_o = rd_oob_q ? '0 : rdata_q;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(DepthNonZero, Depth > 0)
  `TPU_ASSERT(NoXOnEnables, !$isunknown(we_i) && !$isunknown(re_i), clk_i, rst_ni)

endmodule
