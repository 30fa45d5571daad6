`include "tpu_assert.svh"
// Host interface: the application side of the TPU's PCIe endpoint (docs/host_if.md). Joins
// - tpu_host_dma: the TLP and DMA path (tpu_host_rx parsing received TLPs, tpu_host_dma_rd
//   reading for the core's host-memory port (client 0) and the ring (client 1),
//   tpu_host_dma_wr coalescing the core's writes into MWr TLPs, tpu_host_tx formatting and
//   arbitrating the TLPs sent),
// - tpu_host_regs: the BAR0 register file,
// - tpu_host_ring: the instruction ring feeding the core's instruction port,
// - tpu_host_beat_adapter: the core's host-memory beats (N bytes) as the engines' beats of
//   B = TlpWidth / 8 bytes, one beat of the TLP stream (split for N > B, shared for N < B,
//   wires for N = B); when B > 16 a second one (N = 16, reads only) joins the ring's 16-byte
//   slot reads into the read engine's B-byte beats,
// and drives the core's control, instruction and host-memory ports (docs/controller.md
// section 5).
//
// Soft reset (CONTROL.soft_reset): core_soft_reset_o pulses for one cycle and core_rst_no,
// the core's reset, is low in that cycle (a flip-flop of the register file: tpu_top drives
// the core's asynchronous reset with it and nothing else); the read engine drops both clients' requests and beats (outstanding
// requests become orphans whose completions are thrown away), the write engine drops what no
// TLP header has left with, the beat adapter drops what it holds, the ring goes back to slot 0
// and stops. The register file keeps
// its configuration (docs/registers.md); a TLP being sent is finished.
module tpu_host_if #(
  parameter int unsigned N          = 16,        // MXU size; host-memory beat bytes
  parameter int unsigned UbRows     = 4096,      // CAP_UB_ROWS
  parameter int unsigned AccRows    = 1024,      // CAP_ACC_ROWS
  parameter logic [63:0] DramBytes  = 64'd67108864,  // CAP_DRAM_BYTES_LO / _HI
  parameter int unsigned ParamSets  = 64,        // CAP_PARAM_SETS
  parameter int unsigned MaxPayload = 256,       // MPS, bytes
  parameter int unsigned MaxReadReq = 512,       // MRRS, bytes
  parameter int unsigned NumTags    = 16,        // DMA reads outstanding
  parameter int unsigned Timeout    = 65536,     // completion timeout, cycles
  parameter int unsigned IdleGap    = 4,         // cycles without a beat that close a DMA run
  parameter int unsigned RingSlots  = 8,         // instruction slots fetched ahead
  parameter int unsigned HwVersion  = 1,         // VERSION.hw_version
  parameter int unsigned TlpWidth   = 128,       // TLP stream and DMA beat bits: 128, 256, 512
  localparam int unsigned PerfW = 10 * 64,       // the core's counters
  localparam int unsigned TW    = TlpWidth       // TLP stream beat bits
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // TLP streams (docs/host_if.md section 1).
  input  logic             rx_valid_i,        // a received beat is offered
  output logic             rx_ready_o,        // ... and taken this cycle
  input  logic [TW-1:0]    rx_data_i,         // DW d at [32d +: 32]
  input  logic             rx_sop_i,          // first beat of a TLP
  input  logic             rx_eop_i,          // last beat of a TLP
  output logic             tx_valid_o,        // a beat to send is offered
  input  logic             tx_ready_i,        // ... and taken this cycle
  output logic [TW-1:0]    tx_data_o,         // DW d at [32d +: 32]
  output logic             tx_sop_o,          // first beat of a TLP
  output logic             tx_eop_o,          // last beat of a TLP
  // Core control and instructions.
  output logic             core_soft_reset_o, // pulse: reset the core
  output logic             core_rst_no,       // the core's reset (a flop: low with rst_ni
                                              // and during core_soft_reset_o)
  output logic             core_start_o,      // pulse: tpu_core start_i
  output logic             instr_valid_o,     // an instruction is offered
  input  logic             instr_ready_i,     // ... and taken this cycle
  output logic [127:0]     instr_o,           // the instruction
  // Core host-memory port (one beat of N bytes per request, reads answered in order).
  input  logic             hm_req_valid_i,    // a request is offered
  output logic             hm_req_ready_o,    // ... and taken this cycle
  input  logic             hm_req_write_i,    // 1 write, 0 read
  input  logic [47:0]      hm_req_addr_i,     // host byte address, a multiple of N
  input  logic [8*N-1:0]   hm_req_wdata_i,    // byte b at [8b +: 8]
  input  logic [N-1:0]     hm_req_wmask_i,    // bytes written
  output logic             hm_rsp_valid_o,    // read data of the oldest read
  input  logic             hm_rsp_ready_i,    // ... taken this cycle
  output logic [8*N-1:0]   hm_rsp_rdata_o,    // byte b at [8b +: 8]
  output logic             hm_rsp_error_o,    // the beat failed
  // Core status.
  input  logic             running_i,         // started, not done, not stopped
  input  logic             done_i,            // HALT completed
  input  logic             error_i,           // stopped by an error
  input  logic [7:0]       error_code_i,      // tpu_isa_pkg::error_e
  input  logic [31:0]      error_index_i,     // failing instruction's index
  input  logic             irq_i,             // pulse when done_i or error_i rises
  input  logic [PerfW-1:0] perf_i,            // counters
  // Status of the host interface.
  output logic             dma_busy_o,        // DMA requests or writes in flight
  output logic             ring_active_o,     // the ring fetches for a running program
  output logic             msi_sent_o,        // pulse: an MSI left
  output logic [15:0]      rx_drop_count_o,   // received TLPs dropped (saturates)
  output logic [15:0]      cpl_drop_count_o,  // completions without a request (saturates)
  output logic [15:0]      timeout_count_o    // DMA reads timed out (saturates)
);

  // ---- nets --------------------------------------------------------------------------------
  // TLP/DMA path <-> regs
  logic        reg_req_valid, reg_req_ready, reg_req_write;
  logic [11:0] reg_req_addr;
  logic [31:0] reg_req_wdata;
  logic [3:0]  reg_req_be;
  logic        reg_rsp_valid, reg_rsp_ready;
  logic [31:0] reg_rsp_rdata;
  // regs
  logic        soft_reset, irq_enable, doorbell, msi_request;
  logic [1:0]  irq_mask;
  logic [63:0] msi_addr, ring_base;
  logic [15:0] msi_data, ring_tail, ring_head;
  logic [16:0] ring_size;
  logic        ring_fetch_error;
  // read engine
  logic [1:0]   rd_flush, rd_req_valid, rd_req_ready, rd_req_last;
  logic [127:0] rd_req_addr;
  logic [1:0]   rd_rsp_valid, rd_rsp_ready, rd_rsp_error;
  logic [2*TW-1:0] rd_rsp_data;
  logic         rd_busy, cpl_unexpected, rd_timeout;
  logic         rd_fail, rd_fail_client;
  logic [1:0]   rd_fail_kind;
  logic [2:0]   rd_fail_status;
  logic [7:0]   rd_fail_tag;
  // watchdog
  logic         progress;
  // write engine
  logic         wr_req_valid, wr_req_ready, wr_held, wr_empty;
  logic [47:0]  wr_req_addr;
  logic [TW-1:0]   wr_req_data;
  logic [TW/8-1:0] wr_req_mask;
  // beat adapter -> read engine (client 0)
  logic         hr_req_valid, hr_rsp_ready;
  logic [47:0]  hr_req_addr;
  // ring
  logic         ring_req_valid, ring_req_ready, ring_req_last, ring_flush, ring_rsp_ready;
  logic [63:0]  ring_req_addr;
  logic         ring_rsp_valid, ring_rsp_error;
  logic [127:0] ring_rsp_data;
  // ring -> read engine (client 1), in engine beats
  logic         rr_req_valid, rr_rsp_ready;
  logic [63:0]  rr_req_addr;

  // ---- core beats as engine beats ----------------------------------------------------------
  // Reads use u_dma's client 0 and writes its write engine; flushed with them on soft reset.
  // The engines hold up to NumTags - 2 requests of MaxReadReq bytes for the core: as many
  // core reads may wait for data in the adapter (N < TlpWidth / 8).
  tpu_host_beat_adapter #(
    .N       (N),
    .UseDepth(NumTags * MaxReadReq / (TlpWidth / 8)),
    .TlpWidth(TlpWidth)
  ) u_beats (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .flush_i        (soft_reset),
    .hm_req_valid_i (hm_req_valid_i),
    .hm_req_ready_o (hm_req_ready_o),
    .hm_req_write_i (hm_req_write_i),
    .hm_req_addr_i  (hm_req_addr_i),
    .hm_req_wdata_i (hm_req_wdata_i),
    .hm_req_wmask_i (hm_req_wmask_i),
    .hm_rsp_valid_o (hm_rsp_valid_o),
    .hm_rsp_ready_i (hm_rsp_ready_i),
    .hm_rsp_rdata_o (hm_rsp_rdata_o),
    .hm_rsp_error_o (hm_rsp_error_o),
    .rd_req_valid_o (hr_req_valid),
    .rd_req_ready_i (rd_req_ready[0]),
    .rd_req_addr_o  (hr_req_addr),
    .rd_rsp_valid_i (rd_rsp_valid[0]),
    .rd_rsp_ready_o (hr_rsp_ready),
    .rd_rsp_data_i  (rd_rsp_data[TW-1:0]),
    .rd_rsp_error_i (rd_rsp_error[0]),
    .wr_req_valid_o (wr_req_valid),
    .wr_req_ready_i (wr_req_ready),
    .wr_req_addr_o  (wr_req_addr),
    .wr_req_data_o  (wr_req_data),
    .wr_req_mask_o  (wr_req_mask),
    .wr_held_o      (wr_held)
  );

  // ---- ring slots as engine beats ---------------------------------------------------------
  // An instruction slot is 16 bytes, one beat of a 128-bit stream. On a wider stream the
  // ring's slot reads go through a second adapter (N = 16, reads only): consecutive slots of
  // one engine beat join one read. A slot marked last closes the engine's run when it issues
  // a read (in the same cycle); one that joins a read issued before leaves the run to close
  // after IdleGap cycles. The adapter is flushed in the cycle after the read engine's flush of
  // client 1 (ring_flush comes from the ring's fetch error, which comes from the adapter's
  // response valid: flushed in the same cycle, the two would form a combinational loop). In
  // the flush cycle no ring request is taken (as the engine takes none) and the engine's
  // responses reach the ring as they would without the adapter; in the next the adapter takes
  // and offers nothing, and the engine holds nothing of client 1.
  if (TlpWidth == 128) begin : g_ring_direct
    assign rr_req_valid   = ring_req_valid;
    assign rr_req_addr    = ring_req_addr;
    assign ring_req_ready = rd_req_ready[1];
    assign ring_rsp_valid = rd_rsp_valid[1];
    assign rr_rsp_ready   = ring_rsp_ready;
    assign ring_rsp_data  = rd_rsp_data[255:128];
    assign ring_rsp_error = rd_rsp_error[1];
  end else begin : g_ring_beats
    logic             ring_flush_q;  // the read engine flushed client 1 in the last cycle
    logic             a_req_valid, a_req_ready;
    logic             unused_wr_valid, unused_wr_held;
    logic [63:0]      unused_wr_addr;
    logic [TW-1:0]    unused_wr_data;
    logic [TW/8-1:0]  unused_wr_mask;

    tpu_host_beat_adapter #(
      .N       (16),
      .UseDepth(RingSlots),
      .TlpWidth(TlpWidth),
      .AddrW   (64)
    ) u_ring_beats (
      .clk_i          (clk_i),
      .rst_ni         (rst_ni),
      .flush_i        (ring_flush_q),
      .hm_req_valid_i (a_req_valid),
      .hm_req_ready_o (a_req_ready),
      .hm_req_write_i (1'b0),
      .hm_req_addr_i  (ring_req_addr),
      .hm_req_wdata_i (128'h0),
      .hm_req_wmask_i (16'h0),
      .hm_rsp_valid_o (ring_rsp_valid),
      .hm_rsp_ready_i (ring_rsp_ready),
      .hm_rsp_rdata_o (ring_rsp_data),
      .hm_rsp_error_o (ring_rsp_error),
      .rd_req_valid_o (rr_req_valid),
      .rd_req_ready_i (rd_req_ready[1]),
      .rd_req_addr_o  (rr_req_addr),
      .rd_rsp_valid_i (rd_rsp_valid[1]),
      .rd_rsp_ready_o (rr_rsp_ready),
      .rd_rsp_data_i  (rd_rsp_data[TW +: TW]),
      .rd_rsp_error_i (rd_rsp_error[1]),
      .wr_req_valid_o (unused_wr_valid),
      .wr_req_ready_i (1'b0),
      .wr_req_addr_o  (unused_wr_addr),
      .wr_req_data_o  (unused_wr_data),
      .wr_req_mask_o  (unused_wr_mask),
      .wr_held_o      (unused_wr_held)
    );

    assign a_req_valid    = ring_req_valid && !ring_flush;
    assign ring_req_ready = a_req_ready && !ring_flush;

    // Reads only: the write side never offers a beat.
    logic unused_ring_wr;
    assign unused_ring_wr = ^{unused_wr_valid, unused_wr_held, unused_wr_addr, unused_wr_data,
                              unused_wr_mask};

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) ring_flush_q <= 1'b0;
      else         ring_flush_q <= ring_flush;
    end
  end

  // ---- TLP and DMA path --------------------------------------------------------------------
  assign rd_flush       = {ring_flush, soft_reset};
  assign rd_req_valid   = {rr_req_valid, hr_req_valid};
  assign rd_req_addr    = {rr_req_addr, 16'h0, hr_req_addr};
  assign rd_req_last    = {ring_req_last, 1'b0};
  assign rd_rsp_ready   = {rr_rsp_ready, hr_rsp_ready};

  // The core's reads are client 0, so each one taken closes the write engine's open run.
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
    .reg_req_valid_o  (reg_req_valid),
    .reg_req_ready_i  (reg_req_ready),
    .reg_req_write_o  (reg_req_write),
    .reg_req_addr_o   (reg_req_addr),
    .reg_req_wdata_o  (reg_req_wdata),
    .reg_req_be_o     (reg_req_be),
    .reg_rsp_valid_i  (reg_rsp_valid),
    .reg_rsp_ready_o  (reg_rsp_ready),
    .reg_rsp_rdata_i  (reg_rsp_rdata),
    .rd_flush_i       (rd_flush),
    .rd_req_valid_i   (rd_req_valid),
    .rd_req_ready_o   (rd_req_ready),
    .rd_req_addr_i    (rd_req_addr),
    .rd_req_last_i    (rd_req_last),
    .rd_rsp_valid_o   (rd_rsp_valid),
    .rd_rsp_ready_i   (rd_rsp_ready),
    .rd_rsp_data_o    (rd_rsp_data),
    .rd_rsp_error_o   (rd_rsp_error),
    .wr_flush_i       (soft_reset),
    .wr_close_i       (1'b0),
    .wr_req_valid_i   (wr_req_valid),
    .wr_req_ready_o   (wr_req_ready),
    .wr_req_addr_i    ({16'h0, wr_req_addr}),
    .wr_req_data_i    (wr_req_data),
    .wr_req_mask_i    (wr_req_mask),
    .wr_held_i        (wr_held),
    .wr_empty_o       (wr_empty),
    .msi_request_i    (msi_request),
    .msi_addr_i       (msi_addr),
    .msi_data_i       (msi_data),
    .msi_sent_o       (msi_sent_o),
    .rd_busy_o        (rd_busy),
    .cpl_unexpected_o (cpl_unexpected),
    .timeout_o        (rd_timeout),
    .rd_fail_o        (rd_fail),
    .rd_fail_kind_o   (rd_fail_kind),
    .rd_fail_status_o (rd_fail_status),
    .rd_fail_client_o (rd_fail_client),
    .rd_fail_tag_o    (rd_fail_tag),
    .rx_drop_count_o  (rx_drop_count_o)
  );

  // ---- registers ---------------------------------------------------------------------------
  tpu_host_regs #(
    .N         (N),
    .UbRows    (UbRows),
    .AccRows   (AccRows),
    .DramBytes (DramBytes),
    .ParamSets (ParamSets),
    .MaxPayload(MaxPayload),
    .MaxReadReq(MaxReadReq),
    .HwVersion (HwVersion)
  ) u_regs (
    .clk_i              (clk_i),
    .rst_ni             (rst_ni),
    .req_valid_i        (reg_req_valid),
    .req_ready_o        (reg_req_ready),
    .req_write_i        (reg_req_write),
    .req_addr_i         (reg_req_addr),
    .req_wdata_i        (reg_req_wdata),
    .req_be_i           (reg_req_be),
    .rsp_valid_o        (reg_rsp_valid),
    .rsp_ready_i        (reg_rsp_ready),
    .rsp_rdata_o        (reg_rsp_rdata),
    .running_i          (running_i),
    .done_i             (done_i),
    .error_i            (error_i),
    .error_code_i       (error_code_i),
    .error_index_i      (error_index_i),
    .irq_i              (irq_i),
    .perf_i             (perf_i),
    .ring_fetch_error_i (ring_fetch_error),
    .ring_head_i        (ring_head),
    .dma_busy_i         (dma_busy_o),
    .dma_fail_i         (rd_fail),
    .dma_fail_kind_i    (rd_fail_kind),
    .dma_fail_status_i  (rd_fail_status),
    .dma_fail_client_i  (rd_fail_client),
    .dma_fail_tag_i     (rd_fail_tag),
    .progress_i         (progress),
    .soft_reset_o       (soft_reset),
    .core_rst_no        (core_rst_no),
    .irq_enable_o       (irq_enable),
    .irq_mask_o         (irq_mask),
    .msi_addr_o         (msi_addr),
    .msi_data_o         (msi_data),
    .ring_base_o        (ring_base),
    .ring_size_o        (ring_size),
    .ring_tail_o        (ring_tail),
    .doorbell_o         (doorbell),
    .msi_request_o      (msi_request)
  );

  // ---- ring --------------------------------------------------------------------------------
  tpu_host_ring #(
    .BufSlots(RingSlots)
  ) u_ring (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .soft_reset_i   (soft_reset),
    .doorbell_i     (doorbell),
    .ring_base_i    (ring_base),
    .ring_size_i    (ring_size),
    .ring_tail_i    (ring_tail),
    .core_running_i (running_i),
    .core_start_o   (core_start_o),
    .instr_valid_o  (instr_valid_o),
    .instr_ready_i  (instr_ready_i),
    .instr_o        (instr_o),
    .req_valid_o    (ring_req_valid),
    .req_ready_i    (ring_req_ready),
    .req_addr_o     (ring_req_addr),
    .req_last_o     (ring_req_last),
    .rsp_valid_i    (ring_rsp_valid),
    .rsp_ready_o    (ring_rsp_ready),
    .rsp_data_i     (ring_rsp_data),
    .rsp_error_i    (ring_rsp_error),
    .flush_o        (ring_flush),
    .ring_head_o    (ring_head),
    .fetch_error_o  (ring_fetch_error),
    .active_o       (ring_active_o)
  );

  // ---- watchdog progress -------------------------------------------------------------------
  // Progress: the core takes an instruction or moves a host-memory beat, or a row counter of
  // the core (MXU rows accepted, DMA, weight, matrix and activation rows) changes. The low
  // bits of those counters are compared with the last cycle's (a counter steps by less than
  // 16 per cycle).
  logic [19:0] rows_low, rows_low_q;

  assign rows_low = {perf_i[64*tpu_regs_pkg::PerfMxuBusyIndex +: 4],
                     perf_i[64*tpu_regs_pkg::PerfRowsDmaIndex +: 4],
                     perf_i[64*tpu_regs_pkg::PerfRowsWeightsIndex +: 4],
                     perf_i[64*tpu_regs_pkg::PerfRowsMatrixIndex +: 4],
                     perf_i[64*tpu_regs_pkg::PerfRowsActIndex +: 4]};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rows_low_q <= '0;
    else         rows_low_q <= rows_low;
  end

  assign progress = (instr_valid_o && instr_ready_i) || (hm_req_valid_i && hm_req_ready_o) ||
                    (hm_rsp_valid_o && hm_rsp_ready_i) || rows_low != rows_low_q;

  // ---- status ------------------------------------------------------------------------------
  logic [15:0] cpl_drop_d, cpl_drop_q, timeout_d, timeout_q;

  assign cpl_drop_d = cpl_drop_q + 16'(cpl_unexpected && cpl_drop_q != 16'hffff);
  assign timeout_d  = timeout_q + 16'(rd_timeout && timeout_q != 16'hffff);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cpl_drop_q <= '0;
      timeout_q  <= '0;
    end else begin
      cpl_drop_q <= cpl_drop_d;
      timeout_q  <= timeout_d;
    end
  end

  assign core_soft_reset_o = soft_reset;
  assign dma_busy_o        = rd_busy || !wr_empty;
  assign cpl_drop_count_o  = cpl_drop_q;
  assign timeout_count_o   = timeout_q;

  // The register file uses these inside itself (MSI enable and mask) only.
  logic unused_regs;
  assign unused_regs = ^{irq_enable, irq_mask};

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  // N (a power of two, 2 .. 256) is checked by the beat adapter, the PCIe sizes and tags by
  // the DMA engines.

endmodule
