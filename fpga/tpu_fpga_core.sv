// The core (rtl/tpu_core.sv: controller, MXU, buffers, activation pipeline) behind serial I/O
// (tpu_fpga_shift_io), so that place and route measures its fabric demand on an iCE40 rather
// than stopping at its 1,000-odd port bits.
module tpu_fpga_core #(
  parameter int unsigned N         = 2,
  parameter int unsigned UbRows    = 32,
  parameter int unsigned AccRows   = 16,
  parameter logic [63:0] DramBytes = 64'd4096,
  parameter int unsigned ParamSets = 2,
  parameter int unsigned DramWidth = N * 8
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic shift_i,    // see tpu_fpga_shift_io
  input  logic sdi_i,
  input  logic capture_i,
  output logic sdo_o
);

  localparam int unsigned AddrW     = tpu_isa_pkg::ReadHostDestWidth;
  localparam int unsigned PerfWidth = 10 * 64;
  localparam int unsigned InBits    = 8 + 128 + 8 * N + DramWidth;
  localparam int unsigned OutBits   = 11 + 48 + 8 * N + N + 2 * AddrW + 8 * N + N + 8 + 32 +
                                      PerfWidth;

  logic [InBits-1:0]  in_bits;
  logic [OutBits-1:0] out_bits;

  tpu_fpga_shift_io #(
    .InBits(InBits), .OutBits(OutBits)
  ) u_io (
    .clk_i, .rst_ni, .shift_i, .sdi_i, .capture_i, .sdo_o,
    .in_o (in_bits),
    .out_i(out_bits)
  );

  logic                 start, instr_valid, hm_req_ready, hm_rsp_valid, hm_rsp_error;
  logic                 wd_req_ready, wd_rsp_valid, wd_wr_ready;
  logic [127:0]         instr;
  logic [8*N-1:0]       hm_rsp_rdata, hm_req_wdata, wd_wr_data;
  logic [DramWidth-1:0] wd_rsp_data;
  logic                 instr_ready, hm_req_valid, hm_req_write, hm_rsp_ready, wd_req_valid;
  logic                 wd_rsp_ready, wd_wr_valid, running, done, error, irq;
  logic [47:0]          hm_req_addr;
  logic [N-1:0]         hm_req_wmask, wd_wr_mask;
  logic [AddrW-1:0]     wd_req_addr, wd_wr_addr;
  logic [7:0]           error_code;
  logic [31:0]          error_index;
  logic [PerfWidth-1:0] perf;

  assign {start, instr_valid, instr, hm_req_ready, hm_rsp_valid, hm_rsp_rdata, hm_rsp_error,
          wd_req_ready, wd_rsp_valid, wd_rsp_data, wd_wr_ready} = in_bits;
  assign out_bits = {instr_ready, hm_req_valid, hm_req_write, hm_req_addr, hm_req_wdata,
                     hm_req_wmask, hm_rsp_ready, wd_req_valid, wd_req_addr, wd_rsp_ready,
                     wd_wr_valid, wd_wr_addr, wd_wr_data, wd_wr_mask, running, done, error,
                     error_code, error_index, irq, perf};

  tpu_core #(
    .N(N), .UbRows(UbRows), .AccRows(AccRows), .DramBytes(DramBytes), .ParamSets(ParamSets),
    .DramWidth(DramWidth)
  ) u_core (
    .clk_i,
    .rst_ni,
    .start_i       (start),
    .instr_valid_i (instr_valid),
    .instr_ready_o (instr_ready),
    .instr_i       (instr),
    .hm_req_valid_o(hm_req_valid),
    .hm_req_ready_i(hm_req_ready),
    .hm_req_write_o(hm_req_write),
    .hm_req_addr_o (hm_req_addr),
    .hm_req_wdata_o(hm_req_wdata),
    .hm_req_wmask_o(hm_req_wmask),
    .hm_rsp_valid_i(hm_rsp_valid),
    .hm_rsp_ready_o(hm_rsp_ready),
    .hm_rsp_rdata_i(hm_rsp_rdata),
    .hm_rsp_error_i(hm_rsp_error),
    .wd_req_valid_o(wd_req_valid),
    .wd_req_ready_i(wd_req_ready),
    .wd_req_addr_o (wd_req_addr),
    .wd_rsp_valid_i(wd_rsp_valid),
    .wd_rsp_ready_o(wd_rsp_ready),
    .wd_rsp_data_i (wd_rsp_data),
    .wd_wr_valid_o (wd_wr_valid),
    .wd_wr_ready_i (wd_wr_ready),
    .wd_wr_addr_o  (wd_wr_addr),
    .wd_wr_data_o  (wd_wr_data),
    .wd_wr_mask_o  (wd_wr_mask),
    .running_o     (running),
    .done_o        (done),
    .error_o       (error),
    .error_code_o  (error_code),
    .error_index_o (error_index),
    .irq_o         (irq),
    .perf_o        (perf)
  );

endmodule
