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

  logic [63:0] inc [NumCounters];
  logic [63:0] cnt_d [NumCounters];
  logic [63:0] cnt_q [NumCounters];

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
    assign cnt_d[i] = running_i ? cnt_q[i] + inc[i] : cnt_q[i];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        cnt_q[i] <= '0;
      end else begin
        cnt_q[i] <= cnt_d[i];
      end
    end
    assign perf_o[64*i +: 64] = cnt_q[i];
  end

endmodule
