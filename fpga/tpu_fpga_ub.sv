// The unified buffer (rtl/ub/tpu_ub.sv) behind serial I/O (tpu_fpga_shift_io) for place and
// route on an iCE40.
module tpu_fpga_ub #(
  parameter int unsigned N     = 4,    // bytes per row
  parameter int unsigned Depth = 256,  // rows
  localparam int unsigned RowWidth  = N * 8,
  localparam int unsigned AddrWidth = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic shift_i,    // see tpu_fpga_shift_io
  input  logic sdi_i,
  input  logic capture_i,
  output logic sdo_o
);

  localparam int unsigned InBits  = 6 + 4 * AddrWidth + 2 * RowWidth + N;
  localparam int unsigned OutBits = 7 + 2 * RowWidth;

  logic [InBits-1:0]  in_bits;
  logic [OutBits-1:0] out_bits;

  tpu_fpga_shift_io #(
    .InBits(InBits), .OutBits(OutBits)
  ) u_io (
    .clk_i, .rst_ni, .shift_i, .sdi_i, .capture_i, .sdo_o,
    .in_o (in_bits),
    .out_i(out_bits)
  );

  logic                 dma_wr_valid, act_wr_valid, dma_rd_req_valid, dma_rd_rsp_ready;
  logic                 mxu_rd_req_valid, mxu_rd_rsp_ready;
  logic [AddrWidth-1:0] dma_wr_addr, act_wr_addr, dma_rd_req_addr, mxu_rd_req_addr;
  logic [RowWidth-1:0]  dma_wr_data, act_wr_data, dma_rd_rsp_data, mxu_rd_rsp_data;
  logic [N-1:0]         dma_wr_mask;
  logic                 dma_wr_ready, act_wr_ready, dma_rd_req_ready, dma_rd_rsp_valid;
  logic                 mxu_rd_req_ready, mxu_rd_rsp_valid, busy;

  assign {dma_wr_valid, dma_wr_addr, dma_wr_data, dma_wr_mask, act_wr_valid, act_wr_addr,
          act_wr_data, dma_rd_req_valid, dma_rd_req_addr, dma_rd_rsp_ready, mxu_rd_req_valid,
          mxu_rd_req_addr, mxu_rd_rsp_ready} = in_bits;
  assign out_bits = {dma_wr_ready, act_wr_ready, dma_rd_req_ready, dma_rd_rsp_valid,
                     dma_rd_rsp_data, mxu_rd_req_ready, mxu_rd_rsp_valid, mxu_rd_rsp_data, busy};

  tpu_ub #(
    .N(N), .Depth(Depth)
  ) u_ub (
    .clk_i,
    .rst_ni,
    .dma_wr_valid_i    (dma_wr_valid),
    .dma_wr_ready_o    (dma_wr_ready),
    .dma_wr_addr_i     (dma_wr_addr),
    .dma_wr_data_i     (dma_wr_data),
    .dma_wr_mask_i     (dma_wr_mask),
    .act_wr_valid_i    (act_wr_valid),
    .act_wr_ready_o    (act_wr_ready),
    .act_wr_addr_i     (act_wr_addr),
    .act_wr_data_i     (act_wr_data),
    .dma_rd_req_valid_i(dma_rd_req_valid),
    .dma_rd_req_ready_o(dma_rd_req_ready),
    .dma_rd_req_addr_i (dma_rd_req_addr),
    .dma_rd_rsp_valid_o(dma_rd_rsp_valid),
    .dma_rd_rsp_ready_i(dma_rd_rsp_ready),
    .dma_rd_rsp_data_o (dma_rd_rsp_data),
    .mxu_rd_req_valid_i(mxu_rd_req_valid),
    .mxu_rd_req_ready_o(mxu_rd_req_ready),
    .mxu_rd_req_addr_i (mxu_rd_req_addr),
    .mxu_rd_rsp_valid_o(mxu_rd_rsp_valid),
    .mxu_rd_rsp_ready_i(mxu_rd_rsp_ready),
    .mxu_rd_rsp_data_o (mxu_rd_rsp_data),
    .busy_o            (busy)
  );

endmodule
