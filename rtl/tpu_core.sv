`include "tpu_assert.svh"

// TPU core: the controller (rtl/ctrl/tpu_ctrl.sv) and every datapath block: the MXU
// (rtl/mxu), the unified buffer (rtl/ub), the accumulators (rtl/acc), the weight FIFO
// (rtl/wfifo) and the activation pipeline (rtl/act). Instructions (docs/isa.md) stream in on
// instr_*; the host-memory port carries the DMA traffic of READ_HOST / WRITE_HOST, the
// weight-DRAM ports the READ_HOST writes into the DRAM and the READ_WEIGHTS tile reads. The
// host interface (or a C++ test bench) drives these ports. docs/controller.md is the contract.
//
// start_i, honoured only while the queue is stopped, resets every block for one cycle (the
// memories keep their contents: the UB, accumulators, parameter memory and LUT carry data
// from one program to the next) and then starts the queue, so that a program after an error
// finds no stale weight tile, token or queue entry.
module tpu_core #(
  parameter int unsigned N          = tpu_pkg::MxuDim,    // MXU size; bytes per UB row
  parameter int unsigned UbRows     = tpu_pkg::UbDepth,   // UB_ROWS
  parameter int unsigned AccRows    = tpu_pkg::AccDepth,  // ACC_ROWS, even
  parameter logic [63:0] DramBytes  = 64'd67108864,       // DRAM_BYTES
  parameter int unsigned ParamSets  = 64,                 // PARAM_SETS
  parameter int unsigned DramWidth  = N * 8,              // weight-DRAM beat bits
  parameter int unsigned QueueDepth = 4,                  // instructions per unit queue
  localparam int unsigned PerfWidth = 10 * 64             // the ten 64-bit counters
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 start_i,          // pulse: reset blocks, clear status, run
  // Instruction stream.
  input  logic                 instr_valid_i,    // instr_i holds the next instruction
  output logic                 instr_ready_o,    // ... and it is taken this cycle
  input  logic [127:0]         instr_i,          // word w at [32w +: 32]
  // Host memory (DMA), one beat of N bytes per request, reads answered in order.
  output logic                 hm_req_valid_o,   // a request is offered
  input  logic                 hm_req_ready_i,   // ... and taken this cycle
  output logic                 hm_req_write_o,   // 1 write, 0 read
  output logic [47:0]          hm_req_addr_o,    // host byte address, a multiple of N
  output logic [8*N-1:0]       hm_req_wdata_o,   // byte b at [8b +: 8]
  output logic [N-1:0]         hm_req_wmask_o,   // bytes written
  input  logic                 hm_rsp_valid_i,   // read data of the oldest read
  output logic                 hm_rsp_ready_o,   // ... taken this cycle
  input  logic [8*N-1:0]       hm_rsp_rdata_i,   // byte b at [8b +: 8]
  input  logic                 hm_rsp_error_i,   // the beat failed
  // Weight DRAM, reads: one request per N x N tile, answered by its beats in order.
  output logic                 wd_req_valid_o,   // a tile read is offered
  input  logic                 wd_req_ready_i,   // ... and taken this cycle
  output logic [tpu_isa_pkg::ReadHostDestWidth-1:0] wd_req_addr_o,  // byte address of the tile
  input  logic                 wd_rsp_valid_i,   // wd_rsp_data_i holds a beat
  output logic                 wd_rsp_ready_o,   // ... and it is taken this cycle
  input  logic [DramWidth-1:0] wd_rsp_data_i,    // weight b at [8b +: 8]
  // Weight DRAM, writes (READ_HOST target dram): one row of N bytes with a byte mask.
  output logic                 wd_wr_valid_o,    // a write is offered
  input  logic                 wd_wr_ready_i,    // ... and taken this cycle
  output logic [tpu_isa_pkg::ReadHostDestWidth-1:0] wd_wr_addr_o,   // byte address, N-aligned
  output logic [8*N-1:0]       wd_wr_data_o,     // byte b at [8b +: 8]
  output logic [N-1:0]         wd_wr_mask_o,     // bytes written
  // Status.
  output logic                 running_o,        // started, not done, not stopped by an error
  output logic                 done_o,           // HALT completed
  output logic                 error_o,          // stopped by an error, every unit drained
  output logic [7:0]           error_code_o,     // tpu_isa_pkg::error_e, valid with error_o
  output logic [31:0]          error_index_o,    // index of the failing instruction
  output logic                 irq_o,            // pulse when done_o or error_o rises
  output logic [PerfWidth-1:0] perf_o            // counters, docs/controller.md section 4
);

  localparam int unsigned UbAw  = (UbRows > 1) ? $clog2(UbRows) : 1;
  localparam int unsigned AccAw = (AccRows > 1) ? $clog2(AccRows) : 1;
  localparam int unsigned TagW  = tpu_pkg::MxuTagWidth;

  // ---- start: a one-cycle reset of every block, then the queue runs --------------------------
  // blocks_rst_nq is the blocks' reset: a flip-flop, low while rst_ni is (asserted
  // asynchronously with it, released at a clock edge) and in the cycle soft_rst_q is high, so
  // no logic drives an asynchronous reset.
  logic soft_rst_d, soft_rst_q, go_q, blocks_rst_nq, blocks_rst_n, stopped;

  assign soft_rst_d = start_i && stopped && !soft_rst_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      soft_rst_q    <= 1'b0;
      go_q          <= 1'b0;
      blocks_rst_nq <= 1'b0;
    end else begin
      soft_rst_q    <= soft_rst_d;
      go_q          <= soft_rst_q;
      blocks_rst_nq <= !soft_rst_d;
    end
  end

  assign blocks_rst_n = blocks_rst_nq;
  assign stopped      = !running_o && !go_q;

  // ---- controller <-> datapath nets ------------------------------------------------------------
  // UB
  logic             ub_dma_wr_valid, ub_dma_wr_ready;
  logic [UbAw-1:0]  ub_dma_wr_addr;
  logic [8*N-1:0]   ub_dma_wr_data;
  logic [N-1:0]     ub_dma_wr_mask;
  logic             ub_act_wr_valid, ub_act_wr_ready;
  logic [UbAw-1:0]  ub_act_wr_addr;
  logic [8*N-1:0]   ub_act_wr_data;
  logic             ub_dma_rd_req_valid, ub_dma_rd_req_ready;
  logic [UbAw-1:0]  ub_dma_rd_req_addr;
  logic             ub_dma_rd_rsp_valid, ub_dma_rd_rsp_ready;
  logic [8*N-1:0]   ub_dma_rd_rsp_data;
  logic             ub_mxu_rd_req_valid, ub_mxu_rd_req_ready;
  logic [UbAw-1:0]  ub_mxu_rd_req_addr;
  logic             ub_mxu_rd_rsp_valid, ub_mxu_rd_rsp_ready;
  logic [8*N-1:0]   ub_mxu_rd_rsp_data;
  logic             ub_busy;
  // MXU
  logic             mxu_w_valid, mxu_w_ready;
  logic [8*N-1:0]   mxu_w_row;
  logic             mxu_act_valid, mxu_act_ready, mxu_act_new_tile;
  logic [TagW-1:0]  mxu_act_tag, mxu_out_tag;
  logic             mxu_act_pad;        // the row is padding (MATMUL window), not the UB's
  logic [7:0]       mxu_act_pad_value;  // ... of N bytes of this value
  logic [8*N-1:0]   mxu_act_row;        // the activation row into the MXU
  logic             mxu_out_valid, mxu_tile_loaded;
  logic [32*N-1:0]  mxu_out_row;
  // Weight FIFO status
  logic             wf_empty, wf_full;
  logic [$clog2((tpu_pkg::WfifoDepthTiles + 1) * N + 1)-1:0] wf_rows;
  logic [$clog2(tpu_pkg::WfifoDepthTiles + 2)-1:0]           wf_tiles;
  // Accumulators
  logic             acc_rd_req_valid, acc_rd_req_ready;
  logic [AccAw-1:0] acc_rd_req_addr;
  logic             acc_rd_rsp_valid, acc_rd_rsp_ready;
  logic [32*N-1:0]  acc_rd_rsp_data;
  logic             acc_wr_busy, acc_rd_busy, acc_rd_stall;
  // Activation pipeline
  logic [32*N-1:0]  act_bias, act_multiplier;
  logic [6*N-1:0]   act_shift;
  logic [7:0]       act_zero_point, act_min, act_max;
  logic             act_lut_enable, act_pool_same;
  logic [1:0]       act_pool_mode;
  logic [7:0]       act_pool_in_h, act_pool_in_w;
  logic [3:0]       act_pool_win_h, act_pool_win_w, act_pool_stride_h, act_pool_stride_w;
  logic             act_lut_we;
  logic [7:0]       act_lut_addr, act_lut_data;
  logic             act_in_valid, act_in_ready, act_out_valid, act_out_ready, act_busy;
  logic [32*N-1:0]  act_in_row;
  logic [15:0]      act_in_tag, act_out_tag;
  logic [8*N-1:0]   act_out_row;

  // ---- controller ------------------------------------------------------------------------------
  tpu_ctrl #(
    .N         (N),
    .UbRows    (UbRows),
    .AccRows   (AccRows),
    .DramBytes (DramBytes),
    .ParamSets (ParamSets),
    .DramWidth (DramWidth),
    .QueueDepth(QueueDepth)
  ) u_ctrl (
    .clk_i                 (clk_i),
    .rst_ni                (blocks_rst_n),
    .start_i               (go_q),
    .instr_valid_i         (instr_valid_i),
    .instr_ready_o         (instr_ready_o),
    .instr_i               (instr_i),
    .hm_req_valid_o        (hm_req_valid_o),
    .hm_req_ready_i        (hm_req_ready_i),
    .hm_req_write_o        (hm_req_write_o),
    .hm_req_addr_o         (hm_req_addr_o),
    .hm_req_wdata_o        (hm_req_wdata_o),
    .hm_req_wmask_o        (hm_req_wmask_o),
    .hm_rsp_valid_i        (hm_rsp_valid_i),
    .hm_rsp_ready_o        (hm_rsp_ready_o),
    .hm_rsp_rdata_i        (hm_rsp_rdata_i),
    .hm_rsp_error_i        (hm_rsp_error_i),
    .wd_req_valid_o        (wd_req_valid_o),
    .wd_req_ready_i        (wd_req_ready_i),
    .wd_req_addr_o         (wd_req_addr_o),
    .wd_rsp_fire_i         (wd_rsp_valid_i && wd_rsp_ready_o),
    .wd_wr_valid_o         (wd_wr_valid_o),
    .wd_wr_ready_i         (wd_wr_ready_i),
    .wd_wr_addr_o          (wd_wr_addr_o),
    .wd_wr_data_o          (wd_wr_data_o),
    .wd_wr_mask_o          (wd_wr_mask_o),
    .wf_rows_i             (wf_rows),
    .wf_empty_i            (wf_empty),
    .ub_dma_wr_valid_o     (ub_dma_wr_valid),
    .ub_dma_wr_ready_i     (ub_dma_wr_ready),
    .ub_dma_wr_addr_o      (ub_dma_wr_addr),
    .ub_dma_wr_data_o      (ub_dma_wr_data),
    .ub_dma_wr_mask_o      (ub_dma_wr_mask),
    .ub_dma_rd_req_valid_o (ub_dma_rd_req_valid),
    .ub_dma_rd_req_ready_i (ub_dma_rd_req_ready),
    .ub_dma_rd_req_addr_o  (ub_dma_rd_req_addr),
    .ub_dma_rd_rsp_valid_i (ub_dma_rd_rsp_valid),
    .ub_dma_rd_rsp_ready_o (ub_dma_rd_rsp_ready),
    .ub_dma_rd_rsp_data_i  (ub_dma_rd_rsp_data),
    .ub_mxu_rd_req_valid_o (ub_mxu_rd_req_valid),
    .ub_mxu_rd_req_ready_i (ub_mxu_rd_req_ready),
    .ub_mxu_rd_req_addr_o  (ub_mxu_rd_req_addr),
    .ub_mxu_rd_rsp_valid_i (ub_mxu_rd_rsp_valid),
    .ub_mxu_rd_rsp_ready_o (ub_mxu_rd_rsp_ready),
    .mxu_act_valid_o       (mxu_act_valid),
    .mxu_act_ready_i       (mxu_act_ready),
    .mxu_act_new_tile_o    (mxu_act_new_tile),
    .mxu_act_tag_o         (mxu_act_tag),
    .mxu_act_pad_o         (mxu_act_pad),
    .mxu_act_pad_value_o   (mxu_act_pad_value),
    .mxu_out_valid_i       (mxu_out_valid),
    .mxu_out_tag_i         (mxu_out_tag),
    .mxu_tile_loaded_i     (mxu_tile_loaded),
    .acc_rd_req_valid_o    (acc_rd_req_valid),
    .acc_rd_req_ready_i    (acc_rd_req_ready),
    .acc_rd_req_addr_o     (acc_rd_req_addr),
    .acc_rd_rsp_valid_i    (acc_rd_rsp_valid),
    .acc_rd_rsp_ready_o    (acc_rd_rsp_ready),
    .acc_rd_rsp_data_i     (acc_rd_rsp_data),
    .act_bias_o            (act_bias),
    .act_multiplier_o      (act_multiplier),
    .act_shift_o           (act_shift),
    .act_zero_point_o      (act_zero_point),
    .act_min_o             (act_min),
    .act_max_o             (act_max),
    .act_lut_enable_o      (act_lut_enable),
    .act_pool_mode_o       (act_pool_mode),
    .act_pool_in_h_o       (act_pool_in_h),
    .act_pool_in_w_o       (act_pool_in_w),
    .act_pool_win_h_o      (act_pool_win_h),
    .act_pool_win_w_o      (act_pool_win_w),
    .act_pool_stride_h_o   (act_pool_stride_h),
    .act_pool_stride_w_o   (act_pool_stride_w),
    .act_pool_same_o       (act_pool_same),
    .act_lut_we_o          (act_lut_we),
    .act_lut_addr_o        (act_lut_addr),
    .act_lut_data_o        (act_lut_data),
    .act_in_valid_o        (act_in_valid),
    .act_in_ready_i        (act_in_ready),
    .act_in_row_o          (act_in_row),
    .act_in_tag_o          (act_in_tag),
    .act_out_valid_i       (act_out_valid),
    .act_out_ready_o       (act_out_ready),
    .act_out_row_i         (act_out_row),
    .act_out_tag_i         (act_out_tag),
    .act_busy_i            (act_busy),
    .ub_act_wr_valid_o     (ub_act_wr_valid),
    .ub_act_wr_ready_i     (ub_act_wr_ready),
    .ub_act_wr_addr_o      (ub_act_wr_addr),
    .ub_act_wr_data_o      (ub_act_wr_data),
    .running_o             (running_o),
    .done_o                (done_o),
    .error_o               (error_o),
    .error_code_o          (error_code_o),
    .error_index_o         (error_index_o),
    .irq_o                 (irq_o),
    .perf_o                (perf_o)
  );

  // ---- datapath --------------------------------------------------------------------------------
  tpu_ub #(
    .N    (N),
    .Depth(UbRows)
  ) u_ub (
    .clk_i              (clk_i),
    .rst_ni             (blocks_rst_n),
    .dma_wr_valid_i     (ub_dma_wr_valid),
    .dma_wr_ready_o     (ub_dma_wr_ready),
    .dma_wr_addr_i      (ub_dma_wr_addr),
    .dma_wr_data_i      (ub_dma_wr_data),
    .dma_wr_mask_i      (ub_dma_wr_mask),
    .act_wr_valid_i     (ub_act_wr_valid),
    .act_wr_ready_o     (ub_act_wr_ready),
    .act_wr_addr_i      (ub_act_wr_addr),
    .act_wr_data_i      (ub_act_wr_data),
    .dma_rd_req_valid_i (ub_dma_rd_req_valid),
    .dma_rd_req_ready_o (ub_dma_rd_req_ready),
    .dma_rd_req_addr_i  (ub_dma_rd_req_addr),
    .dma_rd_rsp_valid_o (ub_dma_rd_rsp_valid),
    .dma_rd_rsp_ready_i (ub_dma_rd_rsp_ready),
    .dma_rd_rsp_data_o  (ub_dma_rd_rsp_data),
    .mxu_rd_req_valid_i (ub_mxu_rd_req_valid),
    .mxu_rd_req_ready_o (ub_mxu_rd_req_ready),
    .mxu_rd_req_addr_i  (ub_mxu_rd_req_addr),
    .mxu_rd_rsp_valid_o (ub_mxu_rd_rsp_valid),
    .mxu_rd_rsp_ready_i (ub_mxu_rd_rsp_ready),
    .mxu_rd_rsp_data_o  (ub_mxu_rd_rsp_data),
    .busy_o             (ub_busy)
  );

  tpu_wfifo #(
    .N         (N),
    .DramWidth (DramWidth)
  ) u_wfifo (
    .clk_i          (clk_i),
    .rst_ni         (blocks_rst_n),
    .flush_i        (1'b0),
    .dram_valid_i   (wd_rsp_valid_i),
    .dram_ready_o   (wd_rsp_ready_o),
    .dram_data_i    (wd_rsp_data_i),
    .weight_valid_o (mxu_w_valid),
    .weight_ready_i (mxu_w_ready),
    .weight_row_o   (mxu_w_row),
    .rows_o         (wf_rows),
    .tiles_o        (wf_tiles),
    .empty_o        (wf_empty),
    .full_o         (wf_full)
  );

  // MATMUL window: a tap outside the image enters as a pad row instead of the UB response.
  assign mxu_act_row = mxu_act_pad ? {N{mxu_act_pad_value}} : ub_mxu_rd_rsp_data;

  tpu_mxu #(
    .N(N)
  ) u_mxu (
    .clk_i          (clk_i),
    .rst_ni         (blocks_rst_n),
    .weight_valid_i (mxu_w_valid),
    .weight_ready_o (mxu_w_ready),
    .weight_row_i   (mxu_w_row),
    .act_valid_i    (mxu_act_valid),
    .act_ready_o    (mxu_act_ready),
    .act_new_tile_i (mxu_act_new_tile),
    .act_row_i      (mxu_act_row),
    .act_tag_i      (mxu_act_tag),
    .out_valid_o    (mxu_out_valid),
    .out_row_o      (mxu_out_row),
    .out_tag_o      (mxu_out_tag),
    .tile_loaded_o  (mxu_tile_loaded)
  );

  // MXU results go straight into the accumulators (tag: docs/controller.md, matrix unit).
  tpu_acc #(
    .N    (N),
    .Depth(AccRows)
  ) u_acc (
    .clk_i           (clk_i),
    .rst_ni          (blocks_rst_n),
    .wr_valid_i      (mxu_out_valid),
    .wr_addr_i       (mxu_out_tag[AccAw-1:0]),
    .wr_accumulate_i (mxu_out_tag[14]),
    .wr_data_i       (mxu_out_row),
    .rd_req_valid_i  (acc_rd_req_valid),
    .rd_req_ready_o  (acc_rd_req_ready),
    .rd_req_addr_i   (acc_rd_req_addr),
    .rd_rsp_valid_o  (acc_rd_rsp_valid),
    .rd_rsp_ready_i  (acc_rd_rsp_ready),
    .rd_rsp_data_o   (acc_rd_rsp_data),
    .wr_busy_o       (acc_wr_busy),
    .rd_busy_o       (acc_rd_busy),
    .rd_stall_o      (acc_rd_stall)
  );

  // Built for every pooling configuration the ISA accepts (window 15, stride 7, image 255).
  tpu_act #(
    .N         (N),
    .TagWidth  (16),
    .MaxWidth  (255),
    .MaxHeight (255),
    .MaxWindow (15),
    .MaxStride (7),
    .DimWidth  (8),
    .WinWidth  (4)
  ) u_act (
    .clk_i            (clk_i),
    .rst_ni           (blocks_rst_n),
    .bias_i           (act_bias),
    .multiplier_i     (act_multiplier),
    .shift_i          (act_shift),
    .out_zero_point_i (act_zero_point),
    .act_min_i        (act_min),
    .act_max_i        (act_max),
    .lut_enable_i     (act_lut_enable),
    .pool_mode_i      (act_pool_mode),
    .pool_in_h_i      (act_pool_in_h),
    .pool_in_w_i      (act_pool_in_w),
    .pool_window_h_i  (act_pool_win_h),
    .pool_window_w_i  (act_pool_win_w),
    .pool_stride_h_i  (act_pool_stride_h),
    .pool_stride_w_i  (act_pool_stride_w),
    .pool_same_i      (act_pool_same),
    .lut_we_i         (act_lut_we),
    .lut_addr_i       (act_lut_addr),
    .lut_data_i       (act_lut_data),
    .in_valid_i       (act_in_valid),
    .in_ready_o       (act_in_ready),
    .in_row_i         (act_in_row),
    .in_tag_i         (act_in_tag),
    .out_valid_o      (act_out_valid),
    .out_ready_i      (act_out_ready),
    .out_row_o        (act_out_row),
    .out_tag_o        (act_out_tag),
    .busy_o           (act_busy)
  );

  // Status outputs of the blocks that only assertions and waveforms look at.
  logic unused_status;
  assign unused_status = ^{ub_busy, wf_tiles, wf_full, acc_wr_busy, acc_rd_busy, acc_rd_stall};

  `TPU_ASSERT_INIT(TagHoldsAccRow, AccAw <= 14 && TagW == 16)

endmodule
