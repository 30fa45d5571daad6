`include "tpu_assert.svh"

// Activation unit of the controller (docs/controller.md sections 1a and 2): runs ACTIVATE, holds
// the activation parameter memory and loads the lookup table of tpu_act.
//
// Parameter memory: 9 * ParamSets rows of N bytes (set s = rows [9s, 9s + 9): rows 0..3 the
// int32 biases, rows 4..7 the int32 multipliers, row 8 the int8 shifts, little-endian, lane c
// at bytes 4c..4c+3 resp. byte c), one inferred 1W1R memory. param_wr_* writes a row with a
// byte mask at any time (param_wr_ready_o is always 1); the program orders those writes
// against the ACTIVATEs that read them with tokens.
//
// Lookup table: lut_wr_* takes a row of N table entries (row r = entries [rN, rN + N)) with a
// byte mask into a one-row buffer, which writes its masked bytes into tpu_act one per cycle
// (act_lut_*), lowest first. Rows are taken only while no ACTIVATE runs (idle, or waiting for
// tokens) and bytes are written only while tpu_act holds no row (act_busy_i low, no row
// offered). A started ACTIVATE offers its first row only once the buffer has drained, so it
// sees every table row taken before it started.
//
// ACTIVATE: the instruction is popped into registers, which drive tpu_act's configuration
// (zero point, clamps, lut, pooling) for the whole pass and until the next pop, which happens
// only once the pass has completed with act_busy_i low. The unit then asks for its wait tokens
// (take_*). Once granted it reads the 9 rows of its parameter set into the bias / multiplier /
// shift registers (9 cycles plus one of read latency) and, from the same cycle on, requests
// accumulator rows acc + r, r in [0, rows), one per cycle while acc_rd_req_ready_i. The
// responses flow straight into tpu_act (act_in_*, tagged with r) once the parameters are in;
// tpu_act's output rows go straight to the UB (ub_wr_*) at ub, ub + 1, ... in output order
// (pool none: row r -> ub + r; pooled: the out_rows pooled pixels of whole images). No
// division is needed: the instruction has completed when every row has entered tpu_act and
// act_busy_i is low again, i.e. when its out_rows rows are written (checked by an assertion).
// It then pulses give_valid_o with its signal mask and may pop the next instruction in the
// same cycle.
//
// Throughput: one row per cycle in steady state (the paths acc_rd_rsp -> act_in and act_out ->
// ub_wr are combinational; act_in_ready_i depends on ub_wr_ready_i inside tpu_act). Overhead
// per instruction: 25 cycles between back-to-back instructions (pop in the cycle of the give,
// token take 1, parameter load 10, tpu_act's latency 13, busy falling 1), plus the padding steps
// of SAME pooling.
//
// idle_o: no instruction held and the table buffer empty. abort_i drops an instruction waiting
// for its tokens (taking none) and stops popping; a started ACTIVATE runs to completion. This
// unit raises no run-time error (error_* are 0).
module tpu_ctrl_act #(
  parameter int unsigned N         = tpu_pkg::MxuDim,    // MXU size: channels per row
  parameter int unsigned UbRows    = tpu_pkg::UbDepth,   // UB_ROWS
  parameter int unsigned AccRows   = tpu_pkg::AccDepth,  // ACC_ROWS
  parameter int unsigned ParamSets = 64,                 // PARAM_SETS, 1 .. 64
  parameter int unsigned DimWidth  = 8,                  // tpu_act image-size bits (>= 8)
  parameter int unsigned WinWidth  = 4,                  // tpu_act window/stride bits (>= 4)
  // Derived; do not override.
  localparam int unsigned TagWidth   = tpu_pkg::ActTagWidth,             // tpu_act tag bits
  localparam int unsigned ShiftWidth = tpu_pkg::ActShiftWidth,           // bits of a shift
  localparam int unsigned AwUb       = (UbRows > 1) ? $clog2(UbRows) : 1,    // UB row bits
  localparam int unsigned AwAcc      = (AccRows > 1) ? $clog2(AccRows) : 1,  // acc row bits
  localparam int unsigned ParamRows  = 9 * ParamSets,                    // parameter memory rows
  localparam int unsigned AwPar      = $clog2(ParamRows),                // ... row address bits
  localparam int unsigned LutRows    = (tpu_isa_pkg::LutBytes + N - 1) / N,  // table rows
  localparam int unsigned AwLut      = (LutRows > 1) ? $clog2(LutRows) : 1,  // ... row bits
  localparam int unsigned RowW       = tpu_isa_pkg::ReadHostDestWidth    // DMA row bits
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic                    abort_i,              // drop a waiting instruction, pop no more
  // Instruction from the unit's queue.
  input  logic                    instr_valid_i,        // instr_i / index_i hold the queue head
  output logic                    instr_ready_o,        // ... and it is popped this cycle
  input  logic [127:0]            instr_i,              // an ACTIVATE, checked
  input  logic [31:0]             index_i,              // its index in the program
  // Tokens (port 4 of tpu_ctrl_tokens).
  output logic                    take_valid_o,         // the held instruction asks for tokens
  output logic [7:0]              take_mask_o,          // ... its wait mask
  input  logic                    take_grant_i,         // ... and gets them this cycle
  output logic                    give_valid_o,         // pulse: the instruction completed
  output logic [7:0]              give_mask_o,          // ... and signals this mask
  // Status.
  output logic                    idle_o,               // nothing held, in flight or buffered
  output logic                    blocked_o,            // waiting for tokens
  output logic                    error_o,              // never: no run-time error here
  output logic [7:0]              error_code_o,         // 0
  output logic [31:0]             error_index_o,        // 0
  output logic                    stall_dep_o,          // waiting for tokens (perf_stall_dep)
  output logic                    row_o,                // pulse per UB row written
  // Parameter memory writes (READ_HOST target param): row = byte address / N.
  input  logic                    param_wr_valid_i,     // a row write is offered
  output logic                    param_wr_ready_o,     // ... and taken (always)
  input  logic [RowW-1:0]         param_wr_row_i,       // row, < 9 * ParamSets
  input  logic [8*N-1:0]          param_wr_data_i,      // byte b at [8b +: 8]
  input  logic [N-1:0]            param_wr_mask_i,      // bytes written
  // Lookup-table writes (READ_HOST target lut): row = entry / N.
  input  logic                    lut_wr_valid_i,       // a row write is offered
  output logic                    lut_wr_ready_o,       // ... and taken this cycle
  input  logic [RowW-1:0]         lut_wr_row_i,         // row: entries [row*N, row*N + N)
  input  logic [8*N-1:0]          lut_wr_data_i,        // entry row*N + b at [8b +: 8]
  input  logic [N-1:0]            lut_wr_mask_i,        // entries written
  // Accumulator read port (tpu_acc rd_*).
  output logic                    acc_rd_req_valid_o,   // a row read is requested
  input  logic                    acc_rd_req_ready_i,   // ... and accepted this cycle
  output logic [AwAcc-1:0]        acc_rd_req_addr_o,    // accumulator row
  input  logic                    acc_rd_rsp_valid_i,   // the oldest row read is here
  output logic                    acc_rd_rsp_ready_o,   // ... and taken this cycle
  input  logic [32*N-1:0]         acc_rd_rsp_data_i,    // int32 lane c at [32c +: 32]
  // tpu_act configuration, stable for a pass.
  output logic [32*N-1:0]         act_bias_o,           // int32 bias of lane c at [32c +: 32]
  output logic [32*N-1:0]         act_multiplier_o,     // int32 M0 of lane c
  output logic [ShiftWidth*N-1:0] act_shift_o,          // signed shift of lane c at [6c +: 6]
  output logic [7:0]              act_zero_point_o,     // int8 output zero point
  output logic [7:0]              act_min_o,            // int8 clamp minimum
  output logic [7:0]              act_max_o,            // int8 clamp maximum
  output logic                    act_lut_enable_o,     // values go through the table
  output logic [1:0]              act_pool_mode_o,      // tpu_pkg::PoolMode* (= ISA pool)
  output logic [DimWidth-1:0]     act_pool_in_h_o,      // image height
  output logic [DimWidth-1:0]     act_pool_in_w_o,      // image width
  output logic [WinWidth-1:0]     act_pool_win_h_o,     // window height
  output logic [WinWidth-1:0]     act_pool_win_w_o,     // window width
  output logic [WinWidth-1:0]     act_pool_stride_h_o,  // vertical stride
  output logic [WinWidth-1:0]     act_pool_stride_w_o,  // horizontal stride
  output logic                    act_pool_same_o,      // 1: SAME padding
  // tpu_act table load port.
  output logic                    act_lut_we_o,         // write one entry this cycle
  output logic [7:0]              act_lut_addr_o,       // entry index
  output logic [7:0]              act_lut_data_o,       // entry value
  // tpu_act rows in and out.
  output logic                    act_in_valid_o,       // an accumulator row is offered
  input  logic                    act_in_ready_i,       // ... and taken this cycle
  output logic [32*N-1:0]         act_in_row_o,         // the row
  output logic [TagWidth-1:0]     act_in_tag_o,         // its index r in the instruction
  input  logic                    act_out_valid_i,      // an int8 row is offered
  output logic                    act_out_ready_o,      // ... and taken this cycle
  input  logic [8*N-1:0]          act_out_row_i,        // the row
  input  logic [TagWidth-1:0]     act_out_tag_i,        // its tag (checked by assertions)
  input  logic                    act_busy_i,           // tpu_act holds a row or an image
  // UB write port (tpu_ub act_wr_*).
  output logic                    ub_wr_valid_o,        // a row write is offered
  input  logic                    ub_wr_ready_i,        // ... and taken this cycle
  output logic [AwUb-1:0]         ub_wr_addr_o,         // UB row
  output logic [8*N-1:0]          ub_wr_data_o          // byte c at [8c +: 8]
);

  localparam int unsigned RowsW = tpu_isa_pkg::ActivateRowsWidth;  // rows field, 12 bits
  localparam int unsigned IdxW  = (N > 1) ? $clog2(N) : 1;         // byte index in a row

  typedef enum logic [1:0] {
    StIdle = 2'd0,  // no instruction held
    StWait = 2'd1,  // waiting for the wait tokens
    StRun  = 2'd2   // parameters, rows, drain
  } state_e;

  // ---------------------------------------------------------------------------------------
  // Instruction fields
  // ---------------------------------------------------------------------------------------
  logic [7:0]       f_wait, f_signal, f_zero_point, f_clamp_min, f_clamp_max, f_image_h,
                    f_image_w;
  logic [5:0]       f_param_set;
  logic             f_lut, f_same;
  logic [tpu_isa_pkg::ActivateAccWidth-1:0] f_acc;
  logic [RowsW-1:0] f_rows;
  logic [tpu_isa_pkg::ActivateUbWidth-1:0] f_ub;
  logic [1:0]       f_pool;
  logic [3:0]       f_win_h, f_win_w;
  logic [tpu_isa_pkg::ActivateStrideHWidth-1:0] f_stride_h;
  logic [tpu_isa_pkg::ActivateStrideWWidth-1:0] f_stride_w;

  assign f_wait       = instr_i[tpu_isa_pkg::ActivateWaitLsb +: tpu_isa_pkg::ActivateWaitWidth];
  assign f_signal     = instr_i[tpu_isa_pkg::ActivateSignalLsb +:
                                tpu_isa_pkg::ActivateSignalWidth];
  assign f_param_set  = instr_i[tpu_isa_pkg::ActivateParamSetLsb +:
                                tpu_isa_pkg::ActivateParamSetWidth];
  assign f_lut        = instr_i[tpu_isa_pkg::ActivateLutLsb];
  assign f_same       = instr_i[tpu_isa_pkg::ActivatePaddingLsb];
  assign f_acc        = instr_i[tpu_isa_pkg::ActivateAccLsb +: tpu_isa_pkg::ActivateAccWidth];
  assign f_rows       = instr_i[tpu_isa_pkg::ActivateRowsLsb +: tpu_isa_pkg::ActivateRowsWidth];
  assign f_zero_point = instr_i[tpu_isa_pkg::ActivateZeroPointLsb +:
                                tpu_isa_pkg::ActivateZeroPointWidth];
  assign f_ub         = instr_i[tpu_isa_pkg::ActivateUbLsb +: tpu_isa_pkg::ActivateUbWidth];
  assign f_clamp_min  = instr_i[tpu_isa_pkg::ActivateClampMinLsb +:
                                tpu_isa_pkg::ActivateClampMinWidth];
  assign f_clamp_max  = instr_i[tpu_isa_pkg::ActivateClampMaxLsb +:
                                tpu_isa_pkg::ActivateClampMaxWidth];
  assign f_pool       = instr_i[tpu_isa_pkg::ActivatePoolLsb +: tpu_isa_pkg::ActivatePoolWidth];
  assign f_win_h      = instr_i[tpu_isa_pkg::ActivateWinHLsb +: tpu_isa_pkg::ActivateWinHWidth];
  assign f_win_w      = instr_i[tpu_isa_pkg::ActivateWinWLsb +: tpu_isa_pkg::ActivateWinWWidth];
  assign f_stride_h   = instr_i[tpu_isa_pkg::ActivateStrideHLsb +:
                                tpu_isa_pkg::ActivateStrideHWidth];
  assign f_stride_w   = instr_i[tpu_isa_pkg::ActivateStrideWLsb +:
                                tpu_isa_pkg::ActivateStrideWWidth];
  assign f_image_h    = instr_i[tpu_isa_pkg::ActivateImageHLsb +:
                                tpu_isa_pkg::ActivateImageHWidth];
  assign f_image_w    = instr_i[tpu_isa_pkg::ActivateImageWLsb +:
                                tpu_isa_pkg::ActivateImageWWidth];

  // The opcode and the reserved bits were checked by the decoder, which also keeps acc and ub
  // below AccRows and UbRows (their upper bits are 0).
  logic unused_instr;
  assign unused_instr = ^{instr_i[tpu_isa_pkg::OpcodeLsb +: tpu_isa_pkg::OpcodeWidth],
                          instr_i & tpu_isa_pkg::ActivateReservedMask, f_acc, f_ub};
  // This unit raises no run-time error, so it needs no instruction index (the controller keeps
  // the index of the instruction it issued for TOKEN_OVERFLOW).
  logic unused_index;
  assign unused_index = ^index_i;

  // ---------------------------------------------------------------------------------------
  // Registers
  // ---------------------------------------------------------------------------------------
  state_e           state_d, state_q;
  // The held instruction (the configuration fields drive tpu_act).
  logic [7:0]       wait_d, wait_q, signal_d, signal_q;
  logic [RowsW-1:0] rows_d, rows_q;
  logic [7:0]       zp_d, zp_q, cmin_d, cmin_q, cmax_d, cmax_q, img_h_d, img_h_q;
  logic [7:0]       img_w_d, img_w_q;
  logic             lut_en_d, lut_en_q, same_d, same_q;
  logic [1:0]       pool_d, pool_q;
  logic [3:0]       win_h_d, win_h_q, win_w_d, win_w_q;
  logic [2:0]       str_h_d, str_h_q, str_w_d, str_w_q;
  // Parameter load: reads issued (0..9), next row read, the row arriving and where it goes.
  logic [3:0]       prm_cnt_d, prm_cnt_q, prm_sel_d, prm_sel_q;
  logic [AwPar-1:0] prm_addr_d, prm_addr_q;
  logic             prm_arrive_d, prm_arrive_q, prm_done_d, prm_done_q;
  // Rows: accumulator reads requested, rows fed into tpu_act, next addresses.
  logic [RowsW-1:0] req_cnt_d, req_cnt_q, fed_d, fed_q;
  logic [AwAcc-1:0] acc_addr_d, acc_addr_q;
  logic [AwUb-1:0]  ub_addr_d, ub_addr_q;
  // Lookup-table row buffer: bytes still to write (mask), their row and values.
  logic [N-1:0]     lut_mask_d, lut_mask_q;
  logic [AwLut-1:0] lut_row_d, lut_row_q;
  logic [8*N-1:0]   lut_data_d, lut_data_q;

  // Handshakes and phases.
  logic pop, granted, prm_re, feed_en, acc_req_fire, in_fire, ub_fire, done;
  logic lut_take, lut_last;
  logic [N-1:0]      lut_rest;  // lut_mask_q without its lowest bit
  logic [IdxW-1:0]   lut_idx;   // lowest bit of lut_mask_q
  logic [31:0]       lut_entry;
  logic [8*N-1:0]    prm_rdata_q;

  // ---------------------------------------------------------------------------------------
  // Control
  // ---------------------------------------------------------------------------------------
  // Separate assignments: the row handshakes pass through tpu_act combinationally (a single
  // process would look like a loop to Verilator).
  assign done          = (state_q == StRun) && prm_done_q && (fed_q == rows_q) && !act_busy_i;
  assign instr_ready_o = ((state_q == StIdle) || done) && !abort_i;
  assign pop           = instr_valid_i && instr_ready_o;
  assign take_valid_o  = (state_q == StWait) && !abort_i;
  assign granted       = take_valid_o && take_grant_i;
  assign prm_re        = (state_q == StRun) && (prm_cnt_q != 4'd9);
  assign feed_en       = (state_q == StRun) && prm_done_q && (lut_mask_q == '0);

  assign acc_rd_req_valid_o = (state_q == StRun) && (req_cnt_q != rows_q);
  assign acc_req_fire       = acc_rd_req_valid_o && acc_rd_req_ready_i;
  assign act_in_valid_o     = feed_en && acc_rd_rsp_valid_i;
  assign acc_rd_rsp_ready_o = feed_en && act_in_ready_i;
  assign in_fire            = act_in_valid_o && act_in_ready_i;
  assign ub_fire            = ub_wr_valid_o && ub_wr_ready_i;

  always_comb begin
    state_d      = state_q;
    wait_d       = wait_q;
    signal_d     = signal_q;
    rows_d       = rows_q;
    zp_d         = zp_q;
    cmin_d       = cmin_q;
    cmax_d       = cmax_q;
    lut_en_d     = lut_en_q;
    pool_d       = pool_q;
    win_h_d      = win_h_q;
    win_w_d      = win_w_q;
    str_h_d      = str_h_q;
    str_w_d      = str_w_q;
    same_d       = same_q;
    img_h_d      = img_h_q;
    img_w_d      = img_w_q;
    prm_cnt_d    = prm_cnt_q;
    prm_addr_d   = prm_addr_q;
    prm_sel_d    = prm_cnt_q;
    prm_arrive_d = prm_re;
    prm_done_d   = prm_done_q || (prm_arrive_q && (prm_sel_q == 4'd8));
    req_cnt_d    = req_cnt_q;
    fed_d        = fed_q;
    acc_addr_d   = acc_addr_q;
    ub_addr_d    = ub_addr_q;

    unique case (state_q)
      StIdle:  ;
      StWait: begin
        if (abort_i)      state_d = StIdle;
        else if (granted) state_d = StRun;
      end
      StRun: begin
        if (done) state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase

    if (prm_re) begin
      prm_cnt_d  = prm_cnt_q + 4'd1;
      prm_addr_d = prm_addr_q + AwPar'(1);
    end
    if (acc_req_fire) begin
      req_cnt_d  = req_cnt_q + RowsW'(1);
      acc_addr_d = acc_addr_q + AwAcc'(1);
    end
    if (in_fire) fed_d = fed_q + RowsW'(1);
    if (ub_fire) ub_addr_d = ub_addr_q + AwUb'(1);

    // A popped instruction: its configuration, addresses and fresh counters.
    if (pop) begin
      state_d    = StWait;
      wait_d     = f_wait;
      signal_d   = f_signal;
      rows_d     = f_rows;
      zp_d       = f_zero_point;
      cmin_d     = f_clamp_min;
      cmax_d     = f_clamp_max;
      lut_en_d   = f_lut;
      pool_d     = f_pool;
      win_h_d    = f_win_h;
      win_w_d    = f_win_w;
      str_h_d    = 3'(f_stride_h);
      str_w_d    = 3'(f_stride_w);
      same_d     = f_same;
      img_h_d    = f_image_h;
      img_w_d    = f_image_w;
      prm_cnt_d  = '0;
      prm_addr_d = AwPar'((10'(f_param_set) << 3) + 10'(f_param_set));  // 9 * param_set
      prm_done_d = 1'b0;
      req_cnt_d  = '0;
      fed_d      = '0;
      acc_addr_d = AwAcc'(f_acc);
      ub_addr_d  = AwUb'(f_ub);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q      <= StIdle;
      wait_q       <= '0;
      signal_q     <= '0;
      rows_q       <= '0;
      zp_q         <= '0;
      cmin_q       <= '0;
      cmax_q       <= '0;
      lut_en_q     <= 1'b0;
      pool_q       <= '0;
      win_h_q      <= '0;
      win_w_q      <= '0;
      str_h_q      <= '0;
      str_w_q      <= '0;
      same_q       <= 1'b0;
      img_h_q      <= '0;
      img_w_q      <= '0;
      prm_cnt_q    <= '0;
      prm_addr_q   <= '0;
      prm_sel_q    <= '0;
      prm_arrive_q <= 1'b0;
      prm_done_q   <= 1'b0;
      req_cnt_q    <= '0;
      fed_q        <= '0;
      acc_addr_q   <= '0;
      ub_addr_q    <= '0;
    end else begin
      state_q      <= state_d;
      wait_q       <= wait_d;
      signal_q     <= signal_d;
      rows_q       <= rows_d;
      zp_q         <= zp_d;
      cmin_q       <= cmin_d;
      cmax_q       <= cmax_d;
      lut_en_q     <= lut_en_d;
      pool_q       <= pool_d;
      win_h_q      <= win_h_d;
      win_w_q      <= win_w_d;
      str_h_q      <= str_h_d;
      str_w_q      <= str_w_d;
      same_q       <= same_d;
      img_h_q      <= img_h_d;
      img_w_q      <= img_w_d;
      prm_cnt_q    <= prm_cnt_d;
      prm_addr_q   <= prm_addr_d;
      prm_sel_q    <= prm_sel_d;
      prm_arrive_q <= prm_arrive_d;
      prm_done_q   <= prm_done_d;
      req_cnt_q    <= req_cnt_d;
      fed_q        <= fed_d;
      acc_addr_q   <= acc_addr_d;
      ub_addr_q    <= ub_addr_d;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Parameter memory and the bias / multiplier / shift registers
  // ---------------------------------------------------------------------------------------
  logic [8*N-1:0]   pmem_q [ParamRows];  // the array: no reset, byte b written by g_pmem_byte[b]
  logic             param_wr_in_range;
  logic [AwPar-1:0] param_wr_addr;

  assign param_wr_ready_o  = 1'b1;
  assign param_wr_in_range = param_wr_row_i < RowW'(ParamRows);
  assign param_wr_addr     = param_wr_row_i[AwPar-1:0];

  // Synchronous byte-masked write, one process per byte (a loop over N bytes in one process is
  // not unrolled by Verilator 5.006 above 64 and then rejected, BLKLOOPINIT), and synchronous
  // read: Yosys merges the bytes' writes into one write port, one inferred memory.
  for (genvar b = 0; b < N; b++) begin : g_pmem_byte
    always_ff @(posedge clk_i) begin
      if (param_wr_valid_i && param_wr_in_range && param_wr_mask_i[b]) begin
        pmem_q[param_wr_addr][8*b +: 8] <= param_wr_data_i[8*b +: 8];
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (prm_re) prm_rdata_q <= pmem_q[prm_addr_q];
  end

  // Rows 0..3 (bias) and 4..7 (multiplier) of the set, as read; row 8 keeps 6 bits per shift.
  logic [8*N-1:0]          prow_q [8];
  logic [8*N-1:0]          prow_d [8];
  logic [ShiftWidth*N-1:0] shift_d, shift_q;

  always_comb begin
    for (int k = 0; k < 8; k++) begin
      prow_d[k] = (prm_arrive_q && (prm_sel_q == 4'(k))) ? prm_rdata_q : prow_q[k];
    end
    shift_d = shift_q;
    if (prm_arrive_q && (prm_sel_q == 4'd8)) begin
      for (int c = 0; c < N; c++) shift_d[ShiftWidth*c +: ShiftWidth] = prm_rdata_q[8*c +: 6];
    end
  end

  // One always_ff per row: Yosys 0.23 cannot assign a whole unpacked array.
  for (genvar k = 0; k < 8; k++) begin : g_prow
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) prow_q[k] <= '0;
      else         prow_q[k] <= prow_d[k];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) shift_q <= '0;
    else         shift_q <= shift_d;
  end

  // Bits 7:6 of each shift byte are its sign extension ([-31, 30] fits 6 bits).
  logic [2*N-1:0] unused_shift_msbs;
  for (genvar c = 0; c < N; c++) begin : g_shift_msbs
    assign unused_shift_msbs[2*c +: 2] = prm_rdata_q[8*c + 6 +: 2];
  end

  assign act_bias_o       = {prow_q[3], prow_q[2], prow_q[1], prow_q[0]};
  assign act_multiplier_o = {prow_q[7], prow_q[6], prow_q[5], prow_q[4]};
  assign act_shift_o      = shift_q;

  // ---------------------------------------------------------------------------------------
  // Lookup-table row buffer
  // ---------------------------------------------------------------------------------------
  always_comb begin
    lut_idx = '0;
    for (int b = N - 1; b >= 0; b--) begin
      if (lut_mask_q[b]) lut_idx = IdxW'(b);
    end
    lut_rest  = lut_mask_q & (lut_mask_q - N'(1));
    lut_last  = lut_rest == '0;
    lut_entry = 32'(lut_row_q) * N + 32'(lut_idx);

    // Entries go in while tpu_act holds no row (a started ACTIVATE waits for the buffer).
    act_lut_we_o   = (lut_mask_q != '0) && !act_busy_i;
    act_lut_addr_o = lut_entry[7:0];
    act_lut_data_o = lut_data_q[8*lut_idx +: 8];

    // Rows are taken while no ACTIVATE runs, into an empty or emptying buffer.
    lut_wr_ready_o = (state_q != StRun) && ((lut_mask_q == '0) || (act_lut_we_o && lut_last));
    lut_take       = lut_wr_valid_i && lut_wr_ready_o;

    lut_mask_d = act_lut_we_o ? lut_rest : lut_mask_q;
    lut_row_d  = lut_row_q;
    lut_data_d = lut_data_q;
    if (lut_take) begin
      lut_mask_d = lut_wr_mask_i;
      lut_row_d  = lut_wr_row_i[AwLut-1:0];
      lut_data_d = lut_wr_data_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lut_mask_q <= '0;
      lut_row_q  <= '0;
      lut_data_q <= '0;
    end else begin
      lut_mask_q <= lut_mask_d;
      lut_row_q  <= lut_row_d;
      lut_data_q <= lut_data_d;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Outputs
  // ---------------------------------------------------------------------------------------
  assign take_mask_o   = wait_q;
  assign give_valid_o  = done;
  assign give_mask_o   = signal_q;
  assign idle_o        = (state_q == StIdle) && (lut_mask_q == '0);
  assign blocked_o     = take_valid_o && !take_grant_i;
  assign stall_dep_o   = blocked_o;
  assign error_o       = 1'b0;
  assign error_code_o  = '0;
  assign error_index_o = '0;
  assign row_o         = ub_fire;

  assign acc_rd_req_addr_o   = acc_addr_q;
  assign act_in_row_o        = acc_rd_rsp_data_i;
  assign act_in_tag_o        = TagWidth'(fed_q);
  assign act_out_ready_o     = ub_wr_ready_i;
  assign ub_wr_valid_o       = act_out_valid_i;
  assign ub_wr_addr_o        = ub_addr_q;
  assign ub_wr_data_o        = act_out_row_i;

  assign act_zero_point_o    = zp_q;
  assign act_min_o           = cmin_q;
  assign act_max_o           = cmax_q;
  assign act_lut_enable_o    = lut_en_q;
  assign act_pool_mode_o     = pool_q;
  assign act_pool_in_h_o     = DimWidth'(img_h_q);
  assign act_pool_in_w_o     = DimWidth'(img_w_q);
  assign act_pool_win_h_o    = WinWidth'(win_h_q);
  assign act_pool_win_w_o    = WinWidth'(win_w_q);
  assign act_pool_stride_h_o = WinWidth'(str_h_q);
  assign act_pool_stride_w_o = WinWidth'(str_w_q);
  assign act_pool_same_o     = same_q;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
`ifndef SYNTHESIS
  // Output rows of the running instruction and the count docs/isa.md gives (out_rows).
  logic [RowsW-1:0] out_cnt_d, out_cnt_q;
  logic [31:0]      out_rows, pixels, out_h, out_w, sh, sw;
  assign out_cnt_d = pop ? '0 : ub_fire ? out_cnt_q + RowsW'(1) : out_cnt_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) out_cnt_q <= '0;
    else         out_cnt_q <= out_cnt_d;
  end
  always_comb begin
    pixels = (img_h_q == '0 || img_w_q == '0) ? 32'd1 : 32'(img_h_q) * 32'(img_w_q);
    sh     = (str_h_q == '0) ? 32'd1 : 32'(str_h_q);
    sw     = (str_w_q == '0) ? 32'd1 : 32'(str_w_q);
    out_h  = same_q ? (32'(img_h_q) + sh - 32'd1) / sh : (32'(img_h_q) - 32'(win_h_q)) / sh + 1;
    out_w  = same_q ? (32'(img_w_q) + sw - 32'd1) / sw : (32'(img_w_q) - 32'(win_w_q)) / sw + 1;
    out_rows = (pool_q == tpu_pkg::PoolModeBypass) ? 32'(rows_q)
                                                   : 32'(rows_q) / pixels * out_h * out_w;
  end
`endif

  `TPU_ASSERT_INIT(ParamsLegal, ParamSets >= 1 && ParamSets <= 64 && N >= 2 &&
                   DimWidth >= 8 && WinWidth >= 4 && TagWidth >= RowsW && ShiftWidth == 6)
  `TPU_ASSERT(NoXOnControls, !$isunknown({instr_valid_i, take_grant_i, param_wr_valid_i,
              lut_wr_valid_i, acc_rd_req_ready_i, acc_rd_rsp_valid_i, act_in_ready_i,
              act_out_valid_i, act_busy_i, ub_wr_ready_i, abort_i}), clk_i, rst_ni)
  `TPU_ASSERT(ParamWriteInRange, !param_wr_valid_i || param_wr_in_range, clk_i, rst_ni)
  `TPU_ASSERT(LutRowInRange, !lut_wr_valid_i || lut_wr_row_i < RowW'(LutRows), clk_i, rst_ni)
  `TPU_ASSERT(LutEntryInRange, !act_lut_we_o || lut_entry < tpu_isa_pkg::LutBytes,
              clk_i, rst_ni)
  `TPU_ASSERT(AccReadInRange, !acc_rd_req_valid_o || 32'(acc_rd_req_addr_o) < AccRows,
              clk_i, rst_ni)
  `TPU_ASSERT(UbWriteInRange, !ub_wr_valid_o || 32'(ub_wr_addr_o) < UbRows, clk_i, rst_ni)
  // Rows come back only for this instruction's reads, and leave only while it runs.
  `TPU_ASSERT(ResponsesOnlyWhileRunning, !acc_rd_rsp_valid_i || state_q == StRun, clk_i, rst_ni)
  `TPU_ASSERT(OutputsOnlyWhileRunning, !act_out_valid_i || state_q == StRun, clk_i, rst_ni)
  `TPU_ASSERT(NoTableWriteWithRows, !(act_lut_we_o && (act_in_valid_o || act_busy_i)),
              clk_i, rst_ni)
  // In bypass, output k is input row k; every instruction writes exactly out_rows rows.
  `TPU_ASSERT(BypassKeepsOrder, !(ub_wr_valid_o && pool_q == tpu_pkg::PoolModeBypass) ||
              act_out_tag_i == TagWidth'(out_cnt_q), clk_i, rst_ni)
  `TPU_ASSERT(OutRowsAsIsa, !done || 32'(out_cnt_q) == out_rows, clk_i, rst_ni)
  `TPU_ASSERT(NoOutputBeyondOutRows, !ub_wr_valid_o || 32'(out_cnt_q) < out_rows, clk_i, rst_ni)

endmodule
