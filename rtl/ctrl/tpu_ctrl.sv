`include "tpu_assert.svh"

// Controller of the TPU core (docs/controller.md): decode -> dispatch -> one queue per unit ->
// the four unit sequencers (DMA, weights, matrix, activation), the dependency tokens, run-time
// error collection and the performance counters. Every datapath block lives in tpu_core; this
// module only drives their ports. The DMA unit's destination rows are routed here by target:
// UB, weight DRAM, parameter memory or LUT (the last two inside the activation unit).
module tpu_ctrl #(
  parameter int unsigned N          = tpu_pkg::MxuDim,    // MXU size; bytes per UB row
  parameter int unsigned UbRows     = tpu_pkg::UbDepth,   // UB_ROWS
  parameter int unsigned AccRows    = tpu_pkg::AccDepth,  // ACC_ROWS
  parameter logic [63:0] DramBytes  = 64'd67108864,       // DRAM_BYTES
  parameter int unsigned ParamSets  = 64,                 // PARAM_SETS
  parameter int unsigned DramWidth  = N * 8,              // weight-DRAM beat bits
  parameter int unsigned QueueDepth = 4,                  // instructions per unit queue
  localparam int unsigned UbAw    = (UbRows > 1) ? $clog2(UbRows) : 1,
  localparam int unsigned AccAw   = (AccRows > 1) ? $clog2(AccRows) : 1,
  localparam int unsigned WfRowsW = $clog2((tpu_pkg::WfifoDepthTiles + 1) * N + 1),
  localparam int unsigned DramAw  = tpu_isa_pkg::ReadHostDestWidth  // DRAM byte address bits
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               start_i,                // pulse: run from instruction 0
  // Instructions.
  input  logic               instr_valid_i,          // instr_i holds the next instruction
  output logic               instr_ready_o,          // ... and it is taken
  input  logic [127:0]       instr_i,                // the instruction
  // Host memory (tpu_core ports).
  output logic               hm_req_valid_o,         // a request is offered
  input  logic               hm_req_ready_i,         // ... and taken
  output logic               hm_req_write_o,         // 1 write, 0 read
  output logic [47:0]        hm_req_addr_o,          // beat address
  output logic [8*N-1:0]     hm_req_wdata_o,         // write data
  output logic [N-1:0]       hm_req_wmask_o,         // write byte mask
  input  logic               hm_rsp_valid_i,         // read data is there
  output logic               hm_rsp_ready_o,         // ... and taken
  input  logic [8*N-1:0]     hm_rsp_rdata_i,         // read data
  input  logic               hm_rsp_error_i,         // ... failed
  // Weight DRAM (tpu_core ports; the read data goes to the weight FIFO directly).
  output logic               wd_req_valid_o,         // a tile read is offered
  input  logic               wd_req_ready_i,         // ... and taken
  output logic [DramAw-1:0]  wd_req_addr_o,          // tile byte address
  input  logic               wd_rsp_fire_i,          // a beat enters the weight FIFO
  output logic               wd_wr_valid_o,          // a row write is offered
  input  logic               wd_wr_ready_i,          // ... and taken
  output logic [DramAw-1:0]  wd_wr_addr_o,           // byte address, a multiple of N
  output logic [8*N-1:0]     wd_wr_data_o,           // row data
  output logic [N-1:0]       wd_wr_mask_o,           // byte mask
  // Weight FIFO status.
  input  logic [WfRowsW-1:0] wf_rows_i,              // complete rows held
  input  logic               wf_empty_i,             // no row held
  // UB ports (tpu_ub).
  output logic               ub_dma_wr_valid_o,      // DMA row write
  input  logic               ub_dma_wr_ready_i,
  output logic [UbAw-1:0]    ub_dma_wr_addr_o,
  output logic [8*N-1:0]     ub_dma_wr_data_o,
  output logic [N-1:0]       ub_dma_wr_mask_o,
  output logic               ub_dma_rd_req_valid_o,  // DMA row read (WRITE_HOST)
  input  logic               ub_dma_rd_req_ready_i,
  output logic [UbAw-1:0]    ub_dma_rd_req_addr_o,
  input  logic               ub_dma_rd_rsp_valid_i,
  output logic               ub_dma_rd_rsp_ready_o,
  input  logic [8*N-1:0]     ub_dma_rd_rsp_data_i,
  output logic               ub_mxu_rd_req_valid_o,  // matrix unit row read (MATMUL)
  input  logic               ub_mxu_rd_req_ready_i,
  output logic [UbAw-1:0]    ub_mxu_rd_req_addr_o,
  input  logic               ub_mxu_rd_rsp_valid_i,
  output logic               ub_mxu_rd_rsp_ready_o,
  output logic               ub_act_wr_valid_o,      // activation unit row write
  input  logic               ub_act_wr_ready_i,
  output logic [UbAw-1:0]    ub_act_wr_addr_o,
  output logic [8*N-1:0]     ub_act_wr_data_o,
  // MXU (activation side; weights come from the FIFO, results go to the accumulators).
  output logic               mxu_act_valid_o,        // a row is offered
  input  logic               mxu_act_ready_i,        // ... and taken
  output logic               mxu_act_new_tile_o,     // ... switching tiles
  output logic [15:0]        mxu_act_tag_o,          // ... {last, accumulate, acc row}
  output logic               mxu_act_pad_o,          // ... a pad row (MATMUL window)
  output logic [7:0]         mxu_act_pad_value_o,    // ... of N bytes of this value
  input  logic               mxu_out_valid_i,        // a result row leaves
  input  logic [15:0]        mxu_out_tag_i,          // ... with its tag
  input  logic               mxu_tile_loaded_i,      // a loaded tile waits
  // Accumulator reads (tpu_acc rd_*).
  output logic               acc_rd_req_valid_o,
  input  logic               acc_rd_req_ready_i,
  output logic [AccAw-1:0]   acc_rd_req_addr_o,
  input  logic               acc_rd_rsp_valid_i,
  output logic               acc_rd_rsp_ready_o,
  input  logic [32*N-1:0]    acc_rd_rsp_data_i,
  // Activation pipeline (tpu_act) configuration, LUT port and streams.
  output logic [32*N-1:0]    act_bias_o,
  output logic [32*N-1:0]    act_multiplier_o,
  output logic [6*N-1:0]     act_shift_o,
  output logic [7:0]         act_zero_point_o,
  output logic [7:0]         act_min_o,
  output logic [7:0]         act_max_o,
  output logic               act_lut_enable_o,
  output logic [1:0]         act_pool_mode_o,
  output logic [7:0]         act_pool_in_h_o,
  output logic [7:0]         act_pool_in_w_o,
  output logic [3:0]         act_pool_win_h_o,
  output logic [3:0]         act_pool_win_w_o,
  output logic [3:0]         act_pool_stride_h_o,
  output logic [3:0]         act_pool_stride_w_o,
  output logic               act_pool_same_o,
  output logic               act_lut_we_o,
  output logic [7:0]         act_lut_addr_o,
  output logic [7:0]         act_lut_data_o,
  output logic               act_in_valid_o,
  input  logic               act_in_ready_i,
  output logic [32*N-1:0]    act_in_row_o,
  output logic [15:0]        act_in_tag_o,
  input  logic               act_out_valid_i,
  output logic               act_out_ready_o,
  input  logic [8*N-1:0]     act_out_row_i,
  input  logic [15:0]        act_out_tag_i,
  input  logic               act_busy_i,
  // Status.
  output logic               running_o,              // started, not done, error not drained
  output logic               done_o,                 // HALT completed
  output logic               error_o,                // stopped by an error, drained
  output logic [7:0]         error_code_o,           // first error
  output logic [31:0]        error_index_o,          // ... its instruction index
  output logic               irq_o,                  // pulse when done_o or error_o rises
  output logic [10*64-1:0]   perf_o                  // performance counters
);

  localparam int unsigned NumUnits  = 4;  // 0 dma, 1 weights, 2 matrix, 3 activation
  localparam int unsigned NumPorts  = 5;  // token ports: 0 dispatcher, 1 + unit
  localparam int unsigned RowIncW   = $clog2(((DramWidth >= 8 * N) ? DramWidth / (8 * N) : 1) + 1);

  // ---- decode and dispatch ---------------------------------------------------------------------
  logic         dec_valid, dec_ready, fetch_en, dec_in_ready;
  logic [127:0] dec_instr;
  logic [7:0]   dec_error;

  logic [NumUnits-1:0] q_push, q_ready, q_empty, q_out_valid, q_out_ready;
  logic [159:0]        q_in_data;
  logic [159:0]        q_out_data [NumUnits];
  logic [NumUnits-1:0] unit_idle, unit_blocked;
  logic [2:0]          q_count [NumUnits];  // entries per queue (waveforms)

  logic [NumPorts-1:0]   take_valid, take_grant, give_valid;
  logic [NumPorts*8-1:0] take_mask, give_mask;
  logic [31:0]           give_index [NumPorts];
  logic [8*8-1:0]        tok_counts;
  logic [7:0]            tok_avail;
  logic                  tok_overflow;

  logic        rt_error, abort, sync_stall;
  logic [7:0]  rt_code;
  logic [31:0] rt_index;
  logic [31:0] disp_index;

  tpu_ctrl_decode #(
    .N        (N),
    .UbRows   (UbRows),
    .AccRows  (AccRows),
    .DramBytes(DramBytes),
    .ParamSets(ParamSets)
  ) u_decode (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (instr_valid_i && fetch_en),
    .in_ready_o  (dec_in_ready),
    .in_instr_i  (instr_i),
    .out_valid_o (dec_valid),
    .out_ready_i (dec_ready),
    .out_instr_o (dec_instr),
    .out_error_o (dec_error)
  );

  assign instr_ready_o = dec_in_ready && fetch_en;

  tpu_ctrl_dispatch u_dispatch (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .start_i        (start_i),
    .in_valid_i     (dec_valid),
    .in_ready_o     (dec_ready),
    .in_instr_i     (dec_instr),
    .in_error_i     (dec_error),
    .fetch_en_o     (fetch_en),
    .q_valid_o      (q_push),
    .q_ready_i      (q_ready),
    .q_data_o       (q_in_data),
    .q_empty_i      (q_empty),
    .unit_idle_i    (unit_idle),
    .unit_blocked_i (unit_blocked),
    .take_valid_o   (take_valid[0]),
    .take_mask_o    (take_mask[7:0]),
    .take_grant_i   (take_grant[0]),
    .give_valid_o   (give_valid[0]),
    .give_mask_o    (give_mask[7:0]),
    .rt_error_i     (rt_error),
    .rt_code_i      (rt_code),
    .rt_index_i     (rt_index),
    .abort_o        (abort),
    .sync_stall_o   (sync_stall),
    .running_o      (running_o),
    .done_o         (done_o),
    .error_o        (error_o),
    .error_code_o   (error_code_o),
    .error_index_o  (error_index_o),
    .irq_o          (irq_o)
  );

  // The dispatcher's held instruction is the next index; a SYNC gives with it.
  assign disp_index    = q_in_data[159:128];
  assign give_index[0] = disp_index;

  for (genvar u = 0; u < NumUnits; u++) begin : g_queue
    tpu_fifo #(
      .Width(160),
      .Depth(QueueDepth)
    ) u_queue (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .clear_i     (abort),
      .in_valid_i  (q_push[u]),
      .in_ready_o  (q_ready[u]),
      .in_data_i   (q_in_data),
      .out_valid_o (q_out_valid[u]),
      .out_ready_i (q_out_ready[u]),
      .out_data_o  (q_out_data[u]),
      .count_o     (q_count[u]),
      .empty_o     (q_empty[u])
    );
  end

  tpu_ctrl_tokens #(
    .NumPorts(NumPorts)
  ) u_tokens (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .clear_i      (start_i),
    .take_valid_i (take_valid),
    .take_mask_i  (take_mask),
    .take_grant_o (take_grant),
    .give_valid_i (give_valid),
    .give_mask_i  (give_mask),
    .counts_o     (tok_counts),
    .avail_o      (tok_avail),
    .overflow_o   (tok_overflow)
  );

  // ---- DMA unit (port 1) -----------------------------------------------------------------------
  logic        dma_err, dma_stall, dma_row, dma_dep;
  logic [7:0]  dma_err_code;
  logic [31:0] dma_err_index, dma_index_q;
  logic        dst_valid, dst_ready;
  logic [1:0]  dst_target;
  logic [DramAw-1:0] dst_row;
  logic [8*N-1:0] dst_data;
  logic [N-1:0]   dst_mask;
  logic        param_wr_ready, lut_wr_ready;

  tpu_ctrl_dma #(
    .N     (N),
    .UbRows(UbRows)
  ) u_dma (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .abort_i           (abort),
    .instr_valid_i     (q_out_valid[0]),
    .instr_ready_o     (q_out_ready[0]),
    .instr_i           (q_out_data[0][127:0]),
    .index_i           (q_out_data[0][159:128]),
    .take_valid_o      (take_valid[1]),
    .take_mask_o       (take_mask[15:8]),
    .take_grant_i      (take_grant[1]),
    .give_valid_o      (give_valid[1]),
    .give_mask_o       (give_mask[15:8]),
    .idle_o            (unit_idle[0]),
    .blocked_o         (unit_blocked[0]),
    .error_o           (dma_err),
    .error_code_o      (dma_err_code),
    .error_index_o     (dma_err_index),
    .stall_dep_o       (dma_dep),
    .row_o             (dma_row),
    .stall_o           (dma_stall),
    .hm_req_valid_o    (hm_req_valid_o),
    .hm_req_ready_i    (hm_req_ready_i),
    .hm_req_write_o    (hm_req_write_o),
    .hm_req_addr_o     (hm_req_addr_o),
    .hm_req_wdata_o    (hm_req_wdata_o),
    .hm_req_wmask_o    (hm_req_wmask_o),
    .hm_rsp_valid_i    (hm_rsp_valid_i),
    .hm_rsp_ready_o    (hm_rsp_ready_o),
    .hm_rsp_rdata_i    (hm_rsp_rdata_i),
    .hm_rsp_error_i    (hm_rsp_error_i),
    .dst_valid_o       (dst_valid),
    .dst_ready_i       (dst_ready),
    .dst_target_o      (dst_target),
    .dst_row_o         (dst_row),
    .dst_data_o        (dst_data),
    .dst_mask_o        (dst_mask),
    .ub_rd_req_valid_o (ub_dma_rd_req_valid_o),
    .ub_rd_req_ready_i (ub_dma_rd_req_ready_i),
    .ub_rd_req_addr_o  (ub_dma_rd_req_addr_o),
    .ub_rd_rsp_valid_i (ub_dma_rd_rsp_valid_i),
    .ub_rd_rsp_ready_o (ub_dma_rd_rsp_ready_o),
    .ub_rd_rsp_data_i  (ub_dma_rd_rsp_data_i)
  );

  // The DMA unit runs one instruction at a time: its give belongs to the one it popped last.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dma_index_q <= '0;
    end else if (q_out_valid[0] && q_out_ready[0]) begin
      dma_index_q <= q_out_data[0][159:128];
    end
  end
  assign give_index[1] = dma_index_q;

  // Destination rows by target.
  always_comb begin
    ub_dma_wr_valid_o = 1'b0;
    wd_wr_valid_o     = 1'b0;
    dst_ready         = 1'b0;
    unique case (dst_target)
      tpu_isa_pkg::TargetUb: begin
        ub_dma_wr_valid_o = dst_valid;
        dst_ready         = ub_dma_wr_ready_i;
      end
      tpu_isa_pkg::TargetDram: begin
        wd_wr_valid_o = dst_valid;
        dst_ready     = wd_wr_ready_i;
      end
      tpu_isa_pkg::TargetParam: dst_ready = param_wr_ready;
      default:                  dst_ready = lut_wr_ready;
    endcase
  end
  assign ub_dma_wr_addr_o = dst_row[UbAw-1:0];
  assign ub_dma_wr_data_o = dst_data;
  assign ub_dma_wr_mask_o = dst_mask;
  // DRAM rows come from byte addresses below DRAM_BYTES <= 2^DramAw (checked by the decoder).
  assign wd_wr_addr_o     = DramAw'(64'(dst_row) * 64'(N));
  assign wd_wr_data_o     = dst_data;
  assign wd_wr_mask_o     = dst_mask;

  // ---- weight unit (port 2) --------------------------------------------------------------------
  logic               wts_dep;
  logic [RowIncW-1:0] wts_rows;

  tpu_ctrl_weights #(
    .N        (N),
    .DramWidth(DramWidth),
    .RowCntW  (WfRowsW)
  ) u_weights (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .abort_i        (abort),
    .instr_valid_i  (q_out_valid[1]),
    .instr_ready_o  (q_out_ready[1]),
    .instr_i        (q_out_data[1][127:0]),
    .index_i        (q_out_data[1][159:128]),
    .take_valid_o   (take_valid[2]),
    .take_mask_o    (take_mask[23:16]),
    .take_grant_i   (take_grant[2]),
    .give_valid_o   (give_valid[2]),
    .give_mask_o    (give_mask[23:16]),
    .give_index_o   (give_index[2]),
    .wd_req_valid_o (wd_req_valid_o),
    .wd_req_ready_i (wd_req_ready_i),
    .wd_req_addr_o  (wd_req_addr_o),
    .wd_rsp_fire_i  (wd_rsp_fire_i),
    .wf_rows_i      (wf_rows_i),
    .idle_o         (unit_idle[1]),
    .blocked_o      (unit_blocked[1]),
    .stall_dep_o    (wts_dep),
    .rows_o         (wts_rows)
  );

  // ---- matrix unit (port 3) --------------------------------------------------------------------
  logic        mat_err, mat_dep, mat_stall_w, mat_stall_in, mat_row;
  logic [7:0]  mat_err_code;
  logic [31:0] mat_err_index;

  tpu_ctrl_matrix #(
    .N      (N),
    .UbRows (UbRows),
    .AccRows(AccRows)
  ) u_matrix (
    .clk_i              (clk_i),
    .rst_ni             (rst_ni),
    .abort_i            (abort),
    .instr_valid_i      (q_out_valid[2]),
    .instr_ready_o      (q_out_ready[2]),
    .instr_i            (q_out_data[2][127:0]),
    .index_i            (q_out_data[2][159:128]),
    .take_valid_o       (take_valid[3]),
    .take_mask_o        (take_mask[31:24]),
    .take_grant_i       (take_grant[3]),
    .give_valid_o       (give_valid[3]),
    .give_mask_o        (give_mask[31:24]),
    .give_index_o       (give_index[3]),
    .ub_rd_req_valid_o  (ub_mxu_rd_req_valid_o),
    .ub_rd_req_ready_i  (ub_mxu_rd_req_ready_i),
    .ub_rd_req_addr_o   (ub_mxu_rd_req_addr_o),
    .ub_rd_rsp_valid_i  (ub_mxu_rd_rsp_valid_i),
    .ub_rd_rsp_ready_o  (ub_mxu_rd_rsp_ready_o),
    .mxu_act_valid_o    (mxu_act_valid_o),
    .mxu_act_ready_i    (mxu_act_ready_i),
    .mxu_act_new_tile_o (mxu_act_new_tile_o),
    .mxu_act_tag_o      (mxu_act_tag_o),
    .mxu_act_pad_o      (mxu_act_pad_o),
    .mxu_act_pad_value_o(mxu_act_pad_value_o),
    .mxu_out_valid_i    (mxu_out_valid_i),
    .mxu_out_tag_i      (mxu_out_tag_i),
    .wf_empty_i         (wf_empty_i),
    .idle_o             (unit_idle[2]),
    .blocked_o          (unit_blocked[2]),
    .error_o            (mat_err),
    .error_code_o       (mat_err_code),
    .error_index_o      (mat_err_index),
    .stall_dep_o        (mat_dep),
    .stall_weights_o    (mat_stall_w),
    .stall_act_in_o     (mat_stall_in),
    .row_o              (mat_row)
  );

  // ---- activation unit (port 4) ----------------------------------------------------------------
  logic        act_err, act_dep, act_row;
  logic [7:0]  act_err_code;
  logic [31:0] act_err_index, act_index_q;

  tpu_ctrl_act #(
    .N        (N),
    .UbRows   (UbRows),
    .AccRows  (AccRows),
    .ParamSets(ParamSets)
  ) u_act (
    .clk_i              (clk_i),
    .rst_ni             (rst_ni),
    .abort_i            (abort),
    .instr_valid_i      (q_out_valid[3]),
    .instr_ready_o      (q_out_ready[3]),
    .instr_i            (q_out_data[3][127:0]),
    .index_i            (q_out_data[3][159:128]),
    .take_valid_o       (take_valid[4]),
    .take_mask_o        (take_mask[39:32]),
    .take_grant_i       (take_grant[4]),
    .give_valid_o       (give_valid[4]),
    .give_mask_o        (give_mask[39:32]),
    .idle_o             (unit_idle[3]),
    .blocked_o          (unit_blocked[3]),
    .error_o            (act_err),
    .error_code_o       (act_err_code),
    .error_index_o      (act_err_index),
    .stall_dep_o        (act_dep),
    .row_o              (act_row),
    .param_wr_valid_i   (dst_valid && dst_target == tpu_isa_pkg::TargetParam),
    .param_wr_ready_o   (param_wr_ready),
    .param_wr_row_i     (dst_row),
    .param_wr_data_i    (dst_data),
    .param_wr_mask_i    (dst_mask),
    .lut_wr_valid_i     (dst_valid && dst_target == tpu_isa_pkg::TargetLut),
    .lut_wr_ready_o     (lut_wr_ready),
    .lut_wr_row_i       (dst_row),
    .lut_wr_data_i      (dst_data),
    .lut_wr_mask_i      (dst_mask),
    .acc_rd_req_valid_o (acc_rd_req_valid_o),
    .acc_rd_req_ready_i (acc_rd_req_ready_i),
    .acc_rd_req_addr_o  (acc_rd_req_addr_o),
    .acc_rd_rsp_valid_i (acc_rd_rsp_valid_i),
    .acc_rd_rsp_ready_o (acc_rd_rsp_ready_o),
    .acc_rd_rsp_data_i  (acc_rd_rsp_data_i),
    .act_bias_o         (act_bias_o),
    .act_multiplier_o   (act_multiplier_o),
    .act_shift_o        (act_shift_o),
    .act_zero_point_o   (act_zero_point_o),
    .act_min_o          (act_min_o),
    .act_max_o          (act_max_o),
    .act_lut_enable_o   (act_lut_enable_o),
    .act_pool_mode_o    (act_pool_mode_o),
    .act_pool_in_h_o    (act_pool_in_h_o),
    .act_pool_in_w_o    (act_pool_in_w_o),
    .act_pool_win_h_o   (act_pool_win_h_o),
    .act_pool_win_w_o   (act_pool_win_w_o),
    .act_pool_stride_h_o(act_pool_stride_h_o),
    .act_pool_stride_w_o(act_pool_stride_w_o),
    .act_pool_same_o    (act_pool_same_o),
    .act_lut_we_o       (act_lut_we_o),
    .act_lut_addr_o     (act_lut_addr_o),
    .act_lut_data_o     (act_lut_data_o),
    .act_in_valid_o     (act_in_valid_o),
    .act_in_ready_i     (act_in_ready_i),
    .act_in_row_o       (act_in_row_o),
    .act_in_tag_o       (act_in_tag_o),
    .act_out_valid_i    (act_out_valid_i),
    .act_out_ready_o    (act_out_ready_o),
    .act_out_row_i      (act_out_row_i),
    .act_out_tag_i      (act_out_tag_i),
    .act_busy_i         (act_busy_i),
    .ub_wr_valid_o      (ub_act_wr_valid_o),
    .ub_wr_ready_i      (ub_act_wr_ready_i),
    .ub_wr_addr_o       (ub_act_wr_addr_o),
    .ub_wr_data_o       (ub_act_wr_data_o)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      act_index_q <= '0;
    end else if (q_out_valid[3] && q_out_ready[3]) begin
      act_index_q <= q_out_data[3][159:128];
    end
  end
  assign give_index[4] = act_index_q;

  // ---- run-time errors: one per cycle, token overflow first, then by unit ----------------------
  // A give that overflows: the first port (dispatcher first) naming a token whose counter plus
  // this cycle's gives passes TOKEN_MAX.
  logic [NumPorts-1:0] ovf_port;
  logic [31:0]         ovf_index;
  logic [9:0]          ovf_sum;     // a counter plus this cycle's gives (at most five)
  logic [7:0]          ovf_tokens;  // tokens that overflow this cycle

  always_comb begin
    ovf_tokens = '0;
    for (int t = 0; t < 8; t++) begin
      ovf_sum = {2'b00, tok_counts[8*t +: 8]};
      for (int p = 0; p < NumPorts; p++) begin
        ovf_sum = ovf_sum + {9'd0, give_valid[p] && give_mask[8*p + t]};
      end
      ovf_tokens[t] = ovf_sum > 10'(tpu_isa_pkg::TokenMax);
    end
    ovf_index = '0;
    ovf_port  = '0;
    for (int p = NumPorts - 1; p >= 0; p--) begin
      if (give_valid[p] && (give_mask[8*p +: 8] & ovf_tokens) != '0) begin
        ovf_port  = NumPorts'(1) << p;
        ovf_index = give_index[p];
      end
    end
  end

  always_comb begin
    rt_error = 1'b1;
    rt_code  = tpu_isa_pkg::ErrOk;
    rt_index = '0;
    if (tok_overflow) begin
      rt_code  = tpu_isa_pkg::ErrTokenOverflow;
      rt_index = ovf_index;
    end else if (dma_err) begin
      rt_code  = dma_err_code;
      rt_index = dma_err_index;
    end else if (mat_err) begin
      rt_code  = mat_err_code;
      rt_index = mat_err_index;
    end else if (act_err) begin
      rt_code  = act_err_code;
      rt_index = act_err_index;
    end else begin
      rt_error = 1'b0;
    end
  end

  // ---- performance counters --------------------------------------------------------------------
  tpu_ctrl_perf #(
    .RowIncW(RowIncW)
  ) u_perf (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .running_i       (running_o),
    .mxu_row_i       (mat_row),
    .stall_weights_i (mat_stall_w),
    .stall_act_in_i  (mat_stall_in),
    .stall_dma_i     (dma_stall),
    .stall_dep_i     (sync_stall || dma_dep || wts_dep || mat_dep || act_dep),
    .row_dma_i       (dma_row),
    .rows_weights_i  (wts_rows),
    .row_act_i       (act_row),
    .perf_o          (perf_o)
  );

  // Status only waveforms look at.
  logic unused_status;
  assign unused_status = ^{tok_avail, ovf_port, mxu_tile_loaded_i, q_count[0], q_count[1],
                          q_count[2], q_count[3]};

  `TPU_ASSERT(UnitsIssueOnlyWhileRunning, !(|q_push) || running_o, clk_i, rst_ni)

endmodule
