`include "tpu_assert.svh"

// Performance counters of the controller (docs/controller.md section 4): ten 64-bit counters,
// cleared by reset (tpu_core resets the controller on every start), counting while the queue
// runs. perf_o holds counter i at [64i +: 64], in the order of the table:
//   0 cycles, 1 MXU busy (rows accepted), 2 stall weights, 3 stall activation input,
//   4 stall DMA, 5 stall dependency, 6 rows DMA, 7 rows weights, 8 rows matrix, 9 rows act.
module tpu_ctrl_perf #(
  parameter int unsigned RowIncW = 1  // bits of the weight-row increment
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               running_i,        // the queue runs
  input  logic               mxu_row_i,        // the MXU accepted an activation row
  input  logic               stall_weights_i,  // a row waits for its weight tile
  input  logic               stall_act_in_i,   // the matrix unit waits for a UB row
  input  logic               stall_dma_i,      // a DMA transfer waits for host memory
  input  logic               stall_dep_i,      // some unit or SYNC waits for a token
  input  logic               row_dma_i,        // the DMA unit moved a row
  input  logic [RowIncW-1:0] rows_weights_i,   // weight rows entering the FIFO
  input  logic               row_act_i,        // the activation unit wrote a UB row
  output logic [10*64-1:0]   perf_o            // the counters
);

  localparam int unsigned NumCounters = 10;
  // Each counter adds its increment in bytes (8-bit blocks) whose carries need no carry chain:
  // block 0 adds the increment (an 8-bit add); block b > 0 adds one when block 0 carries out
  // and every block between is all ones, read from a register of those flags (ones_q, kept
  // with the count) instead of from the count's bits. Generic synthesis maps a plain 64-bit
  // `cnt + inc` to a ripple chain some 64 gates deep, behind the increment's own logic (in the
  // controller, the token grants: 108 levels in all, docs/fpga.md, the logic-depth budget).
  // The counts are the same in every cycle.
  localparam int unsigned Blocks = 8;

  logic [63:0]       inc [NumCounters];
  logic [63:0]       cnt_d [NumCounters];
  logic [63:0]       cnt_q [NumCounters];
  logic [Blocks-1:0] ones_d [NumCounters];  // block b of cnt_d is all ones
  logic [Blocks-1:0] ones_q [NumCounters];  // ... of cnt_q

  assign inc[0] = 64'(running_i);
  assign inc[1] = 64'(mxu_row_i);
  assign inc[2] = 64'(stall_weights_i);
  assign inc[3] = 64'(stall_act_in_i);
  assign inc[4] = 64'(stall_dma_i);
  assign inc[5] = 64'(stall_dep_i);
  assign inc[6] = 64'(row_dma_i);
  assign inc[7] = 64'(rows_weights_i);
  assign inc[8] = 64'(mxu_row_i);
  assign inc[9] = 64'(row_act_i);

  for (genvar i = 0; i < NumCounters; i++) begin : g_counter
    localparam int unsigned IncW = (i == 7) ? RowIncW : 1;  // bits of the increment
    logic [8:0]        low;       // block 0 plus the increment, and its carry out
    logic [63:0]       sum;       // cnt_q + inc
    logic [Blocks-1:0] ones_sum;  // block b of sum is all ones
    always_comb begin
      logic run;  // blocks 1 .. b - 1 are all ones
      // A one-bit increment selects the block or the block plus one, both from the register.
      if (IncW == 1) low = inc[i][0] ? 9'(cnt_q[i][7:0]) + 9'd1 : 9'(cnt_q[i][7:0]);
      else           low = 9'(cnt_q[i][7:0]) + 9'(inc[i][7:0]);
      sum         = cnt_q[i];
      sum[7:0]    = low[7:0];
      ones_sum    = ones_q[i];
      ones_sum[0] = &low[7:0];
      run         = 1'b1;
      for (int b = 1; b < Blocks; b++) begin
        // Block b: plus one when block 0 carries and the blocks between are all ones (the
        // increment decides late, as a multiplexer's select, what the count decides early).
        if (low[8] && run) begin
          sum[8*b +: 8] = cnt_q[i][8*b +: 8] + 8'd1;
          ones_sum[b]   = cnt_q[i][8*b +: 8] == 8'hfe;
        end
        run = run && ones_q[i][b];
      end
    end
    assign cnt_d[i]  = running_i ? sum : cnt_q[i];
    assign ones_d[i] = running_i ? ones_sum : ones_q[i];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        cnt_q[i]  <= '0;
        ones_q[i] <= '0;
      end else begin
        cnt_q[i]  <= cnt_d[i];
        ones_q[i] <= ones_d[i];
      end
    end
    assign perf_o[64*i +: 64] = cnt_q[i];
  end

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  // The increment fits block 0 (its carry out is then at most one).
  `TPU_ASSERT_INIT(RowIncWFits, RowIncW >= 1 && RowIncW <= 8)
  // The flags follow the counts (plain vectors: Verilator 5.006 fails on an assertion that
  // selects bits of an unpacked array's element).
  for (genvar i = 0; i < NumCounters; i++) begin : g_check
    logic [63:0]       cnt;
    logic [Blocks-1:0] ones, ones_now;
    assign cnt  = cnt_q[i];
    assign ones = ones_q[i];
    for (genvar b = 0; b < Blocks; b++) begin : g_block
      assign ones_now[b] = &cnt[8*b +: 8];
    end
    `TPU_ASSERT(OnesFlags, ones == ones_now, clk_i, rst_ni)
  end

endmodule
