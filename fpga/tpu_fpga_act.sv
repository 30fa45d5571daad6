// The activation pipeline (rtl/act/tpu_act.sv: requantization, lookup table, pooling) behind
// serial I/O (tpu_fpga_shift_io) for place and route on an iCE40. Its configuration ports,
// stable for a pass in the core, are bits of the input shift register like its data ports.
module tpu_fpga_act #(
  parameter int unsigned N         = 2,  // channels per row
  parameter int unsigned TagWidth  = tpu_pkg::ActTagWidth,
  parameter int unsigned MaxWidth  = tpu_pkg::PoolMaxWidth,
  parameter int unsigned MaxHeight = tpu_pkg::PoolMaxHeight,
  parameter int unsigned DimWidth  = tpu_pkg::PoolDimWidth,
  parameter int unsigned WinWidth  = tpu_pkg::PoolWinWidth
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic shift_i,    // see tpu_fpga_shift_io
  input  logic sdi_i,
  input  logic capture_i,
  output logic sdo_o
);

  localparam int unsigned ShiftWidth = tpu_pkg::ActShiftWidth;
  localparam int unsigned InBits = N * (32 + 32 + ShiftWidth + 32) + 3 * 8 + 1 + 2 +
                                   2 * DimWidth + 4 * WinWidth + 1 + 1 + 8 + 8 + 1 +
                                   TagWidth + 1;
  localparam int unsigned OutBits = 1 + 1 + N * 8 + TagWidth + 1;

  logic [InBits-1:0]  in_bits;
  logic [OutBits-1:0] out_bits;

  tpu_fpga_shift_io #(
    .InBits(InBits), .OutBits(OutBits)
  ) u_io (
    .clk_i, .rst_ni, .shift_i, .sdi_i, .capture_i, .sdo_o,
    .in_o (in_bits),
    .out_i(out_bits)
  );

  logic [N*32-1:0]         bias, multiplier, in_row;
  logic [N*ShiftWidth-1:0] shift;
  logic [7:0]              out_zero_point, act_min, act_max, lut_addr, lut_data;
  logic                    lut_enable, pool_same, lut_we, in_valid, out_ready;
  logic [1:0]              pool_mode;
  logic [DimWidth-1:0]     pool_in_h, pool_in_w;
  logic [WinWidth-1:0]     pool_window_h, pool_window_w, pool_stride_h, pool_stride_w;
  logic [TagWidth-1:0]     in_tag, out_tag;
  logic                    in_ready, out_valid, busy;
  logic [N*8-1:0]          out_row;

  assign {bias, multiplier, shift, out_zero_point, act_min, act_max, lut_enable, pool_mode,
          pool_in_h, pool_in_w, pool_window_h, pool_window_w, pool_stride_h, pool_stride_w,
          pool_same, lut_we, lut_addr, lut_data, in_valid, in_row, in_tag, out_ready} = in_bits;
  assign out_bits = {in_ready, out_valid, out_row, out_tag, busy};

  tpu_act #(
    .N(N), .TagWidth(TagWidth), .MaxWidth(MaxWidth), .MaxHeight(MaxHeight),
    .DimWidth(DimWidth), .WinWidth(WinWidth)
  ) u_act (
    .clk_i,
    .rst_ni,
    .bias_i          (bias),
    .multiplier_i    (multiplier),
    .shift_i         (shift),
    .out_zero_point_i(out_zero_point),
    .act_min_i       (act_min),
    .act_max_i       (act_max),
    .lut_enable_i    (lut_enable),
    .pool_mode_i     (pool_mode),
    .pool_in_h_i     (pool_in_h),
    .pool_in_w_i     (pool_in_w),
    .pool_window_h_i (pool_window_h),
    .pool_window_w_i (pool_window_w),
    .pool_stride_h_i (pool_stride_h),
    .pool_stride_w_i (pool_stride_w),
    .pool_same_i     (pool_same),
    .lut_we_i        (lut_we),
    .lut_addr_i      (lut_addr),
    .lut_data_i      (lut_data),
    .in_valid_i      (in_valid),
    .in_ready_o      (in_ready),
    .in_row_i        (in_row),
    .in_tag_i        (in_tag),
    .out_valid_o     (out_valid),
    .out_ready_i     (out_ready),
    .out_row_o       (out_row),
    .out_tag_o       (out_tag),
    .busy_o          (busy)
  );

endmodule
