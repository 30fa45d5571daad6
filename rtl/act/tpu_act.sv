`include "tpu_assert.svh"

// Activation pipeline: accumulator rows (N x int32, lane c = output channel c) in, int8 rows for
// the unified buffer out. The requantization stage (tpu_act_requant: bias, fixed-point
// multiplier, zero point, clamp, optional lookup table) feeds the pooling unit (tpu_act_pool:
// bypass, max or average pooling of an NHWC image whose pixels are the rows, in raster order),
// bit-exact with host_driver/golden RequantizeMatrix (+ ApplyLut) followed by MaxPool2d /
// AvgPool2d. The pooled value is clamped to the same [act_min, act_max] as the requantization.
//
// The two stages are joined by their valid/ready handshakes, with nothing in between: the whole
// unit takes one row per cycle (VALID images and bypass stream back to back; SAME padding
// positions take a cycle each, see tpu_act_pool), and an output stall stops the input only once
// the stages are full, losing nothing. in_ready_o depends combinationally on out_ready_i.
//
// Latency 13 (7 requantization + 6 pooling): a row accepted in cycle t that completes a pooling
// window (every row in bypass) is offered on out_row_o from cycle t + 13 on, if nothing stalled.
//
// Tags: in bypass every output row carries its input row's tag; when pooling, each output row
// carries the tag of the last input row that reached the pooling unit before it was produced
// (the row that completed its window, or the image's last row for windows ending in padding).
//
// Configuration is held stable by the controller for a whole pass, from the first row's
// acceptance until busy_o falls. (The pooling unit registers its configuration in two steps
// and needs it two cycles before an image's first row reaches it: the requantization's seven
// stages give it those.) The
// lookup table is loaded through the lut_* port only while no row is offered or in the
// requantization stage (asserted there).
module tpu_act #(
  parameter int unsigned N          = tpu_pkg::MxuDim,         // channels per row
  parameter int unsigned TagWidth   = tpu_pkg::ActTagWidth,    // user bits carried with rows
  parameter int unsigned ShiftWidth = tpu_pkg::ActShiftWidth,  // bits of a shift (must be 6)
  parameter int unsigned MaxWidth   = tpu_pkg::PoolMaxWidth,   // largest image width
  parameter int unsigned MaxHeight  = tpu_pkg::PoolMaxHeight,  // largest image height
  parameter int unsigned MaxWindow  = tpu_pkg::PoolMaxWindow,  // largest pooling window side
  parameter int unsigned MaxStride  = tpu_pkg::PoolMaxStride,  // largest pooling stride
  parameter int unsigned DimWidth   = tpu_pkg::PoolDimWidth,   // bits of the image sizes
  parameter int unsigned WinWidth   = tpu_pkg::PoolWinWidth    // bits of window, stride fields
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  // Requantization configuration, stable for a pass. Lane c configures output channel c.
  input  logic [N*32-1:0]         bias_i,            // int32 bias at c*32
  input  logic [N*32-1:0]         multiplier_i,      // int32 M0 (Q0.31) at c*32
  input  logic [N*ShiftWidth-1:0] shift_i,           // signed, at c*6, [-31, 30]
  input  logic [7:0]              out_zero_point_i,  // int8 output zero point
  input  logic [7:0]              act_min_i,         // int8 clamp minimum (both stages)
  input  logic [7:0]              act_max_i,         // int8 clamp maximum, >= minimum
  input  logic                    lut_enable_i,      // clamped values go through the table
  // Pooling configuration, stable for a pass (image sizes ignored in bypass).
  input  logic [1:0]              pool_mode_i,       // tpu_pkg::PoolMode*
  input  logic [DimWidth-1:0]     pool_in_h_i,       // image height, 1..MaxHeight
  input  logic [DimWidth-1:0]     pool_in_w_i,       // image width, 1..MaxWidth
  input  logic [WinWidth-1:0]     pool_window_h_i,   // window height, 1..MaxWindow
  input  logic [WinWidth-1:0]     pool_window_w_i,   // window width, 1..MaxWindow
  input  logic [WinWidth-1:0]     pool_stride_h_i,   // vertical stride, 1..MaxStride
  input  logic [WinWidth-1:0]     pool_stride_w_i,   // horizontal stride, 1..MaxStride
  input  logic                    pool_same_i,       // 1: SAME padding, 0: VALID
  // Lookup-table load port: entry lut_addr_i holds the output for input code lut_addr_i - 128.
  input  logic                    lut_we_i,          // write one entry this cycle
  input  logic [7:0]              lut_addr_i,        // entry index
  input  logic [7:0]              lut_data_i,        // int8 entry value
  // Accumulator rows in.
  input  logic                    in_valid_i,        // in_row_i holds a row
  output logic                    in_ready_o,        // ... and is taken this cycle
  input  logic [N*32-1:0]         in_row_i,          // int32 of channel c at c*32
  input  logic [TagWidth-1:0]     in_tag_i,          // returned with the output rows
  // int8 rows out.
  output logic                    out_valid_o,       // out_row_o holds a result
  input  logic                    out_ready_i,       // ... and the consumer takes it
  output logic [N*8-1:0]          out_row_o,         // int8 of channel c at c*8
  output logic [TagWidth-1:0]     out_tag_o,         // see the header
  // Status.
  output logic                    busy_o             // a row or an image is in either stage
);

  // ---------------------------------------------------------------------------------------
  // Requantization -> pooling
  // ---------------------------------------------------------------------------------------
  logic                rq_valid, rq_ready, rq_busy, pool_busy;
  logic [N*8-1:0]      rq_row;
  logic [TagWidth-1:0] rq_tag;

  tpu_act_requant #(
    .N         (N),
    .TagWidth  (TagWidth),
    .ShiftWidth(ShiftWidth)
  ) u_requant (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .bias_i          (bias_i),
    .multiplier_i    (multiplier_i),
    .shift_i         (shift_i),
    .out_zero_point_i(out_zero_point_i),
    .act_min_i       (act_min_i),
    .act_max_i       (act_max_i),
    .lut_enable_i    (lut_enable_i),
    .lut_we_i        (lut_we_i),
    .lut_addr_i      (lut_addr_i),
    .lut_data_i      (lut_data_i),
    .in_valid_i      (in_valid_i),
    .in_ready_o      (in_ready_o),
    .in_row_i        (in_row_i),
    .in_tag_i        (in_tag_i),
    .out_valid_o     (rq_valid),
    .out_ready_i     (rq_ready),
    .out_row_o       (rq_row),
    .out_tag_o       (rq_tag),
    .busy_o          (rq_busy)
  );

  tpu_act_pool #(
    .N        (N),
    .MaxWidth (MaxWidth),
    .MaxHeight(MaxHeight),
    .MaxWindow(MaxWindow),
    .MaxStride(MaxStride),
    .TagWidth (TagWidth),
    .DimWidth (DimWidth),
    .WinWidth (WinWidth)
  ) u_pool (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .cfg_mode_i    (pool_mode_i),
    .cfg_in_h_i    (pool_in_h_i),
    .cfg_in_w_i    (pool_in_w_i),
    .cfg_window_h_i(pool_window_h_i),
    .cfg_window_w_i(pool_window_w_i),
    .cfg_stride_h_i(pool_stride_h_i),
    .cfg_stride_w_i(pool_stride_w_i),
    .cfg_same_i    (pool_same_i),
    .cfg_act_min_i (act_min_i),
    .cfg_act_max_i (act_max_i),
    .in_valid_i    (rq_valid),
    .in_ready_o    (rq_ready),
    .in_row_i      (rq_row),
    .in_tag_i      (rq_tag),
    .out_valid_o   (out_valid_o),
    .out_ready_i   (out_ready_i),
    .out_row_o     (out_row_o),
    .out_tag_o     (out_tag_o),
    .busy_o        (pool_busy)
  );

  assign busy_o = rq_busy || pool_busy;

  // ---------------------------------------------------------------------------------------
  // Assertions (each stage checks its own configuration, table loads and handshakes)
  // ---------------------------------------------------------------------------------------
  // A stalled row stays on the output, unchanged, until it is taken.
  `TPU_STABLE(out_row_stable, out_row_o, clk_i)
  `TPU_ASSERT(OutputHeldUntilTaken, !$past(out_valid_o && !out_ready_i) ||
              (out_valid_o && out_row_stable && $stable(out_tag_o)), clk_i, rst_ni)

endmodule
