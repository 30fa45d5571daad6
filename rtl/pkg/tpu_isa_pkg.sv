// Generated from isa/isa.json by scripts/gen_isa.py. Do not edit.
//
// Constants of the TPU instruction set (docs/isa.md): opcodes, error codes, enum
// encodings and the LSB / width of every field of every instruction. An instruction is a
// logic [127:0] (word w at bits [32w +: 32]); field F of instruction I is
// instr[tpu_isa_pkg::IFLsb +: tpu_isa_pkg::IFWidth]. Bits set in IReservedMask must be 0.
// Use as tpu_isa_pkg::Name (Yosys 0.23 cannot read `import`).
//
// Waiver: every user takes a few of these constants, and Verilator -Wall reports each unused
// package parameter as soon as a module body names the package; lint_on restores it below.
/* verilator lint_off UNUSEDPARAM */
package tpu_isa_pkg;

  localparam int unsigned IsaVersion  = 3;
  localparam int unsigned InstrBits   = 128;
  localparam int unsigned InstrWords  = 4;
  localparam int unsigned OpcodeLsb   = 0;
  localparam int unsigned OpcodeWidth = 8;
  localparam int unsigned ErrorWidth  = 8;

  // ---- Constants ----
  // dependency tokens t0..t7, each a counter
  localparam int unsigned NumTokens = 8;
  // largest value of a token counter; signalling a counter at TOKEN_MAX raises TOKEN_OVERFLOW
  localparam int unsigned TokenMax = 255;
  // bits of a host byte address
  localparam int unsigned HostAddrBits = 48;
  // entries (int8) of the activation lookup table; entry i holds f(i - 128)
  localparam int unsigned LutBytes = 256;
  // weight tiles the weight FIFO holds (READ_WEIGHTS waits while it is full)
  localparam int unsigned WeightFifoTiles = 4;

  // ---- Device limits (the range a device parameter may take; 64 bits: DRAM_BYTES) ----
  localparam logic [63:0] LimitNMin = 64'd2;
  localparam logic [63:0] LimitNMax = 64'd256;
  localparam logic [63:0] LimitUbRowsMin = 64'd1;
  localparam logic [63:0] LimitUbRowsMax = 64'd262144;
  localparam logic [63:0] LimitAccRowsMin = 64'd2;
  localparam logic [63:0] LimitAccRowsMax = 64'd4096;
  localparam logic [63:0] LimitDramBytesMin = 64'd1;
  localparam logic [63:0] LimitDramBytesMax = 64'd8589934592;
  localparam logic [63:0] LimitParamSetsMin = 64'd1;
  localparam logic [63:0] LimitParamSetsMax = 64'd64;

  // ---- Opcodes ----
  typedef enum logic [7:0] {
    OpNop = 8'h01,
    OpHalt = 8'h02,
    OpSync = 8'h03,
    OpReadHost = 8'h10,
    OpWriteHost = 8'h11,
    OpReadWeights = 8'h20,
    OpMatmul = 8'h30,
    OpActivate = 8'h40
  } opcode_e;

  // ---- Error codes (status register) ----
  typedef enum logic [7:0] {
    ErrOk = 8'd0,
    ErrIllegalOpcode = 8'd1,
    ErrReservedNonzero = 8'd2,
    ErrLengthZero = 8'd3,
    ErrUbRange = 8'd4,
    ErrAccRange = 8'd5,
    ErrDramRange = 8'd6,
    ErrHostRange = 8'd7,
    ErrParamRange = 8'd8,
    ErrLutRange = 8'd9,
    ErrPoolConfig = 8'd10,
    ErrClampOrder = 8'd11,
    ErrConvConfig = 8'd12,
    ErrTokenOverflow = 8'd16,
    ErrDeadlock = 8'd17,
    ErrNoTile = 8'd18,
    ErrDmaError = 8'd19
  } error_e;

  // ---- Enumerated fields ----
  typedef enum logic [1:0] {
    TargetUb = 2'd0,
    TargetDram = 2'd1,
    TargetParam = 2'd2,
    TargetLut = 2'd3
  } target_e;
  typedef enum logic [0:0] {
    AccModeOverwrite = 1'd0,
    AccModeAccumulate = 1'd1
  } acc_mode_e;
  typedef enum logic [1:0] {
    PoolNone = 2'd0,
    PoolMax = 2'd1,
    PoolAvg = 2'd2
  } pool_e;
  typedef enum logic [0:0] {
    PaddingValid = 1'd0,
    PaddingSame = 1'd1
  } padding_e;

  // ---- Mask bits ----
  localparam int unsigned TokensT0Bit = 0;
  localparam int unsigned TokensT1Bit = 1;
  localparam int unsigned TokensT2Bit = 2;
  localparam int unsigned TokensT3Bit = 3;
  localparam int unsigned TokensT4Bit = 4;
  localparam int unsigned TokensT5Bit = 5;
  localparam int unsigned TokensT6Bit = 6;
  localparam int unsigned TokensT7Bit = 7;
  localparam int unsigned UnitsDmaBit = 0;
  localparam int unsigned UnitsWeightsBit = 1;
  localparam int unsigned UnitsMatrixBit = 2;
  localparam int unsigned UnitsActivationBit = 3;

  // ---- NOP (opcode 0x01, unit control) ----
  localparam logic [127:0] NopReservedMask =
      128'hffffffff_ffffffff_ffffffff_ffffff00;

  // ---- HALT (opcode 0x02, unit control) ----
  localparam logic [127:0] HaltReservedMask =
      128'hffffffff_ffffffff_ffffffff_ffffff00;

  // ---- SYNC (opcode 0x03, unit control) ----
  localparam int unsigned SyncWaitLsb = 8;
  localparam int unsigned SyncWaitWidth = 8;
  localparam int unsigned SyncSignalLsb = 16;
  localparam int unsigned SyncSignalWidth = 8;
  localparam int unsigned SyncUnitsLsb = 24;
  localparam int unsigned SyncUnitsWidth = 4;
  localparam logic [127:0] SyncReservedMask =
      128'hffffffff_ffffffff_ffffffff_f0000000;

  // ---- READ_HOST (opcode 0x10, unit dma) ----
  localparam int unsigned ReadHostWaitLsb = 8;
  localparam int unsigned ReadHostWaitWidth = 8;
  localparam int unsigned ReadHostSignalLsb = 16;
  localparam int unsigned ReadHostSignalWidth = 8;
  localparam int unsigned ReadHostTargetLsb = 24;
  localparam int unsigned ReadHostTargetWidth = 2;
  localparam int unsigned ReadHostDestLsb = 26;
  localparam int unsigned ReadHostDestWidth = 33;
  localparam int unsigned ReadHostLengthLsb = 59;
  localparam int unsigned ReadHostLengthWidth = 21;
  localparam int unsigned ReadHostHostLsb = 80;
  localparam int unsigned ReadHostHostWidth = 48;
  localparam logic [127:0] ReadHostReservedMask =
      128'h00000000_00000000_00000000_00000000;

  // ---- WRITE_HOST (opcode 0x11, unit dma) ----
  localparam int unsigned WriteHostWaitLsb = 8;
  localparam int unsigned WriteHostWaitWidth = 8;
  localparam int unsigned WriteHostSignalLsb = 16;
  localparam int unsigned WriteHostSignalWidth = 8;
  localparam int unsigned WriteHostUbLsb = 26;
  localparam int unsigned WriteHostUbWidth = 18;
  localparam int unsigned WriteHostLengthLsb = 59;
  localparam int unsigned WriteHostLengthWidth = 21;
  localparam int unsigned WriteHostHostLsb = 80;
  localparam int unsigned WriteHostHostWidth = 48;
  localparam logic [127:0] WriteHostReservedMask =
      128'h00000000_00000000_07fff000_03000000;

  // ---- READ_WEIGHTS (opcode 0x20, unit weights) ----
  localparam int unsigned ReadWeightsWaitLsb = 8;
  localparam int unsigned ReadWeightsWaitWidth = 8;
  localparam int unsigned ReadWeightsSignalLsb = 16;
  localparam int unsigned ReadWeightsSignalWidth = 8;
  localparam int unsigned ReadWeightsDramTileLsb = 32;
  localparam int unsigned ReadWeightsDramTileWidth = 32;
  localparam int unsigned ReadWeightsTilesLsb = 64;
  localparam int unsigned ReadWeightsTilesWidth = 16;
  localparam logic [127:0] ReadWeightsReservedMask =
      128'hffffffff_ffff0000_00000000_ff000000;

  // ---- MATMUL (opcode 0x30, unit matrix) ----
  localparam int unsigned MatmulWaitLsb = 8;
  localparam int unsigned MatmulWaitWidth = 8;
  localparam int unsigned MatmulSignalLsb = 16;
  localparam int unsigned MatmulSignalWidth = 8;
  localparam int unsigned MatmulAccModeLsb = 24;
  localparam int unsigned MatmulAccModeWidth = 1;
  localparam int unsigned MatmulNewTileLsb = 25;
  localparam int unsigned MatmulNewTileWidth = 1;
  localparam int unsigned MatmulWindowLsb = 26;
  localparam int unsigned MatmulWindowWidth = 1;
  localparam int unsigned MatmulStrideHLsb = 27;
  localparam int unsigned MatmulStrideHWidth = 3;
  localparam int unsigned MatmulUbLsb = 32;
  localparam int unsigned MatmulUbWidth = 18;
  localparam int unsigned MatmulAccLsb = 50;
  localparam int unsigned MatmulAccWidth = 12;
  localparam int unsigned MatmulRowsLsb = 64;
  localparam int unsigned MatmulRowsWidth = 13;
  localparam int unsigned MatmulStrideWLsb = 77;
  localparam int unsigned MatmulStrideWWidth = 3;
  localparam int unsigned MatmulImageWLsb = 80;
  localparam int unsigned MatmulImageWWidth = 8;
  localparam int unsigned MatmulImageHLsb = 88;
  localparam int unsigned MatmulImageHWidth = 8;
  localparam int unsigned MatmulOutWLsb = 96;
  localparam int unsigned MatmulOutWWidth = 8;
  localparam int unsigned MatmulPadValueLsb = 104;
  localparam int unsigned MatmulPadValueWidth = 8;
  localparam int unsigned MatmulY0Lsb = 112;
  localparam int unsigned MatmulY0Width = 10;
  localparam int unsigned MatmulX0Lsb = 122;
  localparam int unsigned MatmulX0Width = 5;
  localparam logic [127:0] MatmulReservedMask =
      128'h80000000_00000000_c0000000_c0000000;

  // ---- ACTIVATE (opcode 0x40, unit activation) ----
  localparam int unsigned ActivateWaitLsb = 8;
  localparam int unsigned ActivateWaitWidth = 8;
  localparam int unsigned ActivateSignalLsb = 16;
  localparam int unsigned ActivateSignalWidth = 8;
  localparam int unsigned ActivateParamSetLsb = 24;
  localparam int unsigned ActivateParamSetWidth = 6;
  localparam int unsigned ActivateLutLsb = 30;
  localparam int unsigned ActivateLutWidth = 1;
  localparam int unsigned ActivatePaddingLsb = 31;
  localparam int unsigned ActivatePaddingWidth = 1;
  localparam int unsigned ActivateAccLsb = 32;
  localparam int unsigned ActivateAccWidth = 12;
  localparam int unsigned ActivateRowsLsb = 44;
  localparam int unsigned ActivateRowsWidth = 12;
  localparam int unsigned ActivateZeroPointLsb = 56;
  localparam int unsigned ActivateZeroPointWidth = 8;
  localparam int unsigned ActivateUbLsb = 64;
  localparam int unsigned ActivateUbWidth = 18;
  localparam int unsigned ActivateClampMinLsb = 82;
  localparam int unsigned ActivateClampMinWidth = 8;
  localparam int unsigned ActivateClampMaxLsb = 90;
  localparam int unsigned ActivateClampMaxWidth = 8;
  localparam int unsigned ActivatePoolLsb = 98;
  localparam int unsigned ActivatePoolWidth = 2;
  localparam int unsigned ActivateWinHLsb = 100;
  localparam int unsigned ActivateWinHWidth = 4;
  localparam int unsigned ActivateWinWLsb = 104;
  localparam int unsigned ActivateWinWWidth = 4;
  localparam int unsigned ActivateStrideHLsb = 108;
  localparam int unsigned ActivateStrideHWidth = 2;
  localparam int unsigned ActivateStrideWLsb = 110;
  localparam int unsigned ActivateStrideWWidth = 2;
  localparam int unsigned ActivateImageWLsb = 112;
  localparam int unsigned ActivateImageWWidth = 8;
  localparam int unsigned ActivateImageHLsb = 120;
  localparam int unsigned ActivateImageHWidth = 8;
  localparam logic [127:0] ActivateReservedMask =
      128'h00000000_00000000_00000000_00000000;

endpackage
/* verilator lint_on UNUSEDPARAM */
