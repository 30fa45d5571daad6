// Test top for the host interface's TLP and DMA path without the register file and the
// core: tpu_host_dma (tpu_host_rx, tpu_host_dma_rd, tpu_host_dma_wr and tpu_host_tx), the
// block tpu_host_if instantiates. The C++ bench drives the TLP streams with a root-complex
// model, both read clients, the write client and the MSI request, and answers the register
// port itself.
module tpu_host_dma_tb #(
  parameter int unsigned MaxPayload = 256,    // MPS, bytes
  parameter int unsigned MaxReadReq = 512,    // MRRS, bytes
  parameter int unsigned NumTags    = 16,     // reads outstanding
  parameter int unsigned Timeout    = 2000,   // completion timeout, cycles
  parameter int unsigned IdleGap    = 4,      // cycles without a beat that close a run
  parameter int unsigned TlpWidth   = 128,    // TLP stream and DMA beat bits: 128, 256, 512
  localparam int unsigned W = TlpWidth,       // beat bits
  localparam int unsigned B = TlpWidth / 8    // beat bytes
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  // TLP streams.
  input  logic         rx_valid_i,
  output logic         rx_ready_o,
  input  logic [W-1:0] rx_data_i,
  input  logic         rx_sop_i,
  input  logic         rx_eop_i,
  output logic         tx_valid_o,
  input  logic         tx_ready_i,
  output logic [W-1:0] tx_data_o,
  output logic         tx_sop_o,
  output logic         tx_eop_o,
  // Register port, answered by the bench.
  output logic         reg_req_valid_o,
  input  logic         reg_req_ready_i,
  output logic         reg_req_write_o,
  output logic [11:0]  reg_req_addr_o,
  output logic [31:0]  reg_req_wdata_o,
  output logic [3:0]   reg_req_be_o,
  input  logic         reg_rsp_valid_i,
  output logic         reg_rsp_ready_o,
  input  logic [31:0]  reg_rsp_rdata_i,
  // Read clients.
  input  logic [1:0]   rd_flush_i,
  input  logic [1:0]   rd_req_valid_i,
  output logic [1:0]   rd_req_ready_o,
  input  logic [127:0] rd_req_addr_i,
  input  logic [1:0]   rd_req_last_i,
  output logic [1:0]   rd_rsp_valid_o,
  input  logic [1:0]   rd_rsp_ready_i,
  output logic [2*W-1:0] rd_rsp_data_o,
  output logic [1:0]   rd_rsp_error_o,
  // Write client.
  input  logic         wr_flush_i,
  input  logic         wr_close_i,      // besides a client-0 read taken (as tpu_host_if)
  input  logic         wr_req_valid_i,
  output logic         wr_req_ready_o,
  input  logic [63:0]  wr_req_addr_i,
  input  logic [W-1:0] wr_req_data_i,
  input  logic [B-1:0] wr_req_mask_i,
  output logic         wr_empty_o,
  // MSI.
  input  logic         msi_request_i,
  input  logic [63:0]  msi_addr_i,
  input  logic [15:0]  msi_data_i,
  output logic         msi_sent_o,
  // Status.
  output logic         rd_busy_o,
  output logic         cpl_unexpected_o,
  output logic         timeout_o,
  output logic         rd_fail_o,
  output logic [1:0]   rd_fail_kind_o,
  output logic [2:0]   rd_fail_status_o,
  output logic         rd_fail_client_o,
  output logic [7:0]   rd_fail_tag_o,
  output logic [15:0]  rx_drop_count_o
);

  tpu_host_dma #(
    .MaxPayload(MaxPayload),
    .MaxReadReq(MaxReadReq),
    .NumTags   (NumTags),
    .Timeout   (Timeout),
    .IdleGap   (IdleGap),
    .TlpWidth  (TlpWidth)
  ) u_dma (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .rx_valid_i       (rx_valid_i),
    .rx_ready_o       (rx_ready_o),
    .rx_data_i        (rx_data_i),
    .rx_sop_i         (rx_sop_i),
    .rx_eop_i         (rx_eop_i),
    .tx_valid_o       (tx_valid_o),
    .tx_ready_i       (tx_ready_i),
    .tx_data_o        (tx_data_o),
    .tx_sop_o         (tx_sop_o),
    .tx_eop_o         (tx_eop_o),
    .reg_req_valid_o  (reg_req_valid_o),
    .reg_req_ready_i  (reg_req_ready_i),
    .reg_req_write_o  (reg_req_write_o),
    .reg_req_addr_o   (reg_req_addr_o),
    .reg_req_wdata_o  (reg_req_wdata_o),
    .reg_req_be_o     (reg_req_be_o),
    .reg_rsp_valid_i  (reg_rsp_valid_i),
    .reg_rsp_ready_o  (reg_rsp_ready_o),
    .reg_rsp_rdata_i  (reg_rsp_rdata_i),
    .rd_flush_i       (rd_flush_i),
    .rd_req_valid_i   (rd_req_valid_i),
    .rd_req_ready_o   (rd_req_ready_o),
    .rd_req_addr_i    (rd_req_addr_i),
    .rd_req_last_i    (rd_req_last_i),
    .rd_rsp_valid_o   (rd_rsp_valid_o),
    .rd_rsp_ready_i   (rd_rsp_ready_i),
    .rd_rsp_data_o    (rd_rsp_data_o),
    .rd_rsp_error_o   (rd_rsp_error_o),
    .wr_flush_i       (wr_flush_i),
    .wr_close_i       (wr_close_i),
    .wr_req_valid_i   (wr_req_valid_i),
    .wr_req_ready_o   (wr_req_ready_o),
    .wr_req_addr_i    (wr_req_addr_i),
    .wr_req_data_i    (wr_req_data_i),
    .wr_req_mask_i    (wr_req_mask_i),
    .wr_held_i        (1'b0),
    .wr_empty_o       (wr_empty_o),
    .msi_request_i    (msi_request_i),
    .msi_addr_i       (msi_addr_i),
    .msi_data_i       (msi_data_i),
    .msi_sent_o       (msi_sent_o),
    .rd_busy_o        (rd_busy_o),
    .cpl_unexpected_o (cpl_unexpected_o),
    .timeout_o        (timeout_o),
    .rd_fail_o        (rd_fail_o),
    .rd_fail_kind_o   (rd_fail_kind_o),
    .rd_fail_status_o (rd_fail_status_o),
    .rd_fail_client_o (rd_fail_client_o),
    .rd_fail_tag_o    (rd_fail_tag_o),
    .rx_drop_count_o  (rx_drop_count_o)
  );

endmodule
