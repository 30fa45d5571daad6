`include "tpu_assert.svh"

// Response buffer of a memory read port: it lets a reader stall its responses (valid/ready)
// without ever losing one, and without a combinational path from the response ready to the
// request ready.
//
// The owner accepts a request only while room_o is set, and tells the buffer (reserve_i); the
// row comes back from the memory some cycles later (push_i, push_data_i) and is offered on
// rsp_*. Rows owed (reserved and not yet handed out) never exceed Depth, so the buffer never
// overflows. An arriving row goes straight out when nothing older waits (fall-through, no added
// latency) and is stored otherwise. With a memory latency of 1, Depth = 2 sustains one row per
// cycle. Responses leave in request order.
module tpu_resp_buf #(
  parameter int unsigned Width = 64,  // bits per row
  parameter int unsigned Depth = 2    // rows a reader may be owed at once
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // Request side.
  output logic             room_o,       // a request may be accepted this cycle
  input  logic             reserve_i,    // a request was accepted this cycle
  // Rows arriving from the memory, in request order.
  input  logic             push_i,       // push_data_i is a requested row
  input  logic [Width-1:0] push_data_i,  // the row
  // Responses to the reader.
  output logic             rsp_valid_o,  // rsp_data_o holds the oldest row not handed out
  input  logic             rsp_ready_i,  // ... and the reader takes it this cycle
  output logic [Width-1:0] rsp_data_o,   // the row
  // Status.
  output logic             busy_o        // rows are owed
);

  localparam int unsigned PtrWidth = (Depth > 1) ? $clog2(Depth) : 1;
  localparam int unsigned CntWidth = $clog2(Depth + 1);

  logic [Width-1:0]    buf_q [Depth];      // stored rows, oldest at rd_ptr_q
  logic [PtrWidth-1:0] wr_ptr_q, wr_ptr_d, rd_ptr_q, rd_ptr_d;
  logic [CntWidth-1:0] count_q, count_d;   // rows stored
  logic [CntWidth-1:0] owed_q, owed_d;     // rows reserved and not yet handed out
  logic                empty, pop, store, rsp_fire;

  // Outputs that do not depend on rsp_ready_i, in their own process: a reader whose ready
  // depends on rsp_valid_o then forms no (false) combinational loop through this block.
  always_comb begin
    empty       = count_q == '0;
    room_o      = owed_q < CntWidth'(Depth);
    rsp_valid_o = !empty || push_i;
    rsp_data_o  = empty ? push_data_i : buf_q[rd_ptr_q];
    busy_o      = owed_q != '0;
  end

  always_comb begin
    rsp_fire    = rsp_valid_o && rsp_ready_i;
    pop         = !empty && rsp_ready_i;           // the oldest stored row leaves
    store       = push_i && !(empty && rsp_ready_i);  // the arriving row does not fall through

    wr_ptr_d = wr_ptr_q;
    if (store) wr_ptr_d = (wr_ptr_q == PtrWidth'(Depth - 1)) ? '0 : wr_ptr_q + 1'b1;
    rd_ptr_d = rd_ptr_q;
    if (pop) rd_ptr_d = (rd_ptr_q == PtrWidth'(Depth - 1)) ? '0 : rd_ptr_q + 1'b1;
    count_d = count_q + CntWidth'(store) - CntWidth'(pop);
    owed_d  = owed_q + CntWidth'(reserve_i) - CntWidth'(rsp_fire);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      count_q  <= '0;
      owed_q   <= '0;
    end else begin
      wr_ptr_q <= wr_ptr_d;
      rd_ptr_q <= rd_ptr_d;
      count_q  <= count_d;
      owed_q   <= owed_d;
    end
  end

  // One process per entry: Yosys 0.23 cannot assign a whole unpacked array. Data needs no reset.
  for (genvar i = 0; i < Depth; i++) begin : g_entry
    always_ff @(posedge clk_i) begin
      if (store && wr_ptr_q == PtrWidth'(i)) buf_q[i] <= push_data_i;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(DepthNonZero, Depth > 0)
  `TPU_ASSERT(ReserveOnlyWithRoom, !reserve_i || room_o, clk_i, rst_ni)
  `TPU_ASSERT(NoOverflow, !store || count_q < CntWidth'(Depth), clk_i, rst_ni)
  `TPU_ASSERT(PushOnlyWhenOwed, !push_i || owed_q > count_q, clk_i, rst_ni)
  `TPU_ASSERT(NoXOnHandshake, !$isunknown(push_i) && !$isunknown(rsp_ready_i), clk_i, rst_ni)

endmodule
