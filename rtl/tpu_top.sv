`include "tpu_assert.svh"
// The TPU device: the host interface (rtl/host_if/tpu_host_if.sv, the application side of a
// PCIe endpoint: TLP streams, BAR0 registers, DMA, instruction ring, MSI) and the core
// (rtl/tpu_core.sv: controller, MXU, unified buffer, accumulators, weight FIFO, activation
// pipeline). The TLP streams and the weight-DRAM ports of the core are the device's pins;
// docs/host_if.md is the contract. The TLP streams are TlpWidth bits a cycle (128, 256 or 512:
// the DMA engines' beat); the core's host-memory beats (N bytes) reach the engines through the
// host interface's beat adapter, so any N the core takes works with any width.
//
// CONTROL.soft_reset resets the core through its rst_ni (for the one cycle the register
// file's pulse lasts; the memories keep their contents; the reset is a flip-flop of the
// register file, asserted asynchronously by rst_ni and released at a clock edge, never
// logic) and the host interface's DMA and ring
// state, but not the register file's configuration. The weight DRAM outside still answers the
// tile reads the core made before the reset: tpu_top counts the beats requested and not yet
// received, and after a soft reset takes and drops that many before the core sees DRAM beats
// again (the DRAM answers in order, so they are exactly the stale ones).
module tpu_top #(
  parameter int unsigned N          = 16,                // MXU size
  parameter int unsigned UbRows     = tpu_pkg::UbDepth,  // UB rows
  parameter int unsigned AccRows    = tpu_pkg::AccDepth, // accumulator rows
  parameter logic [63:0] DramBytes  = 64'd67108864,      // weight-DRAM bytes
  parameter int unsigned ParamSets  = 64,                // activation parameter sets
  parameter int unsigned DramWidth  = N * 8,             // weight-DRAM read beat bits
  parameter int unsigned MaxPayload = 256,               // PCIe MPS, bytes
  parameter int unsigned MaxReadReq = 512,               // PCIe MRRS, bytes
  parameter int unsigned NumTags    = 16,                // DMA reads outstanding
  parameter int unsigned Timeout    = 65536,             // DMA completion timeout, cycles
  parameter int unsigned RingSlots  = 8,                 // instructions fetched ahead
  parameter int unsigned HwVersion  = 1,                 // VERSION.hw_version
  parameter int unsigned TlpWidth   = 128                // TLP stream beat bits: 128/256/512
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // TLPs received from the link.
  input  logic                 rx_valid_i,        // a beat is offered
  output logic                 rx_ready_o,        // ... and taken this cycle
  input  logic [TlpWidth-1:0]  rx_data_i,         // DW d at [32d +: 32]
  input  logic                 rx_sop_i,          // first beat of a TLP
  input  logic                 rx_eop_i,          // last beat of a TLP
  // TLPs sent to the link.
  output logic                 tx_valid_o,        // a beat is offered
  input  logic                 tx_ready_i,        // ... and taken this cycle
  output logic [TlpWidth-1:0]  tx_data_o,         // DW d at [32d +: 32]
  output logic                 tx_sop_o,          // first beat of a TLP
  output logic                 tx_eop_o,          // last beat of a TLP
  // Weight DRAM, reads: one request per N x N tile, answered by its beats in order.
  output logic                 wd_req_valid_o,    // a tile read is offered
  input  logic                 wd_req_ready_i,    // ... and taken this cycle
  output logic [tpu_isa_pkg::ReadHostDestWidth-1:0] wd_req_addr_o,  // byte address of the tile
  input  logic                 wd_rsp_valid_i,    // wd_rsp_data_i holds a beat
  output logic                 wd_rsp_ready_o,    // ... and it is taken this cycle
  input  logic [DramWidth-1:0] wd_rsp_data_i,     // weight b at [8b +: 8]
  // Weight DRAM, writes: one row of N bytes with a byte mask.
  output logic                 wd_wr_valid_o,     // a write is offered
  input  logic                 wd_wr_ready_i,     // ... and taken this cycle
  output logic [tpu_isa_pkg::ReadHostDestWidth-1:0] wd_wr_addr_o,   // byte address, N-aligned
  output logic [8*N-1:0]       wd_wr_data_o,      // byte b at [8b +: 8]
  output logic [N-1:0]         wd_wr_mask_o,      // bytes written
  // Status (for waveforms, the system model and tests; the host reads STATUS).
  output logic                 running_o,         // the core runs a program
  output logic                 done_o,            // HALT completed
  output logic                 error_o,           // the core stopped on an error
  output logic                 msi_sent_o,        // pulse: an MSI left
  output logic                 dma_busy_o,        // DMA requests or writes in flight
  output logic [15:0]          rx_drop_count_o,   // received TLPs dropped (saturates)
  output logic [15:0]          cpl_drop_count_o,  // completions without a request (saturates)
  output logic [15:0]          timeout_count_o    // DMA reads timed out (saturates)
);

  localparam int unsigned PerfW = 10 * 64;

  logic             core_soft_reset, core_rst_n, core_start;
  logic             instr_valid, instr_ready;
  logic [127:0]     instr;
  logic             hm_req_valid, hm_req_ready, hm_req_write;
  logic [47:0]      hm_req_addr;
  logic [8*N-1:0]   hm_req_wdata, hm_rsp_rdata;
  logic [N-1:0]     hm_req_wmask;
  logic             hm_rsp_valid, hm_rsp_ready, hm_rsp_error;
  logic             running, done, error, irq;
  logic [7:0]       error_code;
  logic [31:0]      error_index;
  logic [PerfW-1:0] perf;
  logic             ring_active;
  logic             core_wd_req_valid, core_wd_rsp_ready, wd_draining;

  tpu_host_if #(
    .N         (N),
    .UbRows    (UbRows),
    .AccRows   (AccRows),
    .DramBytes (DramBytes),
    .ParamSets (ParamSets),
    .MaxPayload(MaxPayload),
    .MaxReadReq(MaxReadReq),
    .NumTags   (NumTags),
    .Timeout   (Timeout),
    .RingSlots (RingSlots),
    .HwVersion (HwVersion),
    .TlpWidth  (TlpWidth)
  ) u_host_if (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .rx_valid_i        (rx_valid_i),
    .rx_ready_o        (rx_ready_o),
    .rx_data_i         (rx_data_i),
    .rx_sop_i          (rx_sop_i),
    .rx_eop_i          (rx_eop_i),
    .tx_valid_o        (tx_valid_o),
    .tx_ready_i        (tx_ready_i),
    .tx_data_o         (tx_data_o),
    .tx_sop_o          (tx_sop_o),
    .tx_eop_o          (tx_eop_o),
    .core_soft_reset_o (core_soft_reset),
    .core_rst_no       (core_rst_n),
    .core_start_o      (core_start),
    .instr_valid_o     (instr_valid),
    .instr_ready_i     (instr_ready),
    .instr_o           (instr),
    .hm_req_valid_i    (hm_req_valid),
    .hm_req_ready_o    (hm_req_ready),
    .hm_req_write_i    (hm_req_write),
    .hm_req_addr_i     (hm_req_addr),
    .hm_req_wdata_i    (hm_req_wdata),
    .hm_req_wmask_i    (hm_req_wmask),
    .hm_rsp_valid_o    (hm_rsp_valid),
    .hm_rsp_ready_i    (hm_rsp_ready),
    .hm_rsp_rdata_o    (hm_rsp_rdata),
    .hm_rsp_error_o    (hm_rsp_error),
    .running_i         (running),
    .done_i            (done),
    .error_i           (error),
    .error_code_i      (error_code),
    .error_index_i     (error_index),
    .irq_i             (irq),
    .perf_i            (perf),
    .dma_busy_o        (dma_busy_o),
    .ring_active_o     (ring_active),
    .msi_sent_o        (msi_sent_o),
    .rx_drop_count_o   (rx_drop_count_o),
    .cpl_drop_count_o  (cpl_drop_count_o),
    .timeout_count_o   (timeout_count_o)
  );

  tpu_core #(
    .N        (N),
    .UbRows   (UbRows),
    .AccRows  (AccRows),
    .DramBytes(DramBytes),
    .ParamSets(ParamSets),
    .DramWidth(DramWidth)
  ) u_core (
    .clk_i          (clk_i),
    .rst_ni         (core_rst_n),
    .start_i        (core_start),
    .instr_valid_i  (instr_valid),
    .instr_ready_o  (instr_ready),
    .instr_i        (instr),
    .hm_req_valid_o (hm_req_valid),
    .hm_req_ready_i (hm_req_ready),
    .hm_req_write_o (hm_req_write),
    .hm_req_addr_o  (hm_req_addr),
    .hm_req_wdata_o (hm_req_wdata),
    .hm_req_wmask_o (hm_req_wmask),
    .hm_rsp_valid_i (hm_rsp_valid),
    .hm_rsp_ready_o (hm_rsp_ready),
    .hm_rsp_rdata_i (hm_rsp_rdata),
    .hm_rsp_error_i (hm_rsp_error),
    .wd_req_valid_o (core_wd_req_valid),
    .wd_req_ready_i (wd_req_ready_i),
    .wd_req_addr_o  (wd_req_addr_o),
    .wd_rsp_valid_i (wd_rsp_valid_i && !wd_draining),
    .wd_rsp_ready_o (core_wd_rsp_ready),
    .wd_rsp_data_i  (wd_rsp_data_i),
    .wd_wr_valid_o  (wd_wr_valid_o),
    .wd_wr_ready_i  (wd_wr_ready_i),
    .wd_wr_addr_o   (wd_wr_addr_o),
    .wd_wr_data_o   (wd_wr_data_o),
    .wd_wr_mask_o   (wd_wr_mask_o),
    .running_o      (running),
    .done_o         (done),
    .error_o        (error),
    .error_code_o   (error_code),
    .error_index_o  (error_index),
    .irq_o          (irq),
    .perf_o         (perf)
  );

  // ---- weight-DRAM beats owed to a core that was soft reset --------------------------------
  localparam int unsigned TileBeats = N * N * 8 / DramWidth;  // beats per tile read

  logic [15:0] wd_owed_d, wd_owed_q;    // beats requested and not yet received
  logic [15:0] wd_stale_d, wd_stale_q;  // of those, requested before the last soft reset
  logic        wd_req_fire, wd_rsp_fire;

  assign wd_draining    = wd_stale_q != '0;
  assign wd_req_valid_o = core_wd_req_valid;
  assign wd_rsp_ready_o = wd_draining || core_wd_rsp_ready;
  assign wd_req_fire    = wd_req_valid_o && wd_req_ready_i;
  assign wd_rsp_fire    = wd_rsp_valid_i && wd_rsp_ready_o;
  assign wd_owed_d      = wd_owed_q + (wd_req_fire ? 16'(TileBeats) : 16'd0) - 16'(wd_rsp_fire);
  assign wd_stale_d     = core_soft_reset ? wd_owed_d :
                          wd_stale_q - 16'(wd_draining && wd_rsp_fire);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wd_owed_q  <= '0;
      wd_stale_q <= '0;
    end else begin
      wd_owed_q  <= wd_owed_d;
      wd_stale_q <= wd_stale_d;
    end
  end

  assign running_o = running;
  assign done_o    = done;
  assign error_o   = error;

  logic unused_status;
  assign unused_status = ring_active;

  `TPU_ASSERT_INIT(TileIsWholeBeats, (N * N * 8) % DramWidth == 0)
  `TPU_ASSERT(OwedBeatsBounded, wd_owed_q < 16'hff00, clk_i, rst_ni)
  `TPU_ASSERT(NoBeatUnowed, !wd_rsp_fire || wd_owed_q != '0, clk_i, rst_ni)

endmodule
