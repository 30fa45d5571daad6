// The accumulators (rtl/acc/tpu_acc.sv) behind serial I/O (tpu_fpga_shift_io) for place and
// route on an iCE40.
module tpu_fpga_acc #(
  parameter int unsigned N     = 2,   // int32 lanes per row
  parameter int unsigned Depth = 64,  // rows, both regions together
  localparam int unsigned RowWidth  = N * tpu_pkg::MxuAccWidth,
  localparam int unsigned AddrWidth = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic shift_i,    // see tpu_fpga_shift_io
  input  logic sdi_i,
  input  logic capture_i,
  output logic sdo_o
);

  localparam int unsigned InBits  = 4 + 2 * AddrWidth + RowWidth;
  localparam int unsigned OutBits = 5 + RowWidth;

  logic [InBits-1:0]  in_bits;
  logic [OutBits-1:0] out_bits;

  tpu_fpga_shift_io #(
    .InBits(InBits), .OutBits(OutBits)
  ) u_io (
    .clk_i, .rst_ni, .shift_i, .sdi_i, .capture_i, .sdo_o,
    .in_o (in_bits),
    .out_i(out_bits)
  );

  logic                 wr_valid, wr_accumulate, rd_req_valid, rd_rsp_ready;
  logic [AddrWidth-1:0] wr_addr, rd_req_addr;
  logic [RowWidth-1:0]  wr_data, rd_rsp_data;
  logic                 rd_req_ready, rd_rsp_valid, wr_busy, rd_busy, rd_stall;

  assign {wr_valid, wr_addr, wr_accumulate, wr_data, rd_req_valid, rd_req_addr,
          rd_rsp_ready} = in_bits;
  assign out_bits = {rd_req_ready, rd_rsp_valid, rd_rsp_data, wr_busy, rd_busy, rd_stall};

  tpu_acc #(
    .N(N), .Depth(Depth)
  ) u_acc (
    .clk_i,
    .rst_ni,
    .wr_valid_i     (wr_valid),
    .wr_addr_i      (wr_addr),
    .wr_accumulate_i(wr_accumulate),
    .wr_data_i      (wr_data),
    .rd_req_valid_i (rd_req_valid),
    .rd_req_ready_o (rd_req_ready),
    .rd_req_addr_i  (rd_req_addr),
    .rd_rsp_valid_o (rd_rsp_valid),
    .rd_rsp_ready_i (rd_rsp_ready),
    .rd_rsp_data_o  (rd_rsp_data),
    .wr_busy_o      (wr_busy),
    .rd_busy_o      (rd_busy),
    .rd_stall_o     (rd_stall)
  );

endmodule
