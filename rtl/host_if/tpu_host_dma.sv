`include "tpu_assert.svh"
// TLP and DMA path of the host interface (docs/host_if.md sections 1, 3, 4 and 6): the blocks
// between the link's TLP streams and the device's DMA clients, wired together:
// - tpu_host_rx: parses received TLPs; BAR0 accesses leave on reg_req_*, completions of DMA
//   reads go to the read engine,
// - tpu_host_dma_rd: DMA reads for two clients (0: the core's host-memory port, NumTags - 2
//   tags; 1: the instruction ring, 2 tags), with coalescing, tags, reassembly, timeouts,
// - tpu_host_dma_wr: DMA writes coalesced into MWr TLPs; a run is closed by wr_close_i and by
//   every client-0 read taken, so that a read never waits for the write engine's idle gap;
//   wr_held_i (a write beat held in front of it, by tpu_host_beat_adapter) keeps wr_empty_o
//   low, so that client-0 MRds and MSIs also wait for that beat,
// - tpu_host_tx: formats and arbitrates the TLPs sent (register read completions, MSI, MWr,
//   MRd),
// - tpu_host_cfg: the configuration space (CfgRd0 / CfgWr0 from the receive side): the
//   requester ID, Memory Space Enable (BAR0 accesses), Bus Master Enable (no request leaves
//   the transmit side without it) and the MPS / MRRS the engines use.
// Out of reset Bus Master Enable and Memory Space Enable are clear: the host enumerates the
// device (docs/host_if.md section 8) before BAR0 accesses or DMA work.
// The register file and the ring are outside (tpu_host_if): a register read's completion
// leaves when both its data (reg_rsp_*) and the fields the receive side kept are there; an
// Unsupported Request completion (a non-posted request the device does not take) needs only
// the fields.
// TLP stream beats and DMA beats are TlpWidth bits (128, 256 or 512; B = TlpWidth / 8 bytes).
// Latency: none added to its blocks'. A register request is offered on reg_req_* in the cycle
// after its TLP's last beat was taken; a completion beat taken on rx_* in cycle t is on
// rd_rsp_* from t + 3 (receive stage 1, read engine 2); a read run's MRd is offered to the
// transmit side in the cycle after the run closed, a write run's header likewise; tx_* are
// registers (one beat per cycle while tx_ready_i).
module tpu_host_dma #(
  parameter int unsigned MaxPayload = 256,    // largest MPS, bytes
  parameter int unsigned MaxReadReq = 512,    // largest MRRS, bytes
  parameter int unsigned NumTags    = 16,     // DMA reads outstanding (2 for the ring)
  parameter int unsigned Timeout    = 65536,  // completion timeout, cycles
  parameter int unsigned IdleGap    = 4,      // cycles without a beat that close a DMA run
  parameter int unsigned TlpWidth   = 128,    // TLP stream and DMA beat bits: 128, 256, 512
  localparam int unsigned W = TlpWidth,       // beat bits
  localparam int unsigned B = TlpWidth / 8    // beat bytes
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  // TLP streams (docs/host_if.md section 1).
  input  logic         rx_valid_i,        // a received beat is offered
  output logic         rx_ready_o,        // ... and taken this cycle
  input  logic [W-1:0] rx_data_i,         // DW d at [32d +: 32]
  input  logic         rx_sop_i,          // first beat of a TLP
  input  logic         rx_eop_i,          // last beat of a TLP
  output logic         tx_valid_o,        // a beat to send is offered
  input  logic         tx_ready_i,        // ... and taken this cycle
  output logic [W-1:0] tx_data_o,         // DW d at [32d +: 32]
  output logic         tx_sop_o,          // first beat of a TLP
  output logic         tx_eop_o,          // last beat of a TLP
  // BAR0 register port (to the register file).
  output logic         reg_req_valid_o,   // a one-DW register access is offered
  input  logic         reg_req_ready_i,   // ... and taken this cycle
  output logic         reg_req_write_o,   // 1 write, 0 read
  output logic [11:0]  reg_req_addr_o,    // byte address in BAR0
  output logic [31:0]  reg_req_wdata_o,   // write data
  output logic [3:0]   reg_req_be_o,      // byte enables
  input  logic         reg_rsp_valid_i,   // a read's data, in request order
  output logic         reg_rsp_ready_o,   // ... taken this cycle (its completion is sent)
  input  logic [31:0]  reg_rsp_rdata_i,   // the register's value
  // DMA read clients (client c at bit c, or at [64c +: 64] / [W*c +: W]).
  input  logic [1:0]   rd_flush_i,        // drop the client's runs, order and beats
  input  logic [1:0]   rd_req_valid_i,    // a beat read is requested
  output logic [1:0]   rd_req_ready_o,    // ... and taken this cycle
  input  logic [127:0] rd_req_addr_i,     // host byte address, a multiple of B
  input  logic [1:0]   rd_req_last_i,     // the beat ends its run
  output logic [1:0]   rd_rsp_valid_o,    // the client's oldest beat is offered
  input  logic [1:0]   rd_rsp_ready_i,    // ... and taken this cycle
  output logic [2*W-1:0] rd_rsp_data_o,   // byte b at [8b +: 8]
  output logic [1:0]   rd_rsp_error_o,    // the beat's request failed
  // DMA write client.
  input  logic         wr_flush_i,        // drop what no TLP header has left with
  input  logic         wr_close_i,        // close the open run (besides a client-0 read taken)
  input  logic         wr_req_valid_i,    // a write beat is offered
  output logic         wr_req_ready_o,    // ... and taken this cycle
  input  logic [63:0]  wr_req_addr_i,     // host byte address, a multiple of B
  input  logic [W-1:0] wr_req_data_i,     // byte b at [8b +: 8]
  input  logic [B-1:0] wr_req_mask_i,     // bytes written
  input  logic         wr_held_i,         // a write beat waits in front of the write engine
  output logic         wr_empty_o,        // no beat, run or TLP left in or before it
  // MSI.
  input  logic         msi_request_i,     // pulse: send one MSI
  input  logic [63:0]  msi_addr_i,        // MSI address
  input  logic [15:0]  msi_data_i,        // MSI data
  output logic         msi_sent_o,        // pulse: an MSI left
  // Status.
  output logic         rd_busy_o,         // read requests in flight or waiting
  output logic         cpl_unexpected_o,  // pulse: a completion without a request was dropped
  output logic         timeout_o,         // pulse: a read timed out
  output logic         rd_fail_o,         // pulse: a client's read failed (tpu_host_dma_rd)
  output logic [1:0]   rd_fail_kind_o,    // ... 0 completion, 1 poisoned, 2 timeout
  output logic [2:0]   rd_fail_status_o,  // ... the completion's status (kind 0)
  output logic         rd_fail_client_o,  // ... whose: 0 core, 1 ring
  output logic [7:0]   rd_fail_tag_o,     // ... its tag
  output logic [15:0]  rx_drop_count_o    // received TLPs dropped (saturates)
);

  // ---- nets --------------------------------------------------------------------------------
  // rx -> tx: the fields a register read's completion echoes
  logic        rcpl_info_valid, rcpl_valid, rcpl_ready;
  logic [15:0] rcpl_requester;
  logic [7:0]  rcpl_tag;
  logic [6:0]  rcpl_lower_addr;
  logic [11:0] rcpl_byte_count;
  logic        rcpl_ur, rcpl_cfg, rcpl_nodata;
  logic [15:0] rcpl_completer;
  logic [31:0] rcpl_cfg_data;
  // rx <-> configuration space
  logic        cfg_write, mem_enable, bus_master;
  logic [9:0]  cfg_reg;
  logic [3:0]  cfg_be;
  logic [31:0] cfg_wdata, cfg_rdata, bar0;
  logic [15:0] cfg_target, dev_id;
  logic [11:0] mps_mask, mrrs_mask;
  // rx -> read engine: completion beats
  logic         cpl_valid, cpl_first, cpl_last, cpl_has_data, cpl_poisoned;
  logic [7:0]   cpl_tag;
  logic [2:0]   cpl_status;
  logic [11:0]  cpl_byte_count;
  logic [6:0]   cpl_lower_addr;
  logic [9:0]   cpl_dwords;
  logic [W-1:0] cpl_data;
  // read engine -> tx: MRds
  logic         mrd_valid, mrd_ready;
  logic [63:0]  mrd_addr;
  logic [9:0]   mrd_dwords;
  logic [7:0]   mrd_tag;
  // write engine -> tx: MWr headers and payload
  logic         wr_close, wr_engine_empty;
  logic         hdr_valid, hdr_ready, pay_valid, pay_ready, pay_last;
  logic [63:0]  hdr_addr;
  logic [9:0]   hdr_dwords;
  logic [3:0]   hdr_first_be, hdr_last_be;
  logic [W-1:0] pay_data;

  // ---- receive -----------------------------------------------------------------------------
  tpu_host_rx #(
    .TlpWidth(TlpWidth)
  ) u_rx (
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
    .cfg_write_o       (cfg_write),
    .cfg_reg_o         (cfg_reg),
    .cfg_be_o          (cfg_be),
    .cfg_wdata_o       (cfg_wdata),
    .cfg_target_o      (cfg_target),
    .cfg_rdata_i       (cfg_rdata),
    .id_i              (dev_id),
    .mem_enable_i      (mem_enable),
    .rcpl_valid_o      (rcpl_info_valid),
    .rcpl_ready_i      (rcpl_ready),
    .rcpl_requester_o  (rcpl_requester),
    .rcpl_tag_o        (rcpl_tag),
    .rcpl_lower_addr_o (rcpl_lower_addr),
    .rcpl_byte_count_o (rcpl_byte_count),
    .rcpl_ur_o         (rcpl_ur),
    .rcpl_cfg_o        (rcpl_cfg),
    .rcpl_nodata_o     (rcpl_nodata),
    .rcpl_completer_o  (rcpl_completer),
    .rcpl_data_o       (rcpl_cfg_data),
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

  // ---- configuration space -----------------------------------------------------------------
  tpu_host_cfg #(
    .MaxPayload(MaxPayload),
    .MaxReadReq(MaxReadReq)
  ) u_cfg (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .req_write_i  (cfg_write),
    .req_reg_i    (cfg_reg),
    .req_be_i     (cfg_be),
    .req_wdata_i  (cfg_wdata),
    .req_target_i (cfg_target),
    .rdata_o      (cfg_rdata),
    .id_o         (dev_id),
    .mem_enable_o (mem_enable),
    .bus_master_o (bus_master),
    .mps_mask_o   (mps_mask),
    .mrrs_mask_o  (mrrs_mask),
    .bar0_o       (bar0)
  );

  // The link routes BAR0 hits here by address: the device does not decode it.
  logic unused_bar0;
  assign unused_bar0 = ^bar0;

  // A register read's completion needs both its data and the fields the receive side kept;
  // an Unsupported Request or configuration completion only the fields.
  assign rcpl_valid      = rcpl_info_valid && (rcpl_ur || rcpl_cfg || reg_rsp_valid_i);
  assign reg_rsp_ready_o = rcpl_ready && !rcpl_ur && !rcpl_cfg;

  // ---- DMA ---------------------------------------------------------------------------------
  tpu_host_dma_rd #(
    .MaxReadReq (MaxReadReq),
    .NumTags    (NumTags),
    .Client0Tags(NumTags - 2),
    .Client1Tags(2),
    .Timeout    (Timeout),
    .IdleGap    (IdleGap),
    .TlpWidth   (TlpWidth)
  ) u_dma_rd (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .flush_i          (rd_flush_i),
    .wr_empty_i       (wr_empty_o),
    .mrrs_mask_i      (mrrs_mask),
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
    .timeout_o        (timeout_o),
    .fail_o           (rd_fail_o),
    .fail_kind_o      (rd_fail_kind_o),
    .fail_status_o    (rd_fail_status_o),
    .fail_client_o    (rd_fail_client_o),
    .fail_tag_o       (rd_fail_tag_o)
  );

  // A client-0 read taken closes the write engine's open run (it is sent at once).
  assign wr_close = wr_close_i || (rd_req_valid_i[0] && rd_req_ready_o[0]);

  tpu_host_dma_wr #(
    .MaxPayload(MaxPayload),
    .IdleGap   (IdleGap),
    .TlpWidth  (TlpWidth)
  ) u_dma_wr (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .flush_i        (wr_flush_i),
    .close_i        (wr_close),
    .mps_mask_i     (mps_mask),
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
    .empty_o        (wr_engine_empty)
  );

  // A beat held in front of the write engine (tpu_host_beat_adapter merging the core's narrow
  // beats) counts as written: client-0 MRds and MSIs wait for it as for the engine's own.
  assign wr_empty_o = wr_engine_empty && !wr_held_i;

  // ---- transmit ----------------------------------------------------------------------------
  tpu_host_tx #(
    .TlpWidth(TlpWidth)
  ) u_tx (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .tx_valid_o        (tx_valid_o),
    .tx_ready_i        (tx_ready_i),
    .tx_data_o         (tx_data_o),
    .tx_sop_o          (tx_sop_o),
    .tx_eop_o          (tx_eop_o),
    .id_i              (dev_id),
    .bus_master_i      (bus_master),
    .rcpl_valid_i      (rcpl_valid),
    .rcpl_ready_o      (rcpl_ready),
    .rcpl_requester_i  (rcpl_requester),
    .rcpl_tag_i        (rcpl_tag),
    .rcpl_lower_addr_i (rcpl_lower_addr),
    .rcpl_byte_count_i (rcpl_byte_count),
    .rcpl_ur_i         (rcpl_ur),
    .rcpl_nodata_i     (rcpl_nodata),
    .rcpl_cfg_i        (rcpl_cfg),
    .rcpl_completer_i  (rcpl_completer),
    .rcpl_cfg_data_i   (rcpl_cfg_data),
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

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  // The ring keeps two tags; the core needs at least one.
  `TPU_ASSERT_INIT(TagsForBothClients, NumTags > 2)
  // Register data comes only for a read the receive side issued (and kept the fields of).
  `TPU_ASSERT(RegRspHasCplFields, !reg_rsp_valid_i || rcpl_info_valid, clk_i, rst_ni)

endmodule
