`include "tpu_assert.svh"

// Unified buffer: Depth rows of N int8, one memory (tpu_mem_1r1w, one write and one read port)
// shared by four valid/ready ports: DMA write (with a byte mask), activation write (full rows),
// DMA read and MXU read.
//
// Arbitration. The two writers share the write port and the two readers the read port, one row
// per cycle each. Each pair is round-robin: when both ports of a pair want the memory in the
// same cycle, the one that lost the previous contest wins (readers start with the MXU first,
// writers with the DMA), so neither waits more than one contested cycle in a row; a port alone
// gets every cycle, which lets the MXU read one row per cycle. A reader competes only while its
// response buffer has room (tpu_resp_buf, two rows), so a reader that stalls its responses never
// blocks the other one.
//
// Ordering. A read accepted in cycle t returns the row with every write accepted in cycles <= t
// applied, including a write accepted in the same cycle (its masked bytes are bypassed into the
// response); a write accepted later never changes it. Responses of each reader come back in
// request order, at the earliest in cycle t + 1 (latency 1), and wait in the reader's buffer
// while its rsp_ready_i is low. Writes take effect at the end of their cycle (latency 0).
//
// Addresses at or above Depth (which need not be a power of two) raise an assertion; such
// writes change nothing and such reads return zeros.
module tpu_ub #(
  parameter int unsigned N     = tpu_pkg::MxuDim,   // bytes per row (MXU size)
  parameter int unsigned Depth = tpu_pkg::UbDepth,  // rows
  localparam int unsigned RowWidth  = N * 8,                            // bits per row
  localparam int unsigned AddrWidth = (Depth > 1) ? $clog2(Depth) : 1  // row address bits
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // DMA write: part of a row, by byte mask.
  input  logic                 dma_wr_valid_i,      // a write is offered
  output logic                 dma_wr_ready_o,      // ... and is accepted this cycle
  input  logic [AddrWidth-1:0] dma_wr_addr_i,       // row written
  input  logic [RowWidth-1:0]  dma_wr_data_i,       // byte i at bits [i*8 +: 8]
  input  logic [N-1:0]         dma_wr_mask_i,       // byte i is written when bit i is set
  // Activation write: whole rows.
  input  logic                 act_wr_valid_i,      // a write is offered
  output logic                 act_wr_ready_o,      // ... and is accepted this cycle
  input  logic [AddrWidth-1:0] act_wr_addr_i,       // row written
  input  logic [RowWidth-1:0]  act_wr_data_i,       // byte i at bits [i*8 +: 8]
  // DMA read.
  input  logic                 dma_rd_req_valid_i,  // a read is requested
  output logic                 dma_rd_req_ready_o,  // ... and is accepted this cycle
  input  logic [AddrWidth-1:0] dma_rd_req_addr_i,   // row read
  output logic                 dma_rd_rsp_valid_o,  // dma_rd_rsp_data_o holds the oldest row
  input  logic                 dma_rd_rsp_ready_i,  // ... and the DMA takes it this cycle
  output logic [RowWidth-1:0]  dma_rd_rsp_data_o,   // byte i at bits [i*8 +: 8]
  // MXU read.
  input  logic                 mxu_rd_req_valid_i,  // a read is requested
  output logic                 mxu_rd_req_ready_o,  // ... and is accepted this cycle
  input  logic [AddrWidth-1:0] mxu_rd_req_addr_i,   // row read
  output logic                 mxu_rd_rsp_valid_o,  // mxu_rd_rsp_data_o holds the oldest row
  input  logic                 mxu_rd_rsp_ready_i,  // ... and the MXU takes it this cycle
  output logic [RowWidth-1:0]  mxu_rd_rsp_data_o,   // byte i at bits [i*8 +: 8]
  // Status.
  output logic                 busy_o               // a read is owed a response
);

  // ---------------------------------------------------------------------------------------
  // Arbitration
  // ---------------------------------------------------------------------------------------
  logic wr_prio_act_q, wr_prio_act_d;  // contested write cycle: activation wins
  logic rd_prio_mxu_q, rd_prio_mxu_d;  // contested read cycle: MXU wins
  logic dma_room, mxu_room, dma_rd_want, mxu_rd_want;
  logic dma_wr_fire, act_wr_fire, dma_rd_fire, mxu_rd_fire;

  always_comb begin
    // Writers: ready whenever the other writer does not take the port.
    dma_wr_ready_o = !(act_wr_valid_i && wr_prio_act_q);
    act_wr_ready_o = !(dma_wr_valid_i && !wr_prio_act_q);
    dma_wr_fire    = dma_wr_valid_i && dma_wr_ready_o;
    act_wr_fire    = act_wr_valid_i && act_wr_ready_o;
    wr_prio_act_d  = (dma_wr_valid_i && act_wr_valid_i) ? !wr_prio_act_q : wr_prio_act_q;

    // Readers: a reader competes only while its response buffer has room.
    dma_rd_want        = dma_rd_req_valid_i && dma_room;
    mxu_rd_want        = mxu_rd_req_valid_i && mxu_room;
    dma_rd_req_ready_o = dma_room && !(mxu_rd_want && rd_prio_mxu_q);
    mxu_rd_req_ready_o = mxu_room && !(dma_rd_want && !rd_prio_mxu_q);
    dma_rd_fire        = dma_rd_req_valid_i && dma_rd_req_ready_o;
    mxu_rd_fire        = mxu_rd_req_valid_i && mxu_rd_req_ready_o;
    rd_prio_mxu_d      = (dma_rd_want && mxu_rd_want) ? !rd_prio_mxu_q : rd_prio_mxu_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_prio_act_q <= 1'b0;
      rd_prio_mxu_q <= 1'b1;
    end else begin
      wr_prio_act_q <= wr_prio_act_d;
      rd_prio_mxu_q <= rd_prio_mxu_d;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Memory
  // ---------------------------------------------------------------------------------------
  logic                 mem_we, mem_re;
  logic [AddrWidth-1:0] mem_waddr, mem_raddr;
  logic [N-1:0]         mem_wmask;
  logic [RowWidth-1:0]  mem_wdata, mem_rdata;

  always_comb begin
    mem_we    = dma_wr_fire || act_wr_fire;
    mem_waddr = act_wr_fire ? act_wr_addr_i : dma_wr_addr_i;
    mem_wmask = act_wr_fire ? {N{1'b1}} : dma_wr_mask_i;
    mem_wdata = act_wr_fire ? act_wr_data_i : dma_wr_data_i;
    mem_re    = dma_rd_fire || mxu_rd_fire;
    mem_raddr = mxu_rd_fire ? mxu_rd_req_addr_i : dma_rd_req_addr_i;
  end

  tpu_mem_1r1w #(
    .Lanes    (N),
    .LaneWidth(8),
    .Depth    (Depth)
  ) u_mem (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .we_i   (mem_we),
    .waddr_i(mem_waddr),
    .wmask_i(mem_wmask),
    .wdata_i(mem_wdata),
    .re_i   (mem_re),
    .raddr_i(mem_raddr),
    .rdata_o(mem_rdata)
  );

  // ---------------------------------------------------------------------------------------
  // Read stage: the memory returns the row as it was before the edge that read it; bytes
  // written at that same edge are bypassed in, so the read sees the write of its own cycle.
  // ---------------------------------------------------------------------------------------
  logic                rd_valid_q, rd_valid_d;    // a row arrives from the memory this cycle
  logic                rd_mxu_q, rd_mxu_d;        // ... for the MXU (else for the DMA)
  logic [N-1:0]        byp_mask_q, byp_mask_d;    // bytes written at the edge that read it
  logic [RowWidth-1:0] byp_data_q;                // ... and their values
  logic                byp_hit;
  logic [RowWidth-1:0] rd_row;

  always_comb begin
    byp_hit    = mem_re && mem_we && mem_waddr == mem_raddr && 32'(mem_waddr) < Depth;
    rd_valid_d = mem_re;
    rd_mxu_d   = mxu_rd_fire;
    byp_mask_d = byp_hit ? mem_wmask : '0;
    for (int i = 0; i < N; i++) begin
      rd_row[i*8 +: 8] = byp_mask_q[i] ? byp_data_q[i*8 +: 8] : mem_rdata[i*8 +: 8];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_valid_q <= 1'b0;
      rd_mxu_q   <= 1'b0;
      byp_mask_q <= '0;
    end else begin
      rd_valid_q <= rd_valid_d;
      rd_mxu_q   <= rd_mxu_d;
      byp_mask_q <= byp_mask_d;
    end
  end

  // Bypassed data: loaded only on a hit (no reset needed, the mask guards it).
  always_ff @(posedge clk_i) begin
    if (byp_hit) byp_data_q <= mem_wdata;
  end

  // ---------------------------------------------------------------------------------------
  // Response buffers, one per reader
  // ---------------------------------------------------------------------------------------
  logic dma_busy, mxu_busy;

  tpu_resp_buf #(
    .Width(RowWidth),
    .Depth(2)
  ) u_dma_rsp (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .room_o     (dma_room),
    .reserve_i  (dma_rd_fire),
    .push_i     (rd_valid_q && !rd_mxu_q),
    .push_data_i(rd_row),
    .rsp_valid_o(dma_rd_rsp_valid_o),
    .rsp_ready_i(dma_rd_rsp_ready_i),
    .rsp_data_o (dma_rd_rsp_data_o),
    .busy_o     (dma_busy)
  );

  tpu_resp_buf #(
    .Width(RowWidth),
    .Depth(2)
  ) u_mxu_rsp (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .room_o     (mxu_room),
    .reserve_i  (mxu_rd_fire),
    .push_i     (rd_valid_q && rd_mxu_q),
    .push_data_i(rd_row),
    .rsp_valid_o(mxu_rd_rsp_valid_o),
    .rsp_ready_i(mxu_rd_rsp_ready_i),
    .rsp_data_o (mxu_rd_rsp_data_o),
    .busy_o     (mxu_busy)
  );

  assign busy_o = dma_busy || mxu_busy;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(DepthNonZero, Depth > 0)
  `TPU_ASSERT(DmaWrAddrInRange, !dma_wr_valid_i || 32'(dma_wr_addr_i) < Depth, clk_i, rst_ni)
  `TPU_ASSERT(ActWrAddrInRange, !act_wr_valid_i || 32'(act_wr_addr_i) < Depth, clk_i, rst_ni)
  `TPU_ASSERT(DmaRdAddrInRange, !dma_rd_req_valid_i || 32'(dma_rd_req_addr_i) < Depth,
              clk_i, rst_ni)
  `TPU_ASSERT(MxuRdAddrInRange, !mxu_rd_req_valid_i || 32'(mxu_rd_req_addr_i) < Depth,
              clk_i, rst_ni)
  `TPU_ASSERT(OneWritePerCycle, !(dma_wr_fire && act_wr_fire), clk_i, rst_ni)
  `TPU_ASSERT(OneReadPerCycle, !(dma_rd_fire && mxu_rd_fire), clk_i, rst_ni)
  `TPU_ASSERT(NoXOnValids, !$isunknown({dma_wr_valid_i, act_wr_valid_i, dma_rd_req_valid_i,
              mxu_rd_req_valid_i, dma_rd_rsp_ready_i, mxu_rd_rsp_ready_i}), clk_i, rst_ni)

endmodule
