// Generated from regs/regs.json by scripts/gen_regs.py. Do not edit.
//
// The BAR0 register map (docs/registers.md): the byte offset of every register, the LSB
// and width of every field, reset values, and the masks of defined and writable bits.
// Register R is at byte offset ROffset; field F of R is bits [RFLsb +: RFWidth]. Element i
// of array A holds its register R at AOffset + i * AStride + AROffset (AROffset is the
// offset inside the element). Use as tpu_regs_pkg::Name (Yosys 0.23 cannot read `import`).
//
// Waiver: every user takes a few of these constants, and Verilator -Wall reports each unused
// package parameter as soon as a module body names the package; lint_on restores it below.
/* verilator lint_off UNUSEDPARAM */
package tpu_regs_pkg;

  localparam int unsigned RegBytes = 4096;  // bytes of BAR0
  localparam int unsigned AddrWidth = 12;  // byte-address bits
  localparam int unsigned RegWidth = 32;  // bits per register

  // ---- Error codes beyond tpu_isa_pkg::error_e (ERROR_CODE) ----
  // a completion of a ring fetch (the DMA read of instruction slots) failed, with no error before
  // it: the device stops (STATUS.running 0, STATUS.error 1, ERROR_INDEX 0, the core's later events
  // set no IRQ_STATUS bit) until CONTROL.soft_reset; extends the core's error codes
  // (tpu_isa_pkg::error_e)
  localparam logic [7:0] ErrRingFetchError = 8'h20;
  // the device ran WATCHDOG.cycles cycles in a row without progress (no instruction taken, no
  // host-memory beat requested or returned, no UB, weight or matrix row moved), with no error
  // before it: the device stops as for RING_FETCH_ERROR (STATUS.running 0, STATUS.error 1,
  // ERROR_INDEX 0) until CONTROL.soft_reset
  localparam logic [7:0] ErrWatchdog = 8'h21;

  // ---- ID (0x000, RO): identifies the device ----
  localparam logic [11:0] IdOffset = 12'h000;
  localparam logic [31:0] IdReset = 32'h54505531;
  localparam logic [31:0] IdMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] IdWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned IdIdLsb = 0;  // [31:0] RO
  localparam int unsigned IdIdWidth = 32;

  // ---- VERSION (0x004, RO): instruction-set and hardware versions ----
  localparam logic [11:0] VersionOffset = 12'h004;
  localparam logic [31:0] VersionMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] VersionWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned VersionIsaVersionLsb = 0;  // [15:0] RO, reset IsaVersion
  localparam int unsigned VersionIsaVersionWidth = 16;
  localparam int unsigned VersionHwVersionLsb = 16;  // [31:16] RO, reset HwVersion
  localparam int unsigned VersionHwVersionWidth = 16;

  // ---- CAP_N (0x008, RO): MXU size ----
  localparam logic [11:0] CapNOffset = 12'h008;
  localparam logic [31:0] CapNMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] CapNWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned CapNNLsb = 0;  // [31:0] RO, reset N
  localparam int unsigned CapNNWidth = 32;

  // ---- CAP_UB_ROWS (0x00c, RO): unified-buffer size ----
  localparam logic [11:0] CapUbRowsOffset = 12'h00c;
  localparam logic [31:0] CapUbRowsMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] CapUbRowsWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned CapUbRowsUbRowsLsb = 0;  // [31:0] RO, reset UbRows
  localparam int unsigned CapUbRowsUbRowsWidth = 32;

  // ---- CAP_ACC_ROWS (0x010, RO): accumulator size ----
  localparam logic [11:0] CapAccRowsOffset = 12'h010;
  localparam logic [31:0] CapAccRowsMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] CapAccRowsWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned CapAccRowsAccRowsLsb = 0;  // [31:0] RO, reset AccRows
  localparam int unsigned CapAccRowsAccRowsWidth = 32;

  // ---- CAP_DRAM_BYTES_LO (0x014, RO) ----
  localparam logic [11:0] CapDramBytesLoOffset = 12'h014;
  localparam logic [31:0] CapDramBytesLoMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] CapDramBytesLoWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned CapDramBytesLoBytesLsb = 0;  // [31:0] RO, reset DramBytes[31:0]
  localparam int unsigned CapDramBytesLoBytesWidth = 32;

  // ---- CAP_PARAM_SETS (0x018, RO): activation parameter memory size ----
  localparam logic [11:0] CapParamSetsOffset = 12'h018;
  localparam logic [31:0] CapParamSetsMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] CapParamSetsWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned CapParamSetsParamSetsLsb = 0;  // [31:0] RO, reset ParamSets
  localparam int unsigned CapParamSetsParamSetsWidth = 32;

  // ---- CAP_DMA (0x01c, RO): PCIe transfer sizes the device's DMA uses ----
  localparam logic [11:0] CapDmaOffset = 12'h01c;
  localparam logic [31:0] CapDmaMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] CapDmaWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned CapDmaMaxPayloadLsb = 0;  // [15:0] RO, reset MaxPayload
  localparam int unsigned CapDmaMaxPayloadWidth = 16;
  localparam int unsigned CapDmaMaxReadReqLsb = 16;  // [31:16] RO, reset MaxReadReq
  localparam int unsigned CapDmaMaxReadReqWidth = 16;

  // ---- CAP_DRAM_BYTES_HI (0x020, RO): weight-DRAM size, high half ----
  localparam logic [11:0] CapDramBytesHiOffset = 12'h020;
  localparam logic [31:0] CapDramBytesHiMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] CapDramBytesHiWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned CapDramBytesHiBytesLsb = 0;  // [31:0] RO, reset DramBytes[63:32]
  localparam int unsigned CapDramBytesHiBytesWidth = 32;

  // ---- CONTROL (0x040, RW): soft reset and the interrupt master enable ----
  localparam logic [11:0] ControlOffset = 12'h040;
  localparam logic [31:0] ControlReset = 32'h00000000;
  localparam logic [31:0] ControlMask = 32'h00000003;  // defined bits
  localparam logic [31:0] ControlWriteMask = 32'h00000003;  // bits a write changes
  localparam int unsigned ControlSoftResetLsb = 0;  // [0] W1P
  localparam int unsigned ControlSoftResetWidth = 1;
  localparam int unsigned ControlIrqEnableLsb = 1;  // [1] RW
  localparam int unsigned ControlIrqEnableWidth = 1;

  // ---- STATUS (0x044, RO) ----
  localparam logic [11:0] StatusOffset = 12'h044;
  localparam logic [31:0] StatusReset = 32'h00000008;
  localparam logic [31:0] StatusMask = 32'h0000001f;  // defined bits
  localparam logic [31:0] StatusWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned StatusRunningLsb = 0;  // [0] RO
  localparam int unsigned StatusRunningWidth = 1;
  localparam int unsigned StatusDoneLsb = 1;  // [1] RO
  localparam int unsigned StatusDoneWidth = 1;
  localparam int unsigned StatusErrorLsb = 2;  // [2] RO
  localparam int unsigned StatusErrorWidth = 1;
  localparam int unsigned StatusRingEmptyLsb = 3;  // [3] RO
  localparam int unsigned StatusRingEmptyWidth = 1;
  localparam int unsigned StatusDmaBusyLsb = 4;  // [4] RO
  localparam int unsigned StatusDmaBusyWidth = 1;

  // ---- ERROR_CODE (0x048, RO) ----
  localparam logic [11:0] ErrorCodeOffset = 12'h048;
  localparam logic [31:0] ErrorCodeReset = 32'h00000000;
  localparam logic [31:0] ErrorCodeMask = 32'h000000ff;  // defined bits
  localparam logic [31:0] ErrorCodeWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned ErrorCodeCodeLsb = 0;  // [7:0] RO
  localparam int unsigned ErrorCodeCodeWidth = 8;

  // ---- ERROR_INDEX (0x04c, RO): where the error happened: 0 while STATUS.error is 0 ----
  localparam logic [11:0] ErrorIndexOffset = 12'h04c;
  localparam logic [31:0] ErrorIndexReset = 32'h00000000;
  localparam logic [31:0] ErrorIndexMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] ErrorIndexWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned ErrorIndexIndexLsb = 0;  // [31:0] RO
  localparam int unsigned ErrorIndexIndexWidth = 32;

  // ---- IRQ_STATUS (0x050, RW1C): interrupt events, set by the device, cleared by writing 1 ----
  localparam logic [11:0] IrqStatusOffset = 12'h050;
  localparam logic [31:0] IrqStatusReset = 32'h00000000;
  localparam logic [31:0] IrqStatusMask = 32'h00000003;  // defined bits
  localparam logic [31:0] IrqStatusWriteMask = 32'h00000003;  // bits a write changes
  localparam int unsigned IrqStatusDoneLsb = 0;  // [0] RW1C
  localparam int unsigned IrqStatusDoneWidth = 1;
  localparam int unsigned IrqStatusErrorLsb = 1;  // [1] RW1C
  localparam int unsigned IrqStatusErrorWidth = 1;

  // ---- IRQ_MASK (0x054, RW): which interrupt events send an MSI ----
  localparam logic [11:0] IrqMaskOffset = 12'h054;
  localparam logic [31:0] IrqMaskReset = 32'h00000000;
  localparam logic [31:0] IrqMaskMask = 32'h00000003;  // defined bits
  localparam logic [31:0] IrqMaskWriteMask = 32'h00000003;  // bits a write changes
  localparam int unsigned IrqMaskDoneLsb = 0;  // [0] RW
  localparam int unsigned IrqMaskDoneWidth = 1;
  localparam int unsigned IrqMaskErrorLsb = 1;  // [1] RW
  localparam int unsigned IrqMaskErrorWidth = 1;

  // ---- MSI_ADDR_LO (0x058, RW): host address of the MSI write, low half (DW aligned) ----
  localparam logic [11:0] MsiAddrLoOffset = 12'h058;
  localparam logic [31:0] MsiAddrLoReset = 32'h00000000;
  localparam logic [31:0] MsiAddrLoMask = 32'hfffffffc;  // defined bits
  localparam logic [31:0] MsiAddrLoWriteMask = 32'hfffffffc;  // bits a write changes
  localparam int unsigned MsiAddrLoAddrLsb = 2;  // [31:2] RW
  localparam int unsigned MsiAddrLoAddrWidth = 30;

  // ---- MSI_ADDR_HI (0x05c, RW): host address of the MSI write, high half ----
  localparam logic [11:0] MsiAddrHiOffset = 12'h05c;
  localparam logic [31:0] MsiAddrHiReset = 32'h00000000;
  localparam logic [31:0] MsiAddrHiMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] MsiAddrHiWriteMask = 32'hffffffff;  // bits a write changes
  localparam int unsigned MsiAddrHiAddrLsb = 0;  // [31:0] RW
  localparam int unsigned MsiAddrHiAddrWidth = 32;

  // ---- MSI_DATA (0x060, RW): data of the MSI write ----
  localparam logic [11:0] MsiDataOffset = 12'h060;
  localparam logic [31:0] MsiDataReset = 32'h00000000;
  localparam logic [31:0] MsiDataMask = 32'h0000ffff;  // defined bits
  localparam logic [31:0] MsiDataWriteMask = 32'h0000ffff;  // bits a write changes
  localparam int unsigned MsiDataDataLsb = 0;  // [15:0] RW
  localparam int unsigned MsiDataDataWidth = 16;

  // ---- DMA_ERROR_CAUSE (0x064, RO) ----
  localparam logic [11:0] DmaErrorCauseOffset = 12'h064;
  localparam logic [31:0] DmaErrorCauseReset = 32'h00000000;
  localparam logic [31:0] DmaErrorCauseMask = 32'h0000ff3f;  // defined bits
  localparam logic [31:0] DmaErrorCauseWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned DmaErrorCauseCauseLsb = 0;  // [3:0] RO
  localparam int unsigned DmaErrorCauseCauseWidth = 4;
  localparam logic [3:0] DmaErrorCauseCauseNone = 4'd0;  // no read failed
  // a completion with status Unsupported Request
  localparam logic [3:0] DmaErrorCauseCauseUr = 4'd1;
  localparam logic [3:0] DmaErrorCauseCauseCa = 4'd2;  // a completion with status Completer Abort
  // a completion with another status that is not Successful Completion (CRS or reserved)
  localparam logic [3:0] DmaErrorCauseCauseStatus = 4'd3;
  localparam logic [3:0] DmaErrorCauseCausePoisoned = 4'd4;  // a CplD with EP set (poisoned data)
  // no complete answer within the completion timeout
  localparam logic [3:0] DmaErrorCauseCauseTimeout = 4'd5;
  // a successful completion that breaks the rules: no data, a byte count or lower address that
  // does not continue the request, a length that is not whole beats or exceeds the byte count, a
  // TLP shorter or longer than its length
  localparam logic [3:0] DmaErrorCauseCauseMalformed = 4'd6;
  localparam int unsigned DmaErrorCauseRequesterLsb = 4;  // [5:4] RO
  localparam int unsigned DmaErrorCauseRequesterWidth = 2;
  localparam logic [1:0] DmaErrorCauseRequesterNone = 2'd0;  // no read failed
  // the core's host-memory port (READ_HOST)
  localparam logic [1:0] DmaErrorCauseRequesterCore = 2'd1;
  localparam logic [1:0] DmaErrorCauseRequesterRing = 2'd2;  // the instruction ring's fetch
  localparam int unsigned DmaErrorCauseTagLsb = 8;  // [15:8] RO
  localparam int unsigned DmaErrorCauseTagWidth = 8;

  // ---- WATCHDOG (0x068, RW) ----
  localparam logic [11:0] WatchdogOffset = 12'h068;
  localparam logic [31:0] WatchdogReset = 32'h00000000;
  localparam logic [31:0] WatchdogMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] WatchdogWriteMask = 32'hffffffff;  // bits a write changes
  localparam int unsigned WatchdogCyclesLsb = 0;  // [31:0] RW
  localparam int unsigned WatchdogCyclesWidth = 32;

  // ---- RING_BASE_LO (0x080, RW) ----
  localparam logic [11:0] RingBaseLoOffset = 12'h080;
  localparam logic [31:0] RingBaseLoReset = 32'h00000000;
  localparam logic [31:0] RingBaseLoMask = 32'hfffffff0;  // defined bits
  localparam logic [31:0] RingBaseLoWriteMask = 32'hfffffff0;  // bits a write changes
  localparam int unsigned RingBaseLoAddrLsb = 4;  // [31:4] RW
  localparam int unsigned RingBaseLoAddrWidth = 28;

  // ---- RING_BASE_HI (0x084, RW): host address of instruction slot 0, high half ----
  localparam logic [11:0] RingBaseHiOffset = 12'h084;
  localparam logic [31:0] RingBaseHiReset = 32'h00000000;
  localparam logic [31:0] RingBaseHiMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] RingBaseHiWriteMask = 32'hffffffff;  // bits a write changes
  localparam int unsigned RingBaseHiAddrLsb = 0;  // [31:0] RW
  localparam int unsigned RingBaseHiAddrWidth = 32;

  // ---- RING_SIZE (0x088, RW): slots in the ring ----
  localparam logic [11:0] RingSizeOffset = 12'h088;
  localparam logic [31:0] RingSizeReset = 32'h00000000;
  localparam logic [31:0] RingSizeMask = 32'h0001ffff;  // defined bits
  localparam logic [31:0] RingSizeWriteMask = 32'h0001ffff;  // bits a write changes
  localparam int unsigned RingSizeSlotsLsb = 0;  // [16:0] RW
  localparam int unsigned RingSizeSlotsWidth = 17;

  // ---- RING_HEAD (0x08c, RO) ----
  localparam logic [11:0] RingHeadOffset = 12'h08c;
  localparam logic [31:0] RingHeadReset = 32'h00000000;
  localparam logic [31:0] RingHeadMask = 32'h0000ffff;  // defined bits
  localparam logic [31:0] RingHeadWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned RingHeadHeadLsb = 0;  // [15:0] RO
  localparam int unsigned RingHeadHeadWidth = 16;

  // ---- RING_TAIL (0x090, RW): the doorbell: slots before it hold instructions to run ----
  localparam logic [11:0] RingTailOffset = 12'h090;
  localparam logic [31:0] RingTailReset = 32'h00000000;
  localparam logic [31:0] RingTailMask = 32'h0000ffff;  // defined bits
  localparam logic [31:0] RingTailWriteMask = 32'h0000ffff;  // bits a write changes
  localparam int unsigned RingTailTailLsb = 0;  // [15:0] RW
  localparam int unsigned RingTailTailWidth = 16;

  // ---- PERF: 10 elements of 8 bytes from 0x100 ----
  localparam logic [11:0] PerfOffset = 12'h100;  // element 0
  localparam int unsigned PerfStride = 8;  // bytes per element
  localparam int unsigned PerfCount = 10;  // elements
  localparam int unsigned PerfCyclesIndex = 0;  // cycles the queue is running
  localparam int unsigned PerfMxuBusyIndex = 1;  // activation rows the MXU accepted
  // cycles the matrix unit has a row ready but waits for a weight tile
  localparam int unsigned PerfStallWeightsIndex = 2;
  localparam int unsigned PerfStallActInIndex = 3;  // cycles the matrix unit waits for a UB row
  // cycles a DMA transfer waits for the host-memory port
  localparam int unsigned PerfStallDmaIndex = 4;
  // cycles some unit (or the dispatcher in SYNC) waits for a token
  localparam int unsigned PerfStallDepIndex = 5;
  localparam int unsigned PerfRowsDmaIndex = 6;  // UB rows written or read by the DMA unit
  localparam int unsigned PerfRowsWeightsIndex = 7;  // weight rows pushed into the weight FIFO
  localparam int unsigned PerfRowsMatrixIndex = 8;  // rows multiplied
  localparam int unsigned PerfRowsActIndex = 9;  // rows written to the UB by the activation unit
  // PERF_i_LO: counter bits 31:0; reading it latches bits 63:32 of the same value for PERF_i_HI
  localparam logic [11:0] PerfLoOffset = 12'h000;  // inside an element
  localparam logic [31:0] PerfLoReset = 32'h00000000;
  localparam logic [31:0] PerfLoMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] PerfLoWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned PerfLoValueLsb = 0;  // [31:0] RO
  localparam int unsigned PerfLoValueWidth = 32;
  // PERF_i_HI: bits 63:32 of the value latched by the last read of PERF_i_LO
  localparam logic [11:0] PerfHiOffset = 12'h004;  // inside an element
  localparam logic [31:0] PerfHiReset = 32'h00000000;
  localparam logic [31:0] PerfHiMask = 32'hffffffff;  // defined bits
  localparam logic [31:0] PerfHiWriteMask = 32'h00000000;  // bits a write changes
  localparam int unsigned PerfHiValueLsb = 0;  // [31:0] RO
  localparam int unsigned PerfHiValueWidth = 32;

endpackage
/* verilator lint_on UNUSEDPARAM */
