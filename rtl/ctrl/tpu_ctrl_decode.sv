`include "tpu_assert.svh"
// Instruction check: applies every check of docs/isa.md to one 128-bit instruction, in the
// order listed there (opcode, reserved bits, enum encodings, then the instruction's rules
// against the device limits), and reports the first failure as a tpu_isa_pkg::error_e code
// (ErrOk when the instruction may be issued). It is the hardware twin of tpu::isa::Check
// (host_driver/isa/codec.h) and is tested bit-exact against it.
//
// The device limits are parameters (docs/isa.md, "Device limits"). No rule needs more than a
// 64-bit add, and the range rules that involve a division are rewritten without one
// (ceil_div(len, N) <= R  <=>  len <= R * N; (t + n) * TILE_BYTES <= D  <=>  t + n <= D /
// TILE_BYTES), ACTIVATE's pooled output row count too (see "ACTIVATE pooling" below).
//
// Timing and the logic-depth budget (64 gate levels a cycle, docs/fpga.md): every check but two
// fits in the one cycle between the input and the output register. The two that do not are
// the pooled ACTIVATE's (pool MAX or AVG): whether rows is a whole number of images (a
// remainder of the row count by image_h * image_w) and the pooled UB range rule (products of
// the row count and the pooling geometry). They run over PoolCycles more cycles from registered
// fields, the remainder four row-count bits a cycle (see "Pooled ACTIVATE" below).
//
// Handshake: valid/ready on both sides; the decode holds at most one instruction (in its
// output register), whatever its latency. Latency: 1 cycle from the cycle an instruction is
// taken to the cycle its result is offered, 1 + PoolCycles (4) for an ACTIVATE whose pool field
// is MAX or AVG, whatever its checks find. in_ready_o = !busy && (!out_valid_o ||
// out_ready_i), busy while a pooled ACTIVATE's checks run (out_valid_o is low then): so one
// instruction per cycle passes, except that a pooled ACTIVATE occupies the decode for
// 1 + PoolCycles cycles. The dispatcher relies on the one-at-a-time property: it stops the
// fetch when the output holds a HALT or an error, and nothing after them has been taken.
module tpu_ctrl_decode #(
  parameter int unsigned N         = tpu_pkg::MxuDim,    // MXU size; bytes per UB row
  parameter int unsigned UbRows    = tpu_pkg::UbDepth,   // UB_ROWS, 1 .. 2^18
  parameter int unsigned AccRows   = tpu_pkg::AccDepth,  // ACC_ROWS, 2 .. 4096, even
  parameter logic [63:0] DramBytes = 64'd67108864,       // DRAM_BYTES, 1 .. 2^33
  parameter int unsigned ParamSets = 64                  // PARAM_SETS, 1 .. 64
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  // Instruction in.
  input  logic         in_valid_i,   // in_instr_i holds an instruction
  output logic         in_ready_o,   // ... and it is taken this cycle
  input  logic [127:0] in_instr_i,   // word w at bits [32w +: 32]
  // Checked instruction out.
  output logic         out_valid_o,  // out_instr_o and out_error_o hold a checked instruction
  input  logic         out_ready_i,  // ... and the consumer takes it this cycle
  output logic [127:0] out_instr_o,  // the instruction, unchanged
  output logic [7:0]   out_error_o   // tpu_isa_pkg::error_e: first failed check, ErrOk if none
);

  // ---------------------------------------------------------------------------------------
  // Limits as 64-bit constants
  // ---------------------------------------------------------------------------------------
  localparam logic [63:0] NL         = 64'(N);
  localparam logic [63:0] UbRowsL    = 64'(UbRows);
  localparam logic [63:0] AccRowsL   = 64'(AccRows);
  localparam logic [63:0] DramBytesL = DramBytes;
  localparam logic [63:0] DramTilesL = DramBytesL / (NL * NL);         // whole tiles in DRAM
  localparam logic [63:0] ParamBytesL = 64'(ParamSets) * 64'd9 * NL;   // PARAM_BYTES
  localparam logic [63:0] ParamSetsL = 64'(ParamSets);
  localparam logic [63:0] LutBytesL  = 64'(tpu_isa_pkg::LutBytes);
  localparam logic [63:0] HostSpaceL = 64'd1 << tpu_isa_pkg::HostAddrBits;

  // ---------------------------------------------------------------------------------------
  // Fields (every instruction's fields read from the same word; only the opcode's are used)
  // ---------------------------------------------------------------------------------------
  logic [7:0] opcode;
  assign opcode = in_instr_i[tpu_isa_pkg::OpcodeLsb +: tpu_isa_pkg::OpcodeWidth];

  // READ_HOST / WRITE_HOST (same length and host fields).
  logic [1:0]  rh_target;
  logic [63:0] rh_dest, hx_length, hx_host, wh_ub;
  assign rh_target = in_instr_i[tpu_isa_pkg::ReadHostTargetLsb +:
                                tpu_isa_pkg::ReadHostTargetWidth];
  assign rh_dest   = 64'(in_instr_i[tpu_isa_pkg::ReadHostDestLsb +:
                                    tpu_isa_pkg::ReadHostDestWidth]);
  assign hx_length = 64'(in_instr_i[tpu_isa_pkg::ReadHostLengthLsb +:
                                    tpu_isa_pkg::ReadHostLengthWidth]);
  assign hx_host   = 64'(in_instr_i[tpu_isa_pkg::ReadHostHostLsb +:
                                    tpu_isa_pkg::ReadHostHostWidth]);
  assign wh_ub     = 64'(in_instr_i[tpu_isa_pkg::WriteHostUbLsb +:
                                    tpu_isa_pkg::WriteHostUbWidth]);

  // READ_WEIGHTS.
  logic [63:0] rw_tile, rw_tiles;
  assign rw_tile  = 64'(in_instr_i[tpu_isa_pkg::ReadWeightsDramTileLsb +:
                                   tpu_isa_pkg::ReadWeightsDramTileWidth]);
  assign rw_tiles = 64'(in_instr_i[tpu_isa_pkg::ReadWeightsTilesLsb +:
                                   tpu_isa_pkg::ReadWeightsTilesWidth]);

  // MATMUL.
  logic [63:0] mm_ub, mm_acc, mm_rows;
  assign mm_ub   = 64'(in_instr_i[tpu_isa_pkg::MatmulUbLsb +: tpu_isa_pkg::MatmulUbWidth]);
  assign mm_acc  = 64'(in_instr_i[tpu_isa_pkg::MatmulAccLsb +: tpu_isa_pkg::MatmulAccWidth]);
  assign mm_rows = 64'(in_instr_i[tpu_isa_pkg::MatmulRowsLsb +: tpu_isa_pkg::MatmulRowsWidth]);
  // Window fields: every one is 0 without window; stride, image and output width >= 1 with it.
  logic        mm_window, mm_win_fields_set, mm_win_fields_zero;
  logic [63:0] mm_image_rows;  // image_h * image_w
  assign mm_window          = in_instr_i[tpu_isa_pkg::MatmulWindowLsb];
  assign mm_win_fields_set  =
      (in_instr_i[tpu_isa_pkg::MatmulStrideHLsb +: tpu_isa_pkg::MatmulStrideHWidth] != '0) ||
      (in_instr_i[tpu_isa_pkg::MatmulStrideWLsb +: tpu_isa_pkg::MatmulStrideWWidth] != '0) ||
      (in_instr_i[tpu_isa_pkg::MatmulImageWLsb +: tpu_isa_pkg::MatmulImageWWidth] != '0) ||
      (in_instr_i[tpu_isa_pkg::MatmulImageHLsb +: tpu_isa_pkg::MatmulImageHWidth] != '0) ||
      (in_instr_i[tpu_isa_pkg::MatmulOutWLsb +: tpu_isa_pkg::MatmulOutWWidth] != '0) ||
      (in_instr_i[tpu_isa_pkg::MatmulPadValueLsb +: tpu_isa_pkg::MatmulPadValueWidth] != '0) ||
      (in_instr_i[tpu_isa_pkg::MatmulY0Lsb +: tpu_isa_pkg::MatmulY0Width] != '0) ||
      (in_instr_i[tpu_isa_pkg::MatmulX0Lsb +: tpu_isa_pkg::MatmulX0Width] != '0);
  assign mm_win_fields_zero =
      (in_instr_i[tpu_isa_pkg::MatmulStrideHLsb +: tpu_isa_pkg::MatmulStrideHWidth] == '0) ||
      (in_instr_i[tpu_isa_pkg::MatmulStrideWLsb +: tpu_isa_pkg::MatmulStrideWWidth] == '0) ||
      (in_instr_i[tpu_isa_pkg::MatmulImageWLsb +: tpu_isa_pkg::MatmulImageWWidth] == '0) ||
      (in_instr_i[tpu_isa_pkg::MatmulImageHLsb +: tpu_isa_pkg::MatmulImageHWidth] == '0) ||
      (in_instr_i[tpu_isa_pkg::MatmulOutWLsb +: tpu_isa_pkg::MatmulOutWWidth] == '0);
  assign mm_image_rows      =
      64'(16'(in_instr_i[tpu_isa_pkg::MatmulImageHLsb +: tpu_isa_pkg::MatmulImageHWidth]) *
          16'(in_instr_i[tpu_isa_pkg::MatmulImageWLsb +: tpu_isa_pkg::MatmulImageWWidth]));

  // ACTIVATE.
  logic [63:0] ac_acc, ac_rows, ac_ub, ac_param_set;
  logic [1:0]  ac_pool;
  logic        ac_same;
  logic signed [7:0] ac_clamp_min, ac_clamp_max;
  logic [3:0]  ac_win_h, ac_win_w;
  logic [tpu_isa_pkg::ActivateStrideHWidth-1:0] ac_stride_h;
  logic [tpu_isa_pkg::ActivateStrideWWidth-1:0] ac_stride_w;
  logic [7:0]  ac_image_h, ac_image_w;
  assign ac_acc       = 64'(in_instr_i[tpu_isa_pkg::ActivateAccLsb +:
                                       tpu_isa_pkg::ActivateAccWidth]);
  assign ac_rows      = 64'(in_instr_i[tpu_isa_pkg::ActivateRowsLsb +:
                                       tpu_isa_pkg::ActivateRowsWidth]);
  assign ac_ub        = 64'(in_instr_i[tpu_isa_pkg::ActivateUbLsb +:
                                       tpu_isa_pkg::ActivateUbWidth]);
  assign ac_param_set = 64'(in_instr_i[tpu_isa_pkg::ActivateParamSetLsb +:
                                       tpu_isa_pkg::ActivateParamSetWidth]);
  assign ac_pool      = in_instr_i[tpu_isa_pkg::ActivatePoolLsb +: tpu_isa_pkg::ActivatePoolWidth];
  assign ac_same      = in_instr_i[tpu_isa_pkg::ActivatePaddingLsb];
  assign ac_clamp_min = in_instr_i[tpu_isa_pkg::ActivateClampMinLsb +:
                                   tpu_isa_pkg::ActivateClampMinWidth];
  assign ac_clamp_max = in_instr_i[tpu_isa_pkg::ActivateClampMaxLsb +:
                                   tpu_isa_pkg::ActivateClampMaxWidth];
  assign ac_win_h     = in_instr_i[tpu_isa_pkg::ActivateWinHLsb +: tpu_isa_pkg::ActivateWinHWidth];
  assign ac_win_w     = in_instr_i[tpu_isa_pkg::ActivateWinWLsb +: tpu_isa_pkg::ActivateWinWWidth];
  assign ac_stride_h  = in_instr_i[tpu_isa_pkg::ActivateStrideHLsb +:
                                   tpu_isa_pkg::ActivateStrideHWidth];
  assign ac_stride_w  = in_instr_i[tpu_isa_pkg::ActivateStrideWLsb +:
                                   tpu_isa_pkg::ActivateStrideWWidth];
  assign ac_image_h   = in_instr_i[tpu_isa_pkg::ActivateImageHLsb +:
                                   tpu_isa_pkg::ActivateImageHWidth];
  assign ac_image_w   = in_instr_i[tpu_isa_pkg::ActivateImageWLsb +:
                                   tpu_isa_pkg::ActivateImageWWidth];

  // x / stride for a pooling stride of 1 .. 3 (0, already an error, as 1), x < 512: a shift, or
  // a multiply by the reciprocal (x * 171) >> 9, exact for every x < 512.
  function automatic logic [7:0] div_stride(logic [8:0] x, logic [1:0] stride);
    logic [17:0] third;
    third = 18'(x) * 18'd171;
    unique case (stride)
      2'd2:    div_stride = 8'(x >> 1);
      2'd3:    div_stride = 8'(third >> 9);
      default: div_stride = 8'(x);
    endcase
  endfunction

  // ---------------------------------------------------------------------------------------
  // Shared rule terms
  // ---------------------------------------------------------------------------------------
  // host + length <= HOST_SPACE (both host instructions).
  logic host_range_bad;
  assign host_range_bad = (hx_host + hx_length) > HostSpaceL;

  // base + ceil_div(length, N) <= UB_ROWS  <=>  base <= UB_ROWS and length <= (UB_ROWS - base)*N.
  logic rh_ub_bad, wh_ub_bad;
  assign rh_ub_bad = (rh_dest > UbRowsL) || (hx_length > (UbRowsL - rh_dest) * NL);
  assign wh_ub_bad = (wh_ub > UbRowsL) || (hx_length > (UbRowsL - wh_ub) * NL);

  // ACTIVATE pooling. The pooled output row count is images * out_h * out_w with images =
  // rows / pixels, pixels = image_h * image_w; the checks need it only once rows is known to be
  // a whole number of images (the ragged check comes first), so the UB range rule is
  // cross-multiplied instead of divided:  ub + (rows / pixels) * out_h * out_w > UB_ROWS  <=>
  // ub > UB_ROWS or rows * out_h * out_w > (UB_ROWS - ub) * pixels  (pixels > 0, rows a
  // multiple of it). The ragged check is the remainder rows % pixels, two row-count bits a step
  // (radix 4); the pooling divisions by the stride (1 .. 3) are a shift or a multiply by the
  // reciprocal. Both rules run over PoolCycles cycles after the instruction is taken ("Pooled
  // ACTIVATE" below); what is computed here, from the input, goes into registers as it is
  // taken: the pixel count and its multiples, the pooled image size and the UB room.
  localparam int unsigned RowsWidth  = tpu_isa_pkg::ActivateRowsWidth;
  localparam int unsigned PoolCycles = 3;                        // extra cycles, 4 bits each
  localparam int unsigned RoomWidth  = $clog2(UbRows + 1);      // UB_ROWS - ub, 0 .. UB_ROWS

  logic                 pooled;      // in_instr_i is an ACTIVATE with pool MAX or AVG
  logic [15:0]          ac_pixels;   // image_h * image_w
  logic [17:0]          ac_pixels3;  // 3 * image_h * image_w
  logic [7:0]           ac_out_h, ac_out_w;
  logic                 ac_ub_over;  // ub > UB_ROWS
  logic [RoomWidth-1:0] ac_room;     // UB_ROWS - ub (0 when ub > UB_ROWS)
  assign pooled     = (opcode == tpu_isa_pkg::OpActivate) &&
                      ((ac_pool == tpu_isa_pkg::PoolMax) || (ac_pool == tpu_isa_pkg::PoolAvg));
  assign ac_pixels  = 16'(ac_image_h) * 16'(ac_image_w);
  assign ac_pixels3 = 18'(ac_pixels) + {1'b0, ac_pixels, 1'b0};
  // pool_out: same: ceil_div(size, stride); valid: (size - window) // stride + 1.
  assign ac_out_h = ac_same ? div_stride(9'(ac_image_h) + 9'(ac_stride_h) - 9'd1, ac_stride_h)
                            : div_stride(9'(8'(ac_image_h - 8'(ac_win_h))), ac_stride_h) + 8'd1;
  assign ac_out_w = ac_same ? div_stride(9'(ac_image_w) + 9'(ac_stride_w) - 9'd1, ac_stride_w)
                            : div_stride(9'(8'(ac_image_w - 8'(ac_win_w))), ac_stride_w) + 8'd1;
  assign ac_ub_over = ac_ub > UbRowsL;
  assign ac_room    = ac_ub_over ? '0 : RoomWidth'(UbRowsL - ac_ub);

  // ---------------------------------------------------------------------------------------
  // The checks, first failure wins
  // ---------------------------------------------------------------------------------------
  tpu_isa_pkg::error_e err;

  always_comb begin
    err = tpu_isa_pkg::ErrOk;
    unique case (opcode)
      tpu_isa_pkg::OpNop: begin
        if ((in_instr_i & tpu_isa_pkg::NopReservedMask) != '0) err = tpu_isa_pkg::ErrReservedNonzero;
      end
      tpu_isa_pkg::OpHalt: begin
        if ((in_instr_i & tpu_isa_pkg::HaltReservedMask) != '0) err = tpu_isa_pkg::ErrReservedNonzero;
      end
      tpu_isa_pkg::OpSync: begin
        if ((in_instr_i & tpu_isa_pkg::SyncReservedMask) != '0) err = tpu_isa_pkg::ErrReservedNonzero;
      end
      tpu_isa_pkg::OpReadHost: begin
        if ((in_instr_i & tpu_isa_pkg::ReadHostReservedMask) != '0) begin
          err = tpu_isa_pkg::ErrReservedNonzero;
        end else if (hx_length == '0) begin
          err = tpu_isa_pkg::ErrLengthZero;
        end else if (host_range_bad) begin
          err = tpu_isa_pkg::ErrHostRange;
        end else begin
          unique case (rh_target)
            tpu_isa_pkg::TargetUb:
              if (rh_ub_bad) err = tpu_isa_pkg::ErrUbRange;
            tpu_isa_pkg::TargetDram:
              if (rh_dest + hx_length > DramBytesL) err = tpu_isa_pkg::ErrDramRange;
            tpu_isa_pkg::TargetParam:
              if (rh_dest + hx_length > ParamBytesL) err = tpu_isa_pkg::ErrParamRange;
            tpu_isa_pkg::TargetLut:
              if (rh_dest + hx_length > LutBytesL) err = tpu_isa_pkg::ErrLutRange;
            default: ;
          endcase
        end
      end
      tpu_isa_pkg::OpWriteHost: begin
        if ((in_instr_i & tpu_isa_pkg::WriteHostReservedMask) != '0) begin
          err = tpu_isa_pkg::ErrReservedNonzero;
        end else if (hx_length == '0) begin
          err = tpu_isa_pkg::ErrLengthZero;
        end else if (host_range_bad) begin
          err = tpu_isa_pkg::ErrHostRange;
        end else if (wh_ub_bad) begin
          err = tpu_isa_pkg::ErrUbRange;
        end
      end
      tpu_isa_pkg::OpReadWeights: begin
        if ((in_instr_i & tpu_isa_pkg::ReadWeightsReservedMask) != '0) begin
          err = tpu_isa_pkg::ErrReservedNonzero;
        end else if (rw_tiles == '0) begin
          err = tpu_isa_pkg::ErrLengthZero;
        end else if (rw_tile + rw_tiles > DramTilesL) begin
          err = tpu_isa_pkg::ErrDramRange;
        end
      end
      tpu_isa_pkg::OpMatmul: begin
        if ((in_instr_i & tpu_isa_pkg::MatmulReservedMask) != '0) begin
          err = tpu_isa_pkg::ErrReservedNonzero;
        end else if (mm_rows == '0) begin
          err = tpu_isa_pkg::ErrLengthZero;
        end else if (!mm_window && mm_win_fields_set) begin
          err = tpu_isa_pkg::ErrConvConfig;
        end else if (mm_window && mm_win_fields_zero) begin
          err = tpu_isa_pkg::ErrConvConfig;
        end else if (!mm_window && (mm_ub + mm_rows > UbRowsL)) begin
          err = tpu_isa_pkg::ErrUbRange;
        end else if (mm_window && (mm_ub + mm_image_rows > UbRowsL)) begin
          err = tpu_isa_pkg::ErrUbRange;
        end else if (mm_acc + mm_rows > AccRowsL) begin
          err = tpu_isa_pkg::ErrAccRange;
        end
      end
      tpu_isa_pkg::OpActivate: begin
        if ((in_instr_i & tpu_isa_pkg::ActivateReservedMask) != '0) begin
          err = tpu_isa_pkg::ErrReservedNonzero;
        end else if (ac_pool == 2'd3) begin
          err = tpu_isa_pkg::ErrPoolConfig;
        end else if (ac_rows == '0) begin
          err = tpu_isa_pkg::ErrLengthZero;
        end else if (ac_acc + ac_rows > AccRowsL) begin
          err = tpu_isa_pkg::ErrAccRange;
        end else if (ac_param_set >= ParamSetsL) begin
          err = tpu_isa_pkg::ErrParamRange;
        end else if (ac_clamp_min > ac_clamp_max) begin
          err = tpu_isa_pkg::ErrClampOrder;
        end else if (ac_pool == tpu_isa_pkg::PoolNone) begin
          if ((ac_win_h != '0) || (ac_win_w != '0) || (ac_stride_h != '0) ||
              (ac_stride_w != '0) || ac_same || (ac_image_h != '0) || (ac_image_w != '0)) begin
            err = tpu_isa_pkg::ErrPoolConfig;
          end else if (ac_ub + ac_rows > UbRowsL) begin
            err = tpu_isa_pkg::ErrUbRange;
          end
        end else begin
          if ((ac_win_h == '0) || (ac_win_w == '0) || (ac_stride_h == '0) ||
              (ac_stride_w == '0) || (ac_image_h == '0) || (ac_image_w == '0)) begin
            err = tpu_isa_pkg::ErrPoolConfig;
          end else if (!ac_same && ((8'(ac_win_h) > ac_image_h) ||
                                    (8'(ac_win_w) > ac_image_w))) begin
            err = tpu_isa_pkg::ErrPoolConfig;
          end
          // The ragged rows and the pooled UB range rules follow, PoolCycles cycles later.
        end
      end
      default: err = tpu_isa_pkg::ErrIllegalOpcode;
    endcase
  end

  // ---------------------------------------------------------------------------------------
  // Pooled ACTIVATE: the ragged rows and pooled UB range rules over PoolCycles cycles
  // ---------------------------------------------------------------------------------------
  // step_q counts the cycles after a pooled ACTIVATE was taken (0: none in progress). The
  // instruction waits in instr_q, the code of its earlier checks in error_q, out_valid_o low.
  // Cycle k (1 .. PoolCycles) takes the remainder two radix-4 steps further (row-count bits
  // [4 * (PoolCycles - k) +: 4]); alongside, the UB rule's products, each split in two by the
  // low and high byte of one factor so that no cycle holds a wide multiply and a sum of it:
  //   cycle 1: out_h * out_w; room * pixels, low and high byte of pixels
  //   cycle 2: rows * out_h * out_w, low and high byte of out_h * out_w; room * pixels summed
  //   cycle 3: rows * out_h * out_w summed and compared; the remainder's last steps; the code.
  // The earlier checks' code wins, then the ragged rows (POOL_CONFIG), then the UB range.
  localparam int unsigned StepWidth = $clog2(PoolCycles + 1);

  // One radix-4 step of the remainder: the partial remainder (< pixels) with the next two bits
  // against 1, 2 and 3 times pixels side by side. The partial remainder never exceeds the part
  // of the row count read so far, so neither does the next one with its two bits (both below
  // 2^RowsWidth): a multiple of pixels at 2^RowsWidth or above is never subtracted, and is kept
  // saturated to all ones in MulWidth = RowsWidth + 1 bits (narrower compares).
  localparam int unsigned MulWidth = RowsWidth + 1;
  function automatic logic [RowsWidth-1:0] rem_step(logic [RowsWidth-1:0] rem, logic [1:0] digit,
                                                    logic [MulWidth-1:0] px1,
                                                    logic [MulWidth-1:0] px2,
                                                    logic [MulWidth-1:0] px3);
    logic [MulWidth-1:0] cur;
    cur = MulWidth'({rem, digit});  // < 2^RowsWidth: the bits dropped are zero
    if (cur >= px3)      rem_step = RowsWidth'(cur - px3);
    else if (cur >= px2) rem_step = RowsWidth'(cur - px2);
    else if (cur >= px1) rem_step = RowsWidth'(cur - px1);
    else                 rem_step = RowsWidth'(cur);
  endfunction
  function automatic logic [MulWidth-1:0] saturate(logic [17:0] x);
    saturate = ((x >> RowsWidth) != '0) ? '1 : MulWidth'(x);
  endfunction

  logic [StepWidth-1:0]   step_d, step_q;
  logic                   busy;
  logic [15:0]            px1_q;            // pixels
  logic [MulWidth-1:0]    pxs1_q, pxs2_q, pxs3_q;  // 1, 2, 3 times pixels, saturated
  logic [4*PoolCycles-1:0] bits_q;          // the row-count bits still to be read, top first
  logic [7:0]             out_h_q, out_w_q;
  logic                   ub_over_q;
  logic [RoomWidth-1:0]   room_q;
  logic [RowsWidth-1:0]   rem_d, rem_q;     // partial remainder
  logic [15:0]            ohw_d, ohw_q;     // out_h * out_w
  logic [RoomWidth+7:0]   rp_lo_d, rp_lo_q, rp_hi_d, rp_hi_q;  // room * pixels' bytes
  logic [RoomWidth+15:0]  rp_d, rp_q;       // room * pixels
  logic [RowsWidth+7:0]   ro_lo_d, ro_lo_q, ro_hi_d, ro_hi_q;  // rows * ohw's bytes
  logic [RowsWidth-1:0]   rows_q;           // the held ACTIVATE's row count
  logic [3:0]             digits;           // this cycle's row-count bits
  logic [RowsWidth+15:0]  pool_rows;        // rows * out_h * out_w
  logic                   ragged, pool_ub_bad;
  logic [7:0]             pool_err;         // the pooled ACTIVATE's code (error_e)

  assign busy   = step_q != '0;
  assign rows_q = instr_q[tpu_isa_pkg::ActivateRowsLsb +: RowsWidth];

  assign digits = bits_q[4*PoolCycles-1 -: 4];
  assign rem_d  = rem_step(rem_step(rem_q, digits[3:2], pxs1_q, pxs2_q, pxs3_q), digits[1:0],
                           pxs1_q, pxs2_q, pxs3_q);

  assign ohw_d   = 16'(out_h_q) * 16'(out_w_q);
  assign rp_lo_d = (RoomWidth+8)'(room_q) * (RoomWidth+8)'(px1_q[7:0]);
  assign rp_hi_d = (RoomWidth+8)'(room_q) * (RoomWidth+8)'(px1_q[15:8]);
  assign rp_d    = (RoomWidth+16)'(rp_lo_q) + ((RoomWidth+16)'(rp_hi_q) << 8);
  assign ro_lo_d = (RowsWidth+8)'(rows_q) * (RowsWidth+8)'(ohw_q[7:0]);
  assign ro_hi_d = (RowsWidth+8)'(rows_q) * (RowsWidth+8)'(ohw_q[15:8]);
  assign pool_rows   = (RowsWidth+16)'(ro_lo_q) + ((RowsWidth+16)'(ro_hi_q) << 8);
  assign ragged      = rem_d != '0;
  assign pool_ub_bad = ub_over_q || (64'(pool_rows) > 64'(rp_q));

  always_comb begin
    pool_err = error_q;
    if (error_q == tpu_isa_pkg::ErrOk) begin
      if (ragged)           pool_err = tpu_isa_pkg::ErrPoolConfig;
      else if (pool_ub_bad) pool_err = tpu_isa_pkg::ErrUbRange;
    end
  end

  // The operands, registered as the instruction is taken (only a pooled ACTIVATE reads them).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      px1_q     <= '0;
      pxs1_q    <= '0;
      pxs2_q    <= '0;
      pxs3_q    <= '0;
      out_h_q   <= '0;
      out_w_q   <= '0;
      ub_over_q <= 1'b0;
      room_q    <= '0;
    end else if (in_ready_o && in_valid_i && pooled) begin
      px1_q     <= ac_pixels;
      pxs1_q    <= saturate(18'(ac_pixels));
      pxs2_q    <= saturate({1'b0, ac_pixels, 1'b0});
      pxs3_q    <= saturate(ac_pixels3);
      out_h_q   <= ac_out_h;
      out_w_q   <= ac_out_w;
      ub_over_q <= ac_ub_over;
      room_q    <= ac_room;
    end
  end

  // The steps' registers.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rem_q   <= '0;
      bits_q  <= '0;
      ohw_q   <= '0;
      rp_lo_q <= '0;
      rp_hi_q <= '0;
      rp_q    <= '0;
      ro_lo_q <= '0;
      ro_hi_q <= '0;
    end else if (busy) begin
      rem_q  <= rem_d;
      bits_q <= bits_q << 4;
      if (step_q == StepWidth'(1)) begin
        ohw_q   <= ohw_d;
        rp_lo_q <= rp_lo_d;
        rp_hi_q <= rp_hi_d;
      end
      if (step_q == StepWidth'(2)) begin
        rp_q    <= rp_d;
        ro_lo_q <= ro_lo_d;
        ro_hi_q <= ro_hi_d;
      end
    end else if (in_ready_o && in_valid_i && pooled) begin
      rem_q  <= '0;
      bits_q <= ac_rows[4*PoolCycles-1:0];
    end
  end

  // ---------------------------------------------------------------------------------------
  // Output register
  // ---------------------------------------------------------------------------------------
  logic         valid_d, valid_q;
  logic [127:0] instr_d, instr_q;
  logic [7:0]   error_d, error_q;

  assign in_ready_o = !busy && (!valid_q || out_ready_i);

  always_comb begin
    valid_d = valid_q;
    instr_d = instr_q;
    error_d = error_q;
    step_d  = step_q;
    if (busy) begin
      // A pooled ACTIVATE's checks run; its result is offered after the last step.
      if (step_q == StepWidth'(PoolCycles)) begin
        step_d  = '0;
        valid_d = 1'b1;
        error_d = pool_err;
      end else begin
        step_d = step_q + StepWidth'(1);
      end
    end else if (in_ready_o) begin
      valid_d = in_valid_i && !pooled;
      if (in_valid_i) begin
        instr_d = in_instr_i;
        error_d = err;  // for a pooled ACTIVATE: its earlier checks' code, until the last step
        if (pooled) step_d = StepWidth'(1);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
      instr_q <= '0;
      error_q <= '0;
      step_q  <= '0;
    end else begin
      valid_q <= valid_d;
      instr_q <= instr_d;
      error_q <= error_d;
      step_q  <= step_d;
    end
  end

  assign out_valid_o = valid_q;
  assign out_instr_o = instr_q;
  assign out_error_o = error_q;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  // The device limits' ranges (isa/isa.json): the fields are only wide enough for these.
  `TPU_ASSERT_INIT(DeviceN, NL >= tpu_isa_pkg::LimitNMin && NL <= tpu_isa_pkg::LimitNMax)
  `TPU_ASSERT_INIT(DeviceUbRows,
      UbRowsL >= tpu_isa_pkg::LimitUbRowsMin && UbRowsL <= tpu_isa_pkg::LimitUbRowsMax)
  `TPU_ASSERT_INIT(DeviceAccRows, AccRowsL >= tpu_isa_pkg::LimitAccRowsMin &&
      AccRowsL <= tpu_isa_pkg::LimitAccRowsMax && AccRows % 2 == 0)
  `TPU_ASSERT_INIT(DeviceDramBytes,
      DramBytesL >= tpu_isa_pkg::LimitDramBytesMin && DramBytesL <= tpu_isa_pkg::LimitDramBytesMax)
  `TPU_ASSERT_INIT(DeviceParamSets,
      ParamSetsL >= tpu_isa_pkg::LimitParamSetsMin && ParamSetsL <= tpu_isa_pkg::LimitParamSetsMax)
  // The steps read every row-count bit, four a cycle.
  `TPU_ASSERT_INIT(PoolRowBits, RowsWidth == 4 * PoolCycles)
  // One instruction at a time: nothing is offered or taken while a pooled ACTIVATE's checks run.
  `TPU_ASSERT(BusyHoldsOne, !busy || (!out_valid_o && !in_ready_o), clk_i, rst_ni)
  // A held output does not change until it is taken.
  `TPU_ASSERT(OutStable, !(out_valid_o && !out_ready_i) ||
              (valid_d && instr_d == instr_q && error_d == error_q), clk_i, rst_ni)

endmodule
