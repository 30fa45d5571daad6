// Test top for the activation unit (testbench only, never synthesized): tpu_ctrl_act driving
// the real activation pipeline tpu_act, built as tpu_core builds it (windows up to 15, strides
// up to 7, images up to 255 x 255). The C++ test drives everything else: the instruction queue,
// the token counters, the parameter / table writes (the DMA unit), the accumulator read port
// and the UB write port. Every port is tpu_ctrl_act's port of the same name (see its comments),
// plus act_busy_o.
module tpu_ctrl_act_tb #(
  parameter int unsigned N         = 8,     // MXU size: channels per row
  parameter int unsigned UbRows    = 1024,  // UB_ROWS
  parameter int unsigned AccRows   = 1024,  // ACC_ROWS
  parameter int unsigned ParamSets = 8,     // PARAM_SETS
  localparam int unsigned AwUb  = (UbRows > 1) ? $clog2(UbRows) : 1,
  localparam int unsigned AwAcc = (AccRows > 1) ? $clog2(AccRows) : 1
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               abort_i,
  input  logic               instr_valid_i,
  output logic               instr_ready_o,
  input  logic [127:0]       instr_i,
  input  logic [31:0]        index_i,
  output logic               take_valid_o,
  output logic [7:0]         take_mask_o,
  input  logic               take_grant_i,
  output logic               give_valid_o,
  output logic [7:0]         give_mask_o,
  output logic               idle_o,
  output logic               blocked_o,
  output logic               error_o,
  output logic [7:0]         error_code_o,
  output logic [31:0]        error_index_o,
  output logic               stall_dep_o,
  output logic               row_o,
  input  logic               param_wr_valid_i,
  output logic               param_wr_ready_o,
  input  logic [32:0]        param_wr_row_i,
  input  logic [8*N-1:0]     param_wr_data_i,
  input  logic [N-1:0]       param_wr_mask_i,
  input  logic               lut_wr_valid_i,
  output logic               lut_wr_ready_o,
  input  logic [32:0]        lut_wr_row_i,
  input  logic [8*N-1:0]     lut_wr_data_i,
  input  logic [N-1:0]       lut_wr_mask_i,
  output logic               acc_rd_req_valid_o,
  input  logic               acc_rd_req_ready_i,
  output logic [AwAcc-1:0]   acc_rd_req_addr_o,
  input  logic               acc_rd_rsp_valid_i,
  output logic               acc_rd_rsp_ready_o,
  input  logic [32*N-1:0]    acc_rd_rsp_data_i,
  output logic               ub_wr_valid_o,
  input  logic               ub_wr_ready_i,
  output logic [AwUb-1:0]    ub_wr_addr_o,
  output logic [8*N-1:0]     ub_wr_data_o,
  output logic               act_busy_o      // tpu_act busy_o, for the test's checks
);

  logic [32*N-1:0] act_bias, act_multiplier, act_in_row;
  logic [6*N-1:0]  act_shift;
  logic [7:0]      act_zero_point, act_min, act_max, act_pool_in_h, act_pool_in_w;
  logic [7:0]      act_lut_addr, act_lut_data;
  logic [3:0]      act_pool_win_h, act_pool_win_w, act_pool_stride_h, act_pool_stride_w;
  logic [1:0]      act_pool_mode;
  logic            act_lut_enable, act_pool_same, act_lut_we;
  logic            act_in_valid, act_in_ready, act_out_valid, act_out_ready, act_busy;
  logic [15:0]     act_in_tag, act_out_tag;
  logic [8*N-1:0]  act_out_row;

  tpu_ctrl_act #(
    .N        (N),
    .UbRows   (UbRows),
    .AccRows  (AccRows),
    .ParamSets(ParamSets),
    .DimWidth (8),
    .WinWidth (4)
  ) u_unit (
    .clk_i              (clk_i),
    .rst_ni             (rst_ni),
    .abort_i            (abort_i),
    .instr_valid_i      (instr_valid_i),
    .instr_ready_o      (instr_ready_o),
    .instr_i            (instr_i),
    .index_i            (index_i),
    .take_valid_o       (take_valid_o),
    .take_mask_o        (take_mask_o),
    .take_grant_i       (take_grant_i),
    .give_valid_o       (give_valid_o),
    .give_mask_o        (give_mask_o),
    .idle_o             (idle_o),
    .blocked_o          (blocked_o),
    .error_o            (error_o),
    .error_code_o       (error_code_o),
    .error_index_o      (error_index_o),
    .stall_dep_o        (stall_dep_o),
    .row_o              (row_o),
    .param_wr_valid_i   (param_wr_valid_i),
    .param_wr_ready_o   (param_wr_ready_o),
    .param_wr_row_i     (param_wr_row_i),
    .param_wr_data_i    (param_wr_data_i),
    .param_wr_mask_i    (param_wr_mask_i),
    .lut_wr_valid_i     (lut_wr_valid_i),
    .lut_wr_ready_o     (lut_wr_ready_o),
    .lut_wr_row_i       (lut_wr_row_i),
    .lut_wr_data_i      (lut_wr_data_i),
    .lut_wr_mask_i      (lut_wr_mask_i),
    .acc_rd_req_valid_o (acc_rd_req_valid_o),
    .acc_rd_req_ready_i (acc_rd_req_ready_i),
    .acc_rd_req_addr_o  (acc_rd_req_addr_o),
    .acc_rd_rsp_valid_i (acc_rd_rsp_valid_i),
    .acc_rd_rsp_ready_o (acc_rd_rsp_ready_o),
    .acc_rd_rsp_data_i  (acc_rd_rsp_data_i),
    .act_bias_o         (act_bias),
    .act_multiplier_o   (act_multiplier),
    .act_shift_o        (act_shift),
    .act_zero_point_o   (act_zero_point),
    .act_min_o          (act_min),
    .act_max_o          (act_max),
    .act_lut_enable_o   (act_lut_enable),
    .act_pool_mode_o    (act_pool_mode),
    .act_pool_in_h_o    (act_pool_in_h),
    .act_pool_in_w_o    (act_pool_in_w),
    .act_pool_win_h_o   (act_pool_win_h),
    .act_pool_win_w_o   (act_pool_win_w),
    .act_pool_stride_h_o(act_pool_stride_h),
    .act_pool_stride_w_o(act_pool_stride_w),
    .act_pool_same_o    (act_pool_same),
    .act_lut_we_o       (act_lut_we),
    .act_lut_addr_o     (act_lut_addr),
    .act_lut_data_o     (act_lut_data),
    .act_in_valid_o     (act_in_valid),
    .act_in_ready_i     (act_in_ready),
    .act_in_row_o       (act_in_row),
    .act_in_tag_o       (act_in_tag),
    .act_out_valid_i    (act_out_valid),
    .act_out_ready_o    (act_out_ready),
    .act_out_row_i      (act_out_row),
    .act_out_tag_i      (act_out_tag),
    .act_busy_i         (act_busy),
    .ub_wr_valid_o      (ub_wr_valid_o),
    .ub_wr_ready_i      (ub_wr_ready_i),
    .ub_wr_addr_o       (ub_wr_addr_o),
    .ub_wr_data_o       (ub_wr_data_o)
  );

  tpu_act #(
    .N        (N),
    .TagWidth (16),
    .MaxWidth (255),
    .MaxHeight(255),
    .MaxWindow(15),
    .MaxStride(7),
    .DimWidth (8),
    .WinWidth (4)
  ) u_act (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .bias_i          (act_bias),
    .multiplier_i    (act_multiplier),
    .shift_i         (act_shift),
    .out_zero_point_i(act_zero_point),
    .act_min_i       (act_min),
    .act_max_i       (act_max),
    .lut_enable_i    (act_lut_enable),
    .pool_mode_i     (act_pool_mode),
    .pool_in_h_i     (act_pool_in_h),
    .pool_in_w_i     (act_pool_in_w),
    .pool_window_h_i (act_pool_win_h),
    .pool_window_w_i (act_pool_win_w),
    .pool_stride_h_i (act_pool_stride_h),
    .pool_stride_w_i (act_pool_stride_w),
    .pool_same_i     (act_pool_same),
    .lut_we_i        (act_lut_we),
    .lut_addr_i      (act_lut_addr),
    .lut_data_i      (act_lut_data),
    .in_valid_i      (act_in_valid),
    .in_ready_o      (act_in_ready),
    .in_row_i        (act_in_row),
    .in_tag_i        (act_in_tag),
    .out_valid_o     (act_out_valid),
    .out_ready_i     (act_out_ready),
    .out_row_o       (act_out_row),
    .out_tag_o       (act_out_tag),
    .busy_o          (act_busy)
  );

  assign act_busy_o = act_busy;

endmodule
