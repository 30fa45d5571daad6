`include "tpu_assert.svh"

// Unified buffer: Depth rows of N int8 in two banks (even rows, odd rows), each a memory with
// one write and one read port (tpu_mem_1r1w), shared by four valid/ready ports: DMA write (with
// a byte mask), activation write (full rows), DMA read and MXU read.
//
// Arbitration. The two writers share the banks' write ports and the two readers their read
// ports, one row per cycle each. Ports of a pair that address different banks both proceed, so
// two readers streaming consecutive rows (the MXU's MATMUL and the DMA's WRITE_HOST) settle
// into opposite banks and both run at one row per cycle. On the same bank the pair is
// round-robin: the one that lost the previous contest wins (readers start with the MXU first,
// writers with the DMA), so neither waits more than one contested cycle in a row; a port alone
// gets every cycle. A reader competes only while its
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
  // Arbitration, per bank: bank b holds the rows whose address is b modulo 2, at row
  // address / 2. Two ports of a pair that want different banks both proceed; on the same bank
  // the pair is round-robin.
  // ---------------------------------------------------------------------------------------
  localparam int unsigned BankDepth0 = (Depth + 1) / 2;  // rows 0, 2, 4, ...
  localparam int unsigned BankDepth1 = Depth / 2;        // rows 1, 3, 5, ...
  localparam int unsigned BankAw     = (AddrWidth > 1) ? AddrWidth - 1 : 1;

  logic wr_prio_act_q, wr_prio_act_d;  // contested write: activation wins
  logic rd_prio_mxu_q, rd_prio_mxu_d;  // contested read: MXU wins
  logic dma_room, mxu_room, dma_rd_want, mxu_rd_want;
  logic dma_wr_fire, act_wr_fire, dma_rd_fire, mxu_rd_fire;
  logic wr_clash, rd_clash;            // both ports of a pair want the same bank

  // Which bank each port addresses, and where in it.
  logic             dma_wr_bank, act_wr_bank, dma_rd_bank, mxu_rd_bank;
  logic [BankAw-1:0] dma_wr_row, act_wr_row, dma_rd_row, mxu_rd_row;

  always_comb begin
    dma_wr_bank = dma_wr_addr_i[0];
    act_wr_bank = act_wr_addr_i[0];
    dma_rd_bank = dma_rd_req_addr_i[0];
    mxu_rd_bank = mxu_rd_req_addr_i[0];
    dma_wr_row  = BankAw'(dma_wr_addr_i >> 1);
    act_wr_row  = BankAw'(act_wr_addr_i >> 1);
    dma_rd_row  = BankAw'(dma_rd_req_addr_i >> 1);
    mxu_rd_row  = BankAw'(mxu_rd_req_addr_i >> 1);
  end

  always_comb begin
    // Writers: ready unless the other writer takes the same bank this cycle.
    wr_clash       = dma_wr_valid_i && act_wr_valid_i && dma_wr_bank == act_wr_bank;
    dma_wr_ready_o = !(wr_clash && wr_prio_act_q);
    act_wr_ready_o = !(wr_clash && !wr_prio_act_q);
    dma_wr_fire    = dma_wr_valid_i && dma_wr_ready_o;
    act_wr_fire    = act_wr_valid_i && act_wr_ready_o;
    wr_prio_act_d  = wr_clash ? !wr_prio_act_q : wr_prio_act_q;

    // Readers: a reader competes only while its response buffer has room.
    dma_rd_want        = dma_rd_req_valid_i && dma_room;
    mxu_rd_want        = mxu_rd_req_valid_i && mxu_room;
    rd_clash           = dma_rd_want && mxu_rd_want && dma_rd_bank == mxu_rd_bank;
    dma_rd_req_ready_o = dma_room && !(rd_clash && rd_prio_mxu_q);
    mxu_rd_req_ready_o = mxu_room && !(rd_clash && !rd_prio_mxu_q);
    dma_rd_fire        = dma_rd_req_valid_i && dma_rd_req_ready_o;
    mxu_rd_fire        = mxu_rd_req_valid_i && mxu_rd_req_ready_o;
    rd_prio_mxu_d      = rd_clash ? !rd_prio_mxu_q : rd_prio_mxu_q;
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
  // Banks, each a 1W1R memory with its read stage: the memory returns the row as it was before
  // the edge that read it; bytes written at that same edge are bypassed in, so the read sees
  // the write of its own cycle.
  // ---------------------------------------------------------------------------------------
  logic                rd_valid_q [2];   // bank b returns a row this cycle
  logic                rd_mxu_q [2];     // ... for the MXU (else for the DMA)
  logic [RowWidth-1:0] rd_row [2];       // ... this row

  for (genvar b = 0; b < 2; b++) begin : g_bank
    localparam int unsigned BankDepth = (b == 0) ? BankDepth0 : BankDepth1;

    logic                 we, re, byp_hit, rd_valid_d, rd_mxu_d;
    logic [BankAw-1:0]    waddr, raddr;
    logic [N-1:0]         wmask, byp_mask_d, byp_mask_q;
    logic [RowWidth-1:0]  wdata, rdata, byp_data_q;
    logic                 dma_wr_here, act_wr_here, dma_rd_here, mxu_rd_here;

    always_comb begin
      dma_wr_here = dma_wr_fire && dma_wr_bank == 1'(b);
      act_wr_here = act_wr_fire && act_wr_bank == 1'(b);
      dma_rd_here = dma_rd_fire && dma_rd_bank == 1'(b);
      mxu_rd_here = mxu_rd_fire && mxu_rd_bank == 1'(b);
      we          = dma_wr_here || act_wr_here;
      waddr       = act_wr_here ? act_wr_row : dma_wr_row;
      wmask       = act_wr_here ? {N{1'b1}} : dma_wr_mask_i;
      wdata       = act_wr_here ? act_wr_data_i : dma_wr_data_i;
      re          = dma_rd_here || mxu_rd_here;
      raddr       = mxu_rd_here ? mxu_rd_row : dma_rd_row;
      byp_hit     = re && we && waddr == raddr && 32'(waddr) < BankDepth;
      rd_valid_d  = re;
      rd_mxu_d    = mxu_rd_here;
      byp_mask_d  = byp_hit ? wmask : '0;
      for (int i = 0; i < N; i++) begin
        rd_row[b][i*8 +: 8] = byp_mask_q[i] ? byp_data_q[i*8 +: 8] : rdata[i*8 +: 8];
      end
    end

    tpu_mem_1r1w #(
      .Lanes    (N),
      .LaneWidth(8),
      .Depth    (BankDepth)
    ) u_mem (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .we_i   (we),
      .waddr_i(waddr[((BankDepth > 1) ? $clog2(BankDepth) : 1)-1:0]),
      .wmask_i(wmask),
      .wdata_i(wdata),
      .re_i   (re),
      .raddr_i(raddr[((BankDepth > 1) ? $clog2(BankDepth) : 1)-1:0]),
      .rdata_o(rdata)
    );

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        rd_valid_q[b] <= 1'b0;
        rd_mxu_q[b]   <= 1'b0;
        byp_mask_q    <= '0;
      end else begin
        rd_valid_q[b] <= rd_valid_d;
        rd_mxu_q[b]   <= rd_mxu_d;
        byp_mask_q    <= byp_mask_d;
      end
    end

    // Bypassed data: loaded only on a hit (no reset needed, the mask guards it).
    always_ff @(posedge clk_i) begin
      if (byp_hit) byp_data_q <= wdata;
    end
  end

  // Each reader gets at most one row per cycle, from the bank it read.
  logic                dma_push, mxu_push;
  logic [RowWidth-1:0] dma_push_row, mxu_push_row;

  always_comb begin
    mxu_push     = (rd_valid_q[0] && rd_mxu_q[0]) || (rd_valid_q[1] && rd_mxu_q[1]);
    dma_push     = (rd_valid_q[0] && !rd_mxu_q[0]) || (rd_valid_q[1] && !rd_mxu_q[1]);
    mxu_push_row = (rd_valid_q[1] && rd_mxu_q[1]) ? rd_row[1] : rd_row[0];
    dma_push_row = (rd_valid_q[1] && !rd_mxu_q[1]) ? rd_row[1] : rd_row[0];
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
    .push_i     (dma_push),
    .push_data_i(dma_push_row),
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
    .push_i     (mxu_push),
    .push_data_i(mxu_push_row),
    .rsp_valid_o(mxu_rd_rsp_valid_o),
    .rsp_ready_i(mxu_rd_rsp_ready_i),
    .rsp_data_o (mxu_rd_rsp_data_o),
    .busy_o     (mxu_busy)
  );

  assign busy_o = dma_busy || mxu_busy;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(DepthAtLeastTwo, Depth >= 2)
  `TPU_ASSERT(DmaWrAddrInRange, !dma_wr_valid_i || 32'(dma_wr_addr_i) < Depth, clk_i, rst_ni)
  `TPU_ASSERT(ActWrAddrInRange, !act_wr_valid_i || 32'(act_wr_addr_i) < Depth, clk_i, rst_ni)
  `TPU_ASSERT(DmaRdAddrInRange, !dma_rd_req_valid_i || 32'(dma_rd_req_addr_i) < Depth,
              clk_i, rst_ni)
  `TPU_ASSERT(MxuRdAddrInRange, !mxu_rd_req_valid_i || 32'(mxu_rd_req_addr_i) < Depth,
              clk_i, rst_ni)
  `TPU_ASSERT(OneWritePerBank, !(dma_wr_fire && act_wr_fire && dma_wr_bank == act_wr_bank),
              clk_i, rst_ni)
  `TPU_ASSERT(OneReadPerBank, !(dma_rd_fire && mxu_rd_fire && dma_rd_bank == mxu_rd_bank),
              clk_i, rst_ni)
  `TPU_ASSERT(NoXOnValids, !$isunknown({dma_wr_valid_i, act_wr_valid_i, dma_rd_req_valid_i,
              mxu_rd_req_valid_i, dma_rd_rsp_ready_i, mxu_rd_rsp_ready_i}), clk_i, rst_ni)

endmodule
