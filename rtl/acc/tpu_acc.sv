`include "tpu_assert.svh"

// Accumulators: Depth rows of N int32, in two regions that are separate memories (rows
// [0, Depth/2) and [Depth/2, Depth), each a tpu_mem_1r1w), so that the MXU can fill one region
// while the activation pipeline drains the other, both at one row per cycle.
//
// Write stream (from the MXU, no back-pressure: every valid row is taken). A row either
// overwrites (wr_accumulate_i = 0) or is added lane by lane, with int32 wrap-around, to the row
// stored (wr_accumulate_i = 1). Read-modify-write pipeline: cycle t accepts the row and reads
// the stored one; cycle t + 1 adds and writes it back. A row written at the edge that read the
// next one is forwarded from a register, so the same row may be written on consecutive cycles.
//
// Read port (to the activation pipeline), valid/ready with back-pressure on both the request
// and the response; responses come back in request order, at the earliest in the next cycle,
// and wait in a two-row buffer (tpu_resp_buf) while rd_rsp_ready_i is low, so one row per cycle
// is sustained and none is lost. A read accepted in cycle t returns the row with every write
// accepted in cycles < t applied, and none accepted in cycles >= t. Each region's memory has
// one read port, used by an accumulating write first: a read request for the region that an
// accumulating write targets in the same cycle waits (rd_stall_o) and never delays or alters
// the write stream; reads of the other region, and reads beside overwriting writes, proceed.
//
// Addresses at or above Depth raise an assertion; such writes change nothing and such reads
// return zeros. Depth must be even and need not be a power of two.
//
// Latency: a write lands in its memory at the end of the cycle after it is taken (wr_busy_o);
// a read is answered one cycle after it is accepted when the reader is ready.
module tpu_acc #(
  parameter int unsigned N     = tpu_pkg::MxuDim,    // int32 lanes per row (MXU size)
  parameter int unsigned Depth = tpu_pkg::AccDepth,  // rows, both regions together
  localparam int unsigned LaneWidth = tpu_pkg::MxuAccWidth,            // bits per lane
  localparam int unsigned RowWidth  = N * LaneWidth,                    // bits per row
  localparam int unsigned AddrWidth = (Depth > 1) ? $clog2(Depth) : 1  // row address bits
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // Write stream from the MXU: one row per cycle, never stalled.
  input  logic                 wr_valid_i,       // a row arrives; it is always taken
  input  logic [AddrWidth-1:0] wr_addr_i,        // row written
  input  logic                 wr_accumulate_i,  // 1: row += data; 0: row = data
  input  logic [RowWidth-1:0]  wr_data_i,        // int32 lane i at bits [i*32 +: 32]
  // Read port to the activation pipeline.
  input  logic                 rd_req_valid_i,   // a read is requested
  output logic                 rd_req_ready_o,   // ... and is accepted this cycle
  input  logic [AddrWidth-1:0] rd_req_addr_i,    // row read
  output logic                 rd_rsp_valid_o,   // rd_rsp_data_o holds the oldest row owed
  input  logic                 rd_rsp_ready_i,   // ... and the reader takes it this cycle
  output logic [RowWidth-1:0]  rd_rsp_data_o,    // int32 lane i at bits [i*32 +: 32]
  // Status for the controller.
  output logic                 wr_busy_o,        // a write is still in the pipeline
  output logic                 rd_busy_o,        // a read is owed a response
  output logic                 rd_stall_o        // a read waits for the write stream's region
);

  localparam int unsigned Half          = Depth / 2;  // rows per region
  localparam int unsigned BankAddrWidth = (Half > 1) ? $clog2(Half) : 1;

  // ---------------------------------------------------------------------------------------
  // Cycle t: accept the write and the read, read the memories
  // ---------------------------------------------------------------------------------------
  logic                     wr_in_range, wr_region, wr_uses_port;
  logic                     rd_in_range, rd_region, rd_room, rd_fire;
  logic [BankAddrWidth-1:0] wr_bank_addr, rd_bank_addr;

  always_comb begin
    wr_in_range  = 32'(wr_addr_i) < Depth;
    wr_region    = 32'(wr_addr_i) >= Half;
    wr_bank_addr = BankAddrWidth'(wr_region ? 32'(wr_addr_i) - Half : 32'(wr_addr_i));
    rd_in_range  = 32'(rd_req_addr_i) < Depth;
    rd_region    = 32'(rd_req_addr_i) >= Half;
    rd_bank_addr = BankAddrWidth'(rd_region ? 32'(rd_req_addr_i) - Half : 32'(rd_req_addr_i));

    // An accumulating write needs its region's read port; it always gets it.
    wr_uses_port   = wr_valid_i && wr_accumulate_i && wr_in_range;
    rd_req_ready_o = rd_room && !(wr_uses_port && wr_region == rd_region);
    rd_fire        = rd_req_valid_i && rd_req_ready_o;
    rd_stall_o     = rd_req_valid_i && rd_room && !rd_req_ready_o;
  end

  // Stage 1 registers: the write being added and written back, the read being answered.
  logic                 w1_valid_q, w1_valid_d;  // a write is in stage 1
  logic [AddrWidth-1:0] w1_addr_q;               // its row
  logic                 w1_acc_q;                // ... accumulate (else overwrite)
  logic [RowWidth-1:0]  w1_data_q;               // ... data
  logic                 r1_valid_q, r1_valid_d;  // a read's row arrives from the memory
  logic [AddrWidth-1:0] r1_addr_q;               // its row
  logic                 r1_oob_q;                // ... is out of range: answer zeros

  assign w1_valid_d = wr_valid_i && wr_in_range;
  assign r1_valid_d = rd_fire;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w1_valid_q <= 1'b0;
      r1_valid_q <= 1'b0;
    end else begin
      w1_valid_q <= w1_valid_d;
      r1_valid_q <= r1_valid_d;
    end
  end

  // Payloads load only with their valid; they need no reset.
  always_ff @(posedge clk_i) begin
    if (w1_valid_d) begin
      w1_addr_q <= wr_addr_i;
      w1_acc_q  <= wr_accumulate_i;
      w1_data_q <= wr_data_i;
    end
    if (r1_valid_d) begin
      r1_addr_q <= rd_req_addr_i;
      r1_oob_q  <= !rd_in_range;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Memories, one per region
  // ---------------------------------------------------------------------------------------
  logic                     w1_region, r1_region;
  logic [BankAddrWidth-1:0] w1_bank_addr;
  logic [RowWidth-1:0]      w1_new_row;
  logic [2*RowWidth-1:0]    bank_rdata;  // region b's read row at [b*RowWidth +: RowWidth]

  always_comb begin
    w1_region    = 32'(w1_addr_q) >= Half;
    w1_bank_addr = BankAddrWidth'(w1_region ? 32'(w1_addr_q) - Half : 32'(w1_addr_q));
    r1_region    = 32'(r1_addr_q) >= Half;
  end

  for (genvar b = 0; b < 2; b++) begin : g_bank
    logic                     re, we;
    logic [BankAddrWidth-1:0] raddr;

    always_comb begin
      re    = (wr_uses_port && wr_region == 1'(b)) ||
              (rd_fire && rd_in_range && rd_region == 1'(b));
      raddr = (wr_uses_port && wr_region == 1'(b)) ? wr_bank_addr : rd_bank_addr;
      we    = w1_valid_q && w1_region == 1'(b);
    end

    tpu_mem_1r1w #(
      .Lanes    (N),
      .LaneWidth(LaneWidth),
      .Depth    (Half)
    ) u_mem (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .we_i   (we),
      .waddr_i(w1_bank_addr),
      .wmask_i({N{1'b1}}),
      .wdata_i(w1_new_row),
      .re_i   (re),
      .raddr_i(raddr),
      .rdata_o(bank_rdata[b*RowWidth +: RowWidth])
    );
  end

  // ---------------------------------------------------------------------------------------
  // Cycle t + 1: add and write back, with forwarding of the row written at the previous edge
  // ---------------------------------------------------------------------------------------
  // One lane's wrapping add as a carry-select adder: the upper half is summed for both carries
  // while the lower half ripples, so the add is about half a ripple adder deep and the path from
  // the forwarding compare through the add to the memory fits the logic-depth budget
  // (docs/fpga.md).
  localparam int unsigned LoWidth = LaneWidth / 2;
  localparam int unsigned HiWidth = LaneWidth - LoWidth;

  function automatic logic [LaneWidth-1:0] add_lane(logic [LaneWidth-1:0] a,
                                                    logic [LaneWidth-1:0] b);
    logic [LoWidth:0]    lo;        // lower half with its carry out
    logic [HiWidth-1:0]  hi0, hi1;  // upper half without and with a carry in
    lo  = (LoWidth+1)'(a[LoWidth-1:0]) + (LoWidth+1)'(b[LoWidth-1:0]);
    hi0 = a[LaneWidth-1:LoWidth] + b[LaneWidth-1:LoWidth];
    hi1 = a[LaneWidth-1:LoWidth] + b[LaneWidth-1:LoWidth] + HiWidth'(1);
    add_lane = {lo[LoWidth] ? hi1 : hi0, lo[LoWidth-1:0]};
  endfunction

  logic                 w2_valid_q;  // a row was written at the previous edge
  logic [AddrWidth-1:0] w2_addr_q;   // ... this one
  logic [RowWidth-1:0]  w2_row_q;    // ... with this value
  logic [RowWidth-1:0]  w1_old_row, r1_row;

  always_comb begin
    // The memory read this row at the edge that wrote the stage-2 row: take that one instead.
    w1_old_row = (w2_valid_q && w2_addr_q == w1_addr_q) ? w2_row_q
                                                      : bank_rdata[w1_region*RowWidth +: RowWidth];
    for (int i = 0; i < N; i++) begin
      w1_new_row[i*LaneWidth +: LaneWidth] = w1_acc_q
          ? add_lane(w1_old_row[i*LaneWidth +: LaneWidth], w1_data_q[i*LaneWidth +: LaneWidth])
          : w1_data_q[i*LaneWidth +: LaneWidth];
    end
    // Reads forward the same way (writes in stage 2 are in range, so never to an out-of-range
    // read, which reads no memory and answers zeros).
    if (r1_oob_q) begin
      r1_row = '0;
    end else if (w2_valid_q && w2_addr_q == r1_addr_q) begin
      r1_row = w2_row_q;
    end else begin
      r1_row = bank_rdata[r1_region*RowWidth +: RowWidth];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) w2_valid_q <= 1'b0;
    else         w2_valid_q <= w1_valid_q;
  end

  always_ff @(posedge clk_i) begin
    if (w1_valid_q) begin
      w2_addr_q <= w1_addr_q;
      w2_row_q  <= w1_new_row;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Response buffer
  // ---------------------------------------------------------------------------------------
  tpu_resp_buf #(
    .Width(RowWidth),
    .Depth(2)
  ) u_rsp (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .room_o     (rd_room),
    .reserve_i  (rd_fire),
    .push_i     (r1_valid_q),
    .push_data_i(r1_row),
    .rsp_valid_o(rd_rsp_valid_o),
    .rsp_ready_i(rd_rsp_ready_i),
    .rsp_data_o (rd_rsp_data_o),
    .busy_o     (rd_busy_o)
  );

  assign wr_busy_o = w1_valid_q;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(DepthEven, Depth >= 2 && Depth % 2 == 0)
  `TPU_ASSERT(WrAddrInRange, !wr_valid_i || wr_in_range, clk_i, rst_ni)
  `TPU_ASSERT(RdAddrInRange, !rd_req_valid_i || rd_in_range, clk_i, rst_ni)
  `TPU_ASSERT(NoXOnValids, !$isunknown({wr_valid_i, rd_req_valid_i, rd_rsp_ready_i}),
              clk_i, rst_ni)

endmodule
