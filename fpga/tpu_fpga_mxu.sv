// The MXU (rtl/mxu/tpu_mxu.sv) behind serial I/O (tpu_fpga_shift_io) for place and route on an
// iCE40: six pins instead of the 233 the N = 4 array's ports need. Clock and reset go straight
// to the MXU; every other port is a bit of the input or the output shift register.
module tpu_fpga_mxu #(
  parameter int unsigned N        = 4,   // array rows and columns
  parameter int unsigned InWidth  = tpu_pkg::MxuInWidth,
  parameter int unsigned AccWidth = tpu_pkg::MxuAccWidth,
  parameter int unsigned TagWidth = tpu_pkg::MxuTagWidth
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic shift_i,    // see tpu_fpga_shift_io
  input  logic sdi_i,
  input  logic capture_i,
  output logic sdo_o
);

  // {weight_valid, weight_row, act_valid, act_new_tile, act_row, act_tag}
  localparam int unsigned InBits  = 3 + 2 * N * InWidth + TagWidth;
  // {weight_ready, act_ready, out_valid, out_row, out_tag, tile_loaded}
  localparam int unsigned OutBits = 4 + N * AccWidth + TagWidth;

  logic [InBits-1:0]  in_bits;
  logic [OutBits-1:0] out_bits;

  tpu_fpga_shift_io #(
    .InBits(InBits), .OutBits(OutBits)
  ) u_io (
    .clk_i, .rst_ni, .shift_i, .sdi_i, .capture_i, .sdo_o,
    .in_o (in_bits),
    .out_i(out_bits)
  );

  logic                  weight_valid, act_valid, act_new_tile;
  logic [N*InWidth-1:0]  weight_row, act_row;
  logic [TagWidth-1:0]   act_tag, out_tag;
  logic                  weight_ready, act_ready, out_valid, tile_loaded;
  logic [N*AccWidth-1:0] out_row;

  assign {weight_valid, weight_row, act_valid, act_new_tile, act_row, act_tag} = in_bits;
  assign out_bits = {weight_ready, act_ready, out_valid, out_row, out_tag, tile_loaded};

  tpu_mxu #(
    .N(N), .InWidth(InWidth), .AccWidth(AccWidth), .TagWidth(TagWidth)
  ) u_mxu (
    .clk_i,
    .rst_ni,
    .weight_valid_i(weight_valid),
    .weight_ready_o(weight_ready),
    .weight_row_i  (weight_row),
    .act_valid_i   (act_valid),
    .act_ready_o   (act_ready),
    .act_new_tile_i(act_new_tile),
    .act_row_i     (act_row),
    .act_tag_i     (act_tag),
    .out_valid_o   (out_valid),
    .out_row_o     (out_row),
    .out_tag_o     (out_tag),
    .tile_loaded_o (tile_loaded)
  );

endmodule
