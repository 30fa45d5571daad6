// Test top for the host interface's TLP and DMA blocks without the register file and the
// core: tpu_host_rx, tpu_host_dma_rd, tpu_host_dma_wr and tpu_host_tx wired as tpu_host_if
// wires them. The C++ bench drives the TLP streams with a root-complex model, both read
// clients, the write client and the MSI request, and answers the register port itself.
module tpu_host_dma_tb #(
  parameter int unsigned MaxPayload = 256,    // MPS, bytes
  parameter int unsigned MaxReadReq = 512,    // MRRS, bytes
  parameter int unsigned NumTags    = 16,     // reads outstanding
  parameter int unsigned Timeout    = 2000,   // completion timeout, cycles
  parameter int unsigned IdleGap    = 4       // cycles without a beat that close a run
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  // TLP streams.
  input  logic         rx_valid_i,
  output logic         rx_ready_o,
  input  logic [127:0] rx_data_i,
  input  logic         rx_sop_i,
  input  logic         rx_eop_i,
  output logic         tx_valid_o,
  input  logic         tx_ready_i,
  output logic [127:0] tx_data_o,
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
  output logic [255:0] rd_rsp_data_o,
  output logic [1:0]   rd_rsp_error_o,
  // Write client.
  input  logic         wr_flush_i,
  input  logic         wr_close_i,      // besides a client-0 read taken (as tpu_host_if)
  input  logic         wr_req_valid_i,
  output logic         wr_req_ready_o,
  input  logic [63:0]  wr_req_addr_i,
  input  logic [127:0] wr_req_data_i,
  input  logic [15:0]  wr_req_mask_i,
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
  output logic [15:0]  rx_drop_count_o
);

  logic        rcpl_info_valid, rcpl_ready;
  logic [15:0] rcpl_requester;
  logic [7:0]  rcpl_tag;
  logic [6:0]  rcpl_lower_addr;
  logic [2:0]  rcpl_byte_count;
  logic         cpl_valid, cpl_first, cpl_last, cpl_has_data, cpl_poisoned;
  logic [7:0]   cpl_tag;
  logic [2:0]   cpl_status;
  logic [11:0]  cpl_byte_count;
  logic [6:0]   cpl_lower_addr;
  logic [9:0]   cpl_dwords;
  logic [127:0] cpl_data;
  logic         mrd_valid, mrd_ready;
  logic [63:0]  mrd_addr;
  logic [9:0]   mrd_dwords;
  logic [7:0]   mrd_tag;
  logic         hdr_valid, hdr_ready, pay_valid, pay_ready, pay_last;
  logic [63:0]  hdr_addr;
  logic [9:0]   hdr_dwords;
  logic [3:0]   hdr_first_be, hdr_last_be;
  logic [127:0] pay_data;

  tpu_host_rx u_rx (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .rx_valid_i        (rx_valid_i),
    .rx_ready_o        (rx_ready_o),
    .rx_data_i         (rx_data_i),
    .rx_sop_i          (rx_sop_i),
    .rx_eop_i          (rx_eop_i),
    .reg_req_valid_o   (reg_req_valid_o),
    .reg_req_ready_i   (reg_req_ready_i),
    .reg_req_write_o   (reg_req_write_o),
    .reg_req_addr_o    (reg_req_addr_o),
    .reg_req_wdata_o   (reg_req_wdata_o),
    .reg_req_be_o      (reg_req_be_o),
    .rcpl_valid_o      (rcpl_info_valid),
    .rcpl_ready_i      (rcpl_ready),
    .rcpl_requester_o  (rcpl_requester),
    .rcpl_tag_o        (rcpl_tag),
    .rcpl_lower_addr_o (rcpl_lower_addr),
    .rcpl_byte_count_o (rcpl_byte_count),
    .cpl_valid_o       (cpl_valid),
    .cpl_first_o       (cpl_first),
    .cpl_last_o        (cpl_last),
    .cpl_has_data_o    (cpl_has_data),
    .cpl_tag_o         (cpl_tag),
    .cpl_status_o      (cpl_status),
    .cpl_poisoned_o    (cpl_poisoned),
    .cpl_byte_count_o  (cpl_byte_count),
    .cpl_lower_addr_o  (cpl_lower_addr),
    .cpl_dwords_o      (cpl_dwords),
    .cpl_data_o        (cpl_data),
    .drop_count_o      (rx_drop_count_o)
  );

  assign reg_rsp_ready_o = rcpl_ready;

  tpu_host_dma_rd #(
    .MaxReadReq (MaxReadReq),
    .NumTags    (NumTags),
    .Client0Tags(NumTags - 2),
    .Client1Tags(2),
    .Timeout    (Timeout),
    .IdleGap    (IdleGap)
  ) u_dma_rd (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .flush_i          (rd_flush_i),
    .wr_empty_i       (wr_empty_o),
    .req_valid_i      (rd_req_valid_i),
    .req_ready_o      (rd_req_ready_o),
    .req_addr_i       (rd_req_addr_i),
    .req_last_i       (rd_req_last_i),
    .rsp_valid_o      (rd_rsp_valid_o),
    .rsp_ready_i      (rd_rsp_ready_i),
    .rsp_data_o       (rd_rsp_data_o),
    .rsp_error_o      (rd_rsp_error_o),
    .mrd_valid_o      (mrd_valid),
    .mrd_ready_i      (mrd_ready),
    .mrd_addr_o       (mrd_addr),
    .mrd_dwords_o     (mrd_dwords),
    .mrd_tag_o        (mrd_tag),
    .cpl_valid_i      (cpl_valid),
    .cpl_first_i      (cpl_first),
    .cpl_last_i       (cpl_last),
    .cpl_has_data_i   (cpl_has_data),
    .cpl_tag_i        (cpl_tag),
    .cpl_status_i     (cpl_status),
    .cpl_poisoned_i   (cpl_poisoned),
    .cpl_byte_count_i (cpl_byte_count),
    .cpl_lower_addr_i (cpl_lower_addr),
    .cpl_dwords_i     (cpl_dwords),
    .cpl_data_i       (cpl_data),
    .busy_o           (rd_busy_o),
    .cpl_unexpected_o (cpl_unexpected_o),
    .timeout_o        (timeout_o)
  );

  tpu_host_dma_wr #(
    .MaxPayload(MaxPayload),
    .IdleGap   (IdleGap)
  ) u_dma_wr (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .flush_i        (wr_flush_i),
    .close_i        (wr_close_i || (rd_req_valid_i[0] && rd_req_ready_o[0])),
    .req_valid_i    (wr_req_valid_i),
    .req_ready_o    (wr_req_ready_o),
    .req_addr_i     (wr_req_addr_i),
    .req_data_i     (wr_req_data_i),
    .req_mask_i     (wr_req_mask_i),
    .hdr_valid_o    (hdr_valid),
    .hdr_ready_i    (hdr_ready),
    .hdr_addr_o     (hdr_addr),
    .hdr_dwords_o   (hdr_dwords),
    .hdr_first_be_o (hdr_first_be),
    .hdr_last_be_o  (hdr_last_be),
    .pay_valid_o    (pay_valid),
    .pay_ready_i    (pay_ready),
    .pay_data_o     (pay_data),
    .pay_last_o     (pay_last),
    .empty_o        (wr_empty_o)
  );

  tpu_host_tx u_tx (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .tx_valid_o        (tx_valid_o),
    .tx_ready_i        (tx_ready_i),
    .tx_data_o         (tx_data_o),
    .tx_sop_o          (tx_sop_o),
    .tx_eop_o          (tx_eop_o),
    .rcpl_valid_i      (rcpl_info_valid && reg_rsp_valid_i),
    .rcpl_ready_o      (rcpl_ready),
    .rcpl_requester_i  (rcpl_requester),
    .rcpl_tag_i        (rcpl_tag),
    .rcpl_lower_addr_i (rcpl_lower_addr),
    .rcpl_byte_count_i (rcpl_byte_count),
    .rcpl_data_i       (reg_rsp_rdata_i),
    .mrd_valid_i       (mrd_valid),
    .mrd_ready_o       (mrd_ready),
    .mrd_addr_i        (mrd_addr),
    .mrd_dwords_i      (mrd_dwords),
    .mrd_tag_i         (mrd_tag),
    .hdr_valid_i       (hdr_valid),
    .hdr_ready_o       (hdr_ready),
    .hdr_addr_i        (hdr_addr),
    .hdr_dwords_i      (hdr_dwords),
    .hdr_first_be_i    (hdr_first_be),
    .hdr_last_be_i     (hdr_last_be),
    .pay_valid_i       (pay_valid),
    .pay_ready_o       (pay_ready),
    .pay_data_i        (pay_data),
    .pay_last_i        (pay_last),
    .msi_request_i     (msi_request_i),
    .msi_addr_i        (msi_addr_i),
    .msi_data_i        (msi_data_i),
    .wr_empty_i        (wr_empty_o),
    .msi_sent_o        (msi_sent_o)
  );

endmodule
