`include "tpu_assert.svh"
// BAR0 register file of the host interface (docs/host_if.md section 2; the map is generated
// from regs/regs.json into tpu_regs_pkg and docs/registers.md, whose access rules this block
// implements). Single-DW requests from the TLP receive logic: a write changes the bytes its
// byte enables select and produces no response; a read produces one response, in order.
// Reserved bits and unmapped offsets read 0 and ignore writes. IRQ_STATUS is write-1-to-clear
// and set by the core's done/error events and ring fetch errors; an event that newly sets a
// bit whose IRQ_MASK bit and CONTROL.irq_enable are set requests one MSI. Reading PERF_i_LO
// latches bits 63:32 of the same counter value for PERF_i_HI. Writing CONTROL.soft_reset
// clears RING_TAIL, IRQ_STATUS and a latched ring fetch error here and pulses soft_reset_o
// (the core and the rest of the host interface reset on it); core events during the pulse
// are dropped. The configuration (irq_enable, IRQ_MASK, MSI, ring base and size) stays.
// core_rst_no is the core's reset for it: a flip-flop (asserted asynchronously by rst_ni,
// released at a clock edge) that is low in exactly the cycle soft_reset_o pulses, so no logic
// drives the core's asynchronous reset.
// DMA_ERROR_CAUSE keeps the first failed DMA read reported on dma_fail_* since the last soft
// reset. The watchdog (WATCHDOG.cycles, 0 = off) counts the cycles a running device shows no
// progress_i; reaching WATCHDOG.cycles stops the device like a ring fetch error (error code
// WATCHDOG) unless an error came first. Both error latches clear on soft reset.
// Latency: a request is taken at a clock edge where req_valid_i && req_ready_o. A write takes
// effect at that edge: the new value is on the outputs in the next cycle, together with the
// one-cycle pulses soft_reset_o / doorbell_o. A read samples the register at that edge; its
// response is valid from the next cycle until rsp_ready_i. req_ready_o is low only while a
// response waits and rsp_ready_i is low (one request per cycle when the reader keeps up).
// msi_request_o pulses in the cycle after the edge that set the IRQ_STATUS bit.
module tpu_host_regs #(
  parameter int unsigned N          = 16,        // MXU size (CAP_N)
  parameter int unsigned UbRows     = 4096,      // UB rows (CAP_UB_ROWS)
  parameter int unsigned AccRows    = 1024,      // accumulator rows (CAP_ACC_ROWS)
  parameter logic [63:0] DramBytes  = 64'd67108864,  // weight-DRAM bytes (CAP_DRAM_BYTES_LO/HI)
  parameter int unsigned ParamSets  = 64,        // activation parameter sets (CAP_PARAM_SETS)
  parameter int unsigned MaxPayload = 256,       // PCIe max payload bytes (CAP_DMA)
  parameter int unsigned MaxReadReq = 512,       // PCIe max read request bytes (CAP_DMA)
  parameter int unsigned HwVersion  = 1,         // hardware version (VERSION)
  localparam int unsigned AddrW = tpu_regs_pkg::AddrWidth,                  // BAR0 address bits
  localparam int unsigned PerfW = 64 * tpu_regs_pkg::PerfCount,             // perf_i bits
  localparam int unsigned CodeW = tpu_regs_pkg::ErrorCodeCodeWidth,         // error code bits
  localparam int unsigned SlotW = tpu_regs_pkg::RingTailTailWidth,          // ring slot bits
  localparam int unsigned SizeW = tpu_regs_pkg::RingSizeSlotsWidth,         // ring size bits
  localparam int unsigned MsiW  = tpu_regs_pkg::MsiDataDataWidth            // MSI data bits
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // Register accesses from the TLP receive logic, one DW each.
  input  logic              req_valid_i,         // a request is offered
  output logic              req_ready_o,         // ... and taken at this edge
  input  logic              req_write_i,         // 1 write, 0 read
  input  logic [AddrW-1:0]  req_addr_i,          // byte address in BAR0, DW aligned
  input  logic [31:0]       req_wdata_i,         // write data
  input  logic [3:0]        req_be_i,            // byte enables (byte b = bits [8b +: 8])
  // Read responses, one per read, in request order.
  output logic              rsp_valid_o,         // rsp_rdata_o holds a read's data
  input  logic              rsp_ready_i,         // ... and is taken at this edge
  output logic [31:0]       rsp_rdata_o,         // the register's value when the read was taken
  // Core status (tpu_core, docs/controller.md section 5).
  input  logic              running_i,           // started, neither done nor stopped
  input  logic              done_i,              // HALT completed (level)
  input  logic              error_i,             // stopped by an error, drained (level)
  input  logic [CodeW-1:0]  error_code_i,        // tpu_isa_pkg::error_e, valid with error_i
  input  logic [31:0]       error_index_i,       // failing instruction's index, with error_i
  input  logic              irq_i,               // pulse when done_i or error_i rises
  input  logic [PerfW-1:0]  perf_i,              // counter i at [64i +: 64]
  // Host-interface status.
  input  logic              ring_fetch_error_i,  // pulse: a ring fetch completion failed
  input  logic [SlotW-1:0]  ring_head_i,         // next slot the ring fetcher fetches
  input  logic              dma_busy_i,          // the DMA engine has requests in flight
  input  logic              dma_fail_i,          // pulse: a client's DMA read failed
  input  logic [1:0]        dma_fail_kind_i,     // ... 0 completion, 1 poisoned, 2 timeout
  input  logic [2:0]        dma_fail_status_i,   // ... the completion's status (kind 0)
  input  logic              dma_fail_client_i,   // ... whose: 0 core, 1 ring
  input  logic [7:0]        dma_fail_tag_i,      // ... its tag
  input  logic              progress_i,          // the device made progress (watchdog)
  // Configuration and commands.
  output logic              soft_reset_o,        // pulse: CONTROL.soft_reset was written with 1
  output logic              core_rst_no,         // the core's reset: low with rst_ni or the pulse
  output logic              irq_enable_o,        // CONTROL.irq_enable
  output logic [1:0]        irq_mask_o,          // IRQ_MASK: [0] done, [1] error
  output logic [63:0]       msi_addr_o,          // MSI_ADDR_HI:MSI_ADDR_LO (bits 1:0 zero)
  output logic [MsiW-1:0]   msi_data_o,          // MSI_DATA
  output logic [63:0]       ring_base_o,         // RING_BASE_HI:RING_BASE_LO (bits 3:0 zero)
  output logic [SizeW-1:0]  ring_size_o,         // RING_SIZE if legal (2^k, 2 .. 2^16), else 0
  output logic [SlotW-1:0]  ring_tail_o,         // RING_TAIL
  output logic              doorbell_o,          // pulse: RING_TAIL was written
  output logic              msi_request_o        // pulse: send one MSI
);

  localparam int unsigned NumPerf = tpu_regs_pkg::PerfCount;
  // Interrupt events, as bits of irq_status / irq_mask / events below.
  localparam int unsigned IrqDone  = 0;
  localparam int unsigned IrqError = 1;

  // Register values that depend only on parameters.
  localparam logic [31:0] VersionValue =
      (32'(tpu_isa_pkg::IsaVersion) << tpu_regs_pkg::VersionIsaVersionLsb) |
      (32'(HwVersion) << tpu_regs_pkg::VersionHwVersionLsb);
  localparam logic [31:0] CapDmaValue =
      (32'(MaxPayload) << tpu_regs_pkg::CapDmaMaxPayloadLsb) |
      (32'(MaxReadReq) << tpu_regs_pkg::CapDmaMaxReadReqLsb);
  // CONTROL bits that hold state (soft_reset is a pulse and reads 0).
  localparam logic [31:0] SoftResetBit = 32'(1) << tpu_regs_pkg::ControlSoftResetLsb;

  // ---------------------------------------------------------------------------------------
  // Request decode
  // ---------------------------------------------------------------------------------------
  logic             take, wr, rd, rd_effect;
  logic [AddrW-1:0] addr;
  logic [31:0]      wbits;       // bits the write's byte enables select
  logic [31:0]      wdata;       // write data in those bits, 0 elsewhere
  logic             hit_control, hit_irq_status, hit_irq_mask, hit_msi_addr_lo, hit_msi_addr_hi;
  logic             hit_msi_data, hit_ring_base_lo, hit_ring_base_hi, hit_ring_size;
  logic             hit_ring_tail, hit_watchdog;
  logic [NumPerf-1:0] hit_perf_lo, hit_perf_hi;

  assign req_ready_o = !rsp_valid_o || rsp_ready_i;
  assign take        = req_valid_i && req_ready_o;
  assign wr          = take && req_write_i;
  assign rd          = take && !req_write_i;
  assign rd_effect   = rd && (req_be_i != '0);  // a zero-length read has no side effect
  assign addr        = {req_addr_i[AddrW-1:2], 2'b00};
  assign wbits       = {{8{req_be_i[3]}}, {8{req_be_i[2]}}, {8{req_be_i[1]}}, {8{req_be_i[0]}}};
  assign wdata       = req_wdata_i & wbits;

  assign hit_control      = addr == tpu_regs_pkg::ControlOffset;
  assign hit_irq_status   = addr == tpu_regs_pkg::IrqStatusOffset;
  assign hit_irq_mask     = addr == tpu_regs_pkg::IrqMaskOffset;
  assign hit_msi_addr_lo  = addr == tpu_regs_pkg::MsiAddrLoOffset;
  assign hit_msi_addr_hi  = addr == tpu_regs_pkg::MsiAddrHiOffset;
  assign hit_msi_data     = addr == tpu_regs_pkg::MsiDataOffset;
  assign hit_ring_base_lo = addr == tpu_regs_pkg::RingBaseLoOffset;
  assign hit_ring_base_hi = addr == tpu_regs_pkg::RingBaseHiOffset;
  assign hit_ring_size    = addr == tpu_regs_pkg::RingSizeOffset;
  assign hit_ring_tail    = addr == tpu_regs_pkg::RingTailOffset;
  assign hit_watchdog     = addr == tpu_regs_pkg::WatchdogOffset;

  for (genvar i = 0; i < NumPerf; i++) begin : g_perf_decode
    localparam logic [AddrW-1:0] LoAddr = AddrW'(32'(tpu_regs_pkg::PerfOffset) +
        32'(i) * tpu_regs_pkg::PerfStride + 32'(tpu_regs_pkg::PerfLoOffset));
    localparam logic [AddrW-1:0] HiAddr = AddrW'(32'(tpu_regs_pkg::PerfOffset) +
        32'(i) * tpu_regs_pkg::PerfStride + 32'(tpu_regs_pkg::PerfHiOffset));
    assign hit_perf_lo[i] = addr == LoAddr;
    assign hit_perf_hi[i] = addr == HiAddr;
  end

  // ---------------------------------------------------------------------------------------
  // Writable registers
  // ---------------------------------------------------------------------------------------
  // Multi-bit RW registers are kept as 32-bit images of the register; only their writable
  // bits ever change from the reset value (reserved bits stay 0).
  logic [31:0] msi_addr_lo_d, msi_addr_lo_q, msi_addr_hi_d, msi_addr_hi_q;
  logic [31:0] msi_data_d, msi_data_q, ring_base_lo_d, ring_base_lo_q;
  logic [31:0] ring_base_hi_d, ring_base_hi_q, ring_size_d, ring_size_q;
  logic [31:0] ring_tail_d, ring_tail_q;
  logic [31:0] watchdog_d, watchdog_q;
  logic        irq_enable_d, irq_enable_q;
  logic [1:0]  irq_mask_d, irq_mask_q;
  logic        soft_reset;   // this write pulses soft_reset
  logic        doorbell;     // this write rings the doorbell

  assign soft_reset = wr && hit_control && (wdata & SoftResetBit) != '0;
  assign doorbell   = wr && hit_ring_tail && (wbits & tpu_regs_pkg::RingTailWriteMask) != '0;

  // Written bits of a register image: `q` with the written and writable bits replaced.
  `define TPU_HOST_REGS_RW(q, writable) \
      (((q) & ~(wbits & (writable))) | (wdata & (writable)))

  always_comb begin
    msi_addr_lo_d  = msi_addr_lo_q;
    msi_addr_hi_d  = msi_addr_hi_q;
    msi_data_d     = msi_data_q;
    ring_base_lo_d = ring_base_lo_q;
    ring_base_hi_d = ring_base_hi_q;
    ring_size_d    = ring_size_q;
    ring_tail_d    = ring_tail_q;
    watchdog_d     = watchdog_q;
    irq_enable_d   = irq_enable_q;
    irq_mask_d     = irq_mask_q;
    if (wr) begin
      if (hit_msi_addr_lo) begin
        msi_addr_lo_d = `TPU_HOST_REGS_RW(msi_addr_lo_q, tpu_regs_pkg::MsiAddrLoWriteMask);
      end
      if (hit_msi_addr_hi) begin
        msi_addr_hi_d = `TPU_HOST_REGS_RW(msi_addr_hi_q, tpu_regs_pkg::MsiAddrHiWriteMask);
      end
      if (hit_msi_data) begin
        msi_data_d = `TPU_HOST_REGS_RW(msi_data_q, tpu_regs_pkg::MsiDataWriteMask);
      end
      if (hit_ring_base_lo) begin
        ring_base_lo_d = `TPU_HOST_REGS_RW(ring_base_lo_q, tpu_regs_pkg::RingBaseLoWriteMask);
      end
      if (hit_ring_base_hi) begin
        ring_base_hi_d = `TPU_HOST_REGS_RW(ring_base_hi_q, tpu_regs_pkg::RingBaseHiWriteMask);
      end
      if (hit_ring_size) begin
        ring_size_d = `TPU_HOST_REGS_RW(ring_size_q, tpu_regs_pkg::RingSizeWriteMask);
      end
      if (hit_ring_tail) begin
        ring_tail_d = `TPU_HOST_REGS_RW(ring_tail_q, tpu_regs_pkg::RingTailWriteMask);
      end
      if (hit_watchdog) begin
        watchdog_d = `TPU_HOST_REGS_RW(watchdog_q, tpu_regs_pkg::WatchdogWriteMask);
      end
      if (hit_control && wbits[tpu_regs_pkg::ControlIrqEnableLsb]) begin
        irq_enable_d = wdata[tpu_regs_pkg::ControlIrqEnableLsb];
      end
      if (hit_irq_mask && wbits[tpu_regs_pkg::IrqMaskDoneLsb]) begin
        irq_mask_d[IrqDone] = wdata[tpu_regs_pkg::IrqMaskDoneLsb];
      end
      if (hit_irq_mask && wbits[tpu_regs_pkg::IrqMaskErrorLsb]) begin
        irq_mask_d[IrqError] = wdata[tpu_regs_pkg::IrqMaskErrorLsb];
      end
    end
    // A soft reset restarts the ring from slot 0: the fetcher's head returns to 0.
    if (soft_reset) ring_tail_d = tpu_regs_pkg::RingTailReset;
  end

  `undef TPU_HOST_REGS_RW

  // ---------------------------------------------------------------------------------------
  // Interrupt status, ring fetch error, MSI requests
  // ---------------------------------------------------------------------------------------
  logic       soft_reset_q;     // the soft reset pulse; the core resets at the end of it
  logic       core_rst_nq;      // !soft_reset_q, and low while rst_ni is
  logic       fetch_err_d, fetch_err_q;
  logic       fetch_err_new;    // a ring fetch error that wins (no error so far)
  logic       wdog_err_d, wdog_err_q;
  logic       wdog_err_new;     // the watchdog fires and wins (no error so far)
  logic       host_err;         // the host interface stopped the device
  logic [31:0] wdog_count_d, wdog_count_q;  // cycles running without progress
  logic       wdog_on;          // the watchdog counts this cycle
  logic [31:0] dma_cause_d, dma_cause_q;    // DMA_ERROR_CAUSE image
  logic       core_events_on;   // the core's irq_i events set IRQ_STATUS bits
  logic [1:0] events;           // IRQ_STATUS bits the device sets this cycle
  logic [1:0] clears;           // IRQ_STATUS bits this write clears
  logic [1:0] newly_set;        // bits that were clear, or cleared by this write, and are set
  logic [1:0] irq_status_d, irq_status_q;
  logic       msi_request_d, msi_request_q;
  logic       doorbell_q;

  // Core events count unless the soft reset pulse is out (they come from the core before it
  // resets) or the host interface stopped the device: a ring fetch error or the watchdog (the
  // first error wins).
  assign host_err         = fetch_err_q || wdog_err_q;
  assign core_events_on   = !soft_reset_q && !host_err;
  assign fetch_err_new    = ring_fetch_error_i && !host_err && !error_i && !soft_reset_q;
  // The watchdog counts while the device runs (no error stopped it) and does not progress.
  assign wdog_on          = watchdog_q != '0 && running_i && !error_i && !host_err &&
                            !soft_reset_q && !progress_i;
  assign wdog_count_d     = (wdog_on && !soft_reset) ? wdog_count_q + 32'd1 : '0;
  assign wdog_err_new     = wdog_on && wdog_count_q + 32'd1 >= watchdog_q && !fetch_err_new;
  assign events[IrqDone]  = irq_i && done_i && core_events_on;
  assign events[IrqError] = (irq_i && error_i && core_events_on) || fetch_err_new ||
                            wdog_err_new;

  always_comb begin
    clears = '0;
    if (wr && hit_irq_status) begin
      clears[IrqDone]  = wdata[tpu_regs_pkg::IrqStatusDoneLsb];
      clears[IrqError] = wdata[tpu_regs_pkg::IrqStatusErrorLsb];
    end
  end

  assign newly_set     = events & (~irq_status_q | clears);
  assign irq_status_d  = soft_reset ? '0 : ((irq_status_q & ~clears) | events);
  assign fetch_err_d   = !soft_reset && (fetch_err_q || fetch_err_new);
  assign wdog_err_d    = !soft_reset && (wdog_err_q || wdog_err_new);

  // DMA_ERROR_CAUSE: the first failure since the soft reset (cause NONE until then). A failed
  // completion with status SC broke the rules (malformed).
  logic [3:0] dma_fail_cause;

  always_comb begin
    dma_fail_cause = tpu_regs_pkg::DmaErrorCauseCauseTimeout;
    if (dma_fail_kind_i == 2'd1) begin
      dma_fail_cause = tpu_regs_pkg::DmaErrorCauseCausePoisoned;
    end else if (dma_fail_kind_i == 2'd0) begin
      unique case (dma_fail_status_i)
        3'b000:  dma_fail_cause = tpu_regs_pkg::DmaErrorCauseCauseMalformed;
        3'b001:  dma_fail_cause = tpu_regs_pkg::DmaErrorCauseCauseUr;
        3'b100:  dma_fail_cause = tpu_regs_pkg::DmaErrorCauseCauseCa;
        default: dma_fail_cause = tpu_regs_pkg::DmaErrorCauseCauseStatus;
      endcase
    end
  end

  always_comb begin
    dma_cause_d = dma_cause_q;
    if (dma_fail_i && !soft_reset_q &&
        dma_cause_q[tpu_regs_pkg::DmaErrorCauseCauseLsb +: 4] ==
            tpu_regs_pkg::DmaErrorCauseCauseNone) begin
      dma_cause_d = '0;
      dma_cause_d[tpu_regs_pkg::DmaErrorCauseCauseLsb +: 4] = dma_fail_cause;
      dma_cause_d[tpu_regs_pkg::DmaErrorCauseRequesterLsb +: 2] =
          dma_fail_client_i ? tpu_regs_pkg::DmaErrorCauseRequesterRing :
                              tpu_regs_pkg::DmaErrorCauseRequesterCore;
      dma_cause_d[tpu_regs_pkg::DmaErrorCauseTagLsb +: 8] = dma_fail_tag_i;
    end
    if (soft_reset) dma_cause_d = '0;
  end

  assign msi_request_d = !soft_reset && irq_enable_q && ((newly_set & irq_mask_q) != '0);

  // ---------------------------------------------------------------------------------------
  // Read data
  // ---------------------------------------------------------------------------------------
  logic [31:0] perf_hi_d [NumPerf];
  logic [31:0] perf_hi_q [NumPerf];
  logic [31:0] perf_rdata;     // PERF_i_LO / PERF_i_HI at addr, else 0
  logic [31:0] rdata;          // the register at addr
  logic        st_running, st_error;
  logic [SizeW-1:0] size;
  logic        size_legal;

  assign st_running = running_i && !host_err;
  assign st_error   = error_i || host_err;

  always_comb begin
    perf_rdata = '0;
    for (int i = 0; i < NumPerf; i++) begin
      if (hit_perf_lo[i]) perf_rdata = perf_i[64*i +: 32];
      if (hit_perf_hi[i]) perf_rdata = perf_hi_q[i];
    end
  end

  always_comb begin
    rdata = '0;
    unique case (addr)
      tpu_regs_pkg::IdOffset:           rdata = tpu_regs_pkg::IdReset;
      tpu_regs_pkg::VersionOffset:      rdata = VersionValue;
      tpu_regs_pkg::CapNOffset:         rdata = 32'(N) << tpu_regs_pkg::CapNNLsb;
      tpu_regs_pkg::CapUbRowsOffset:    rdata = 32'(UbRows) << tpu_regs_pkg::CapUbRowsUbRowsLsb;
      tpu_regs_pkg::CapAccRowsOffset:   rdata = 32'(AccRows) << tpu_regs_pkg::CapAccRowsAccRowsLsb;
      tpu_regs_pkg::CapDramBytesLoOffset: rdata = DramBytes[31:0];
      tpu_regs_pkg::CapDramBytesHiOffset: rdata = DramBytes[63:32];
      tpu_regs_pkg::CapParamSetsOffset: begin
        rdata = 32'(ParamSets) << tpu_regs_pkg::CapParamSetsParamSetsLsb;
      end
      tpu_regs_pkg::CapDmaOffset:       rdata = CapDmaValue;
      tpu_regs_pkg::ControlOffset: begin
        rdata[tpu_regs_pkg::ControlIrqEnableLsb] = irq_enable_q;
      end
      tpu_regs_pkg::StatusOffset: begin
        rdata[tpu_regs_pkg::StatusRunningLsb]   = st_running;
        rdata[tpu_regs_pkg::StatusDoneLsb]      = done_i;
        rdata[tpu_regs_pkg::StatusErrorLsb]     = st_error;
        rdata[tpu_regs_pkg::StatusRingEmptyLsb] =
            ring_head_i == ring_tail_q[tpu_regs_pkg::RingTailTailLsb +: SlotW];
        rdata[tpu_regs_pkg::StatusDmaBusyLsb]   = dma_busy_i;
      end
      tpu_regs_pkg::ErrorCodeOffset: begin
        if (fetch_err_q) begin
          rdata[tpu_regs_pkg::ErrorCodeCodeLsb +: CodeW] = tpu_regs_pkg::ErrRingFetchError;
        end else if (wdog_err_q) begin
          rdata[tpu_regs_pkg::ErrorCodeCodeLsb +: CodeW] = tpu_regs_pkg::ErrWatchdog;
        end else if (error_i) begin
          rdata[tpu_regs_pkg::ErrorCodeCodeLsb +: CodeW] = error_code_i;
        end
      end
      tpu_regs_pkg::ErrorIndexOffset: begin
        if (!host_err && error_i) rdata = error_index_i << tpu_regs_pkg::ErrorIndexIndexLsb;
      end
      tpu_regs_pkg::IrqStatusOffset: begin
        rdata[tpu_regs_pkg::IrqStatusDoneLsb]  = irq_status_q[IrqDone];
        rdata[tpu_regs_pkg::IrqStatusErrorLsb] = irq_status_q[IrqError];
      end
      tpu_regs_pkg::IrqMaskOffset: begin
        rdata[tpu_regs_pkg::IrqMaskDoneLsb]  = irq_mask_q[IrqDone];
        rdata[tpu_regs_pkg::IrqMaskErrorLsb] = irq_mask_q[IrqError];
      end
      tpu_regs_pkg::MsiAddrLoOffset:    rdata = msi_addr_lo_q;
      tpu_regs_pkg::MsiAddrHiOffset:    rdata = msi_addr_hi_q;
      tpu_regs_pkg::MsiDataOffset:      rdata = msi_data_q;
      tpu_regs_pkg::RingBaseLoOffset:   rdata = ring_base_lo_q;
      tpu_regs_pkg::RingBaseHiOffset:   rdata = ring_base_hi_q;
      tpu_regs_pkg::RingSizeOffset:     rdata = ring_size_q;
      tpu_regs_pkg::RingHeadOffset: begin
        rdata[tpu_regs_pkg::RingHeadHeadLsb +: SlotW] = ring_head_i;
      end
      tpu_regs_pkg::RingTailOffset:     rdata = ring_tail_q;
      tpu_regs_pkg::DmaErrorCauseOffset: rdata = dma_cause_q;
      tpu_regs_pkg::WatchdogOffset:     rdata = watchdog_q;
      default:                          rdata = perf_rdata;  // PERF_i_LO/HI, or unmapped: 0
    endcase
  end

  // Reading PERF_i_LO latches the other half of the same value.
  for (genvar i = 0; i < NumPerf; i++) begin : g_perf_hi
    assign perf_hi_d[i] = (rd_effect && hit_perf_lo[i]) ? perf_i[64*i+32 +: 32] : perf_hi_q[i];
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        perf_hi_q[i] <= tpu_regs_pkg::PerfHiReset;
      end else begin
        perf_hi_q[i] <= perf_hi_d[i];
      end
    end
  end

  // ---------------------------------------------------------------------------------------
  // Read response
  // ---------------------------------------------------------------------------------------
  logic        rsp_valid_d, rsp_valid_q;
  logic [31:0] rsp_rdata_d, rsp_rdata_q;

  always_comb begin
    rsp_valid_d = rsp_valid_q && !rsp_ready_i;
    rsp_rdata_d = rsp_rdata_q;
    if (rd) begin
      rsp_valid_d = 1'b1;
      rsp_rdata_d = rdata;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Registers
  // ---------------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      msi_addr_lo_q  <= tpu_regs_pkg::MsiAddrLoReset;
      msi_addr_hi_q  <= tpu_regs_pkg::MsiAddrHiReset;
      msi_data_q     <= tpu_regs_pkg::MsiDataReset;
      ring_base_lo_q <= tpu_regs_pkg::RingBaseLoReset;
      ring_base_hi_q <= tpu_regs_pkg::RingBaseHiReset;
      ring_size_q    <= tpu_regs_pkg::RingSizeReset;
      ring_tail_q    <= tpu_regs_pkg::RingTailReset;
      irq_enable_q   <= tpu_regs_pkg::ControlReset[tpu_regs_pkg::ControlIrqEnableLsb];
      irq_mask_q     <= {tpu_regs_pkg::IrqMaskReset[tpu_regs_pkg::IrqMaskErrorLsb],
                         tpu_regs_pkg::IrqMaskReset[tpu_regs_pkg::IrqMaskDoneLsb]};
      irq_status_q   <= {tpu_regs_pkg::IrqStatusReset[tpu_regs_pkg::IrqStatusErrorLsb],
                         tpu_regs_pkg::IrqStatusReset[tpu_regs_pkg::IrqStatusDoneLsb]};
      fetch_err_q    <= 1'b0;
      wdog_err_q     <= 1'b0;
      wdog_count_q   <= '0;
      watchdog_q     <= tpu_regs_pkg::WatchdogReset;
      dma_cause_q    <= tpu_regs_pkg::DmaErrorCauseReset;
      soft_reset_q   <= 1'b0;
      core_rst_nq    <= 1'b0;
      doorbell_q     <= 1'b0;
      msi_request_q  <= 1'b0;
      rsp_valid_q    <= 1'b0;
      rsp_rdata_q    <= '0;
    end else begin
      msi_addr_lo_q  <= msi_addr_lo_d;
      msi_addr_hi_q  <= msi_addr_hi_d;
      msi_data_q     <= msi_data_d;
      ring_base_lo_q <= ring_base_lo_d;
      ring_base_hi_q <= ring_base_hi_d;
      ring_size_q    <= ring_size_d;
      ring_tail_q    <= ring_tail_d;
      irq_enable_q   <= irq_enable_d;
      irq_mask_q     <= irq_mask_d;
      irq_status_q   <= irq_status_d;
      fetch_err_q    <= fetch_err_d;
      wdog_err_q     <= wdog_err_d;
      wdog_count_q   <= wdog_count_d;
      watchdog_q     <= watchdog_d;
      dma_cause_q    <= dma_cause_d;
      soft_reset_q   <= soft_reset;
      core_rst_nq    <= !soft_reset;
      doorbell_q     <= doorbell;
      msi_request_q  <= msi_request_d;
      rsp_valid_q    <= rsp_valid_d;
      rsp_rdata_q    <= rsp_rdata_d;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Outputs
  // ---------------------------------------------------------------------------------------
  assign size       = ring_size_q[tpu_regs_pkg::RingSizeSlotsLsb +: SizeW];
  assign size_legal = size > SizeW'(1) && (size & (size - SizeW'(1))) == '0;

  assign rsp_valid_o   = rsp_valid_q;
  assign rsp_rdata_o   = rsp_rdata_q;
  assign soft_reset_o  = soft_reset_q;
  assign core_rst_no   = core_rst_nq;
  assign irq_enable_o  = irq_enable_q;
  assign irq_mask_o    = irq_mask_q;
  assign msi_addr_o    = {msi_addr_hi_q, msi_addr_lo_q};
  assign msi_data_o    = msi_data_q[tpu_regs_pkg::MsiDataDataLsb +: MsiW];
  assign ring_base_o   = {ring_base_hi_q, ring_base_lo_q};
  assign ring_size_o   = size_legal ? size : '0;
  assign ring_tail_o   = ring_tail_q[tpu_regs_pkg::RingTailTailLsb +: SlotW];
  assign doorbell_o    = doorbell_q;
  assign msi_request_o = msi_request_q;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(CapDmaFits, MaxPayload < (1 << tpu_regs_pkg::CapDmaMaxPayloadWidth) &&
                               MaxReadReq < (1 << tpu_regs_pkg::CapDmaMaxReadReqWidth))
  `TPU_ASSERT_INIT(HwVersionFits, HwVersion < (1 << tpu_regs_pkg::VersionHwVersionWidth))
  `TPU_ASSERT_INIT(DramBytesHalvesAreDws, tpu_regs_pkg::CapDramBytesLoBytesWidth == 32 &&
                                          tpu_regs_pkg::CapDramBytesHiBytesWidth == 32)
  `TPU_ASSERT_INIT(AddressHalvesAreDws, tpu_regs_pkg::MsiAddrHiAddrWidth == 32 &&
                                        tpu_regs_pkg::RingBaseHiAddrWidth == 32)
  `TPU_ASSERT(RequestDwAligned, !req_valid_i || req_addr_i[1:0] == 2'b00, clk_i, rst_ni)
  `TPU_ASSERT(IrqWithAnEvent, !irq_i || done_i || error_i, clk_i, rst_ni)
  `TPU_ASSERT(ReservedBitsStayZero,
              (msi_addr_lo_q & ~tpu_regs_pkg::MsiAddrLoMask) == '0 &&
              (ring_base_lo_q & ~tpu_regs_pkg::RingBaseLoMask) == '0 &&
              (ring_size_q & ~tpu_regs_pkg::RingSizeMask) == '0, clk_i, rst_ni)
  `TPU_ASSERT(RingSizeOutLegal, ring_size_o == '0 ||
              (ring_size_o > SizeW'(1) && (ring_size_o & (ring_size_o - SizeW'(1))) == '0),
              clk_i, rst_ni)

endmodule
