`include "tpu_assert.svh"

// Matrix unit of the controller (docs/controller.md section 2): runs MATMUL. After its wait
// tokens are granted, an instruction requests UB rows ub .. ub + rows - 1 at up to one per
// cycle; each response goes into the MXU as an activation row, the first one with new_tile if
// the instruction asks for it, tagged {last, accumulate, accumulator row} (bit 15, bit 14,
// bits [AccAw-1:0]); the MXU's results go straight into the accumulators (wired in tpu_core).
// A row waiting for a tile waits inside the MXU (act_ready low). An instruction completes, and
// gives its signal tokens, in the cycle its last row leaves the MXU; meanwhile the next
// instruction is already popped and streaming (its first request follows the last request of
// the previous one in the next cycle, or a cycle later when it has wait tokens to take).
// Completions are kept in order in a small FIFO (CompDepth instructions between their last
// request and their last result). An instruction stays in it for about the MXU's latency, 2N
// cycles, so CompDepth grows with N (N / 4, at least 4): MATMULs of about 8 rows or more, each
// occupying the MXU for as many cycles, then stream back to back at any N (with 4 at
// N = 256 a MATMUL would need 128 rows to keep the MXU busy).
//
// Window mode (window = 1, docs/isa.md MATMUL): row r is the tap of output pixel
// (r / out_w, r % out_w) at iy = y0 + (r / out_w) * stride_h, ix = x0 + (r % out_w) * stride_w.
// The address generator walks it incrementally at one row per cycle, with no bubble at line
// ends: it keeps iy, ix, the output column and a running line base ub + iy * image_w (the
// products y0 * image_w and stride_h * image_w are formed once, when the instruction is
// loaded). A row inside the image requests UB row line + ix; a row outside requests nothing and
// enters the side FIFO as a pad row (mxu_act_pad_o, N bytes of mxu_act_pad_value_o), in its
// turn between the UB responses. Once iy >= image_h, iy and the line base stop moving (every
// later row is padding), which bounds their widths.
//
// NO_TILE: an instruction with new_tile = 0 before any instruction with new_tile = 1 since
// the start is dropped with the error. On abort_i the unit requests nothing more, drops the
// rows that have not entered the MXU (so a row waiting for a tile that never comes does not
// hang it) and lets the rows inside the MXU finish.
module tpu_ctrl_matrix #(
  parameter int unsigned N         = tpu_pkg::MxuDim,     // MXU size
  parameter int unsigned UbRows    = tpu_pkg::UbDepth,    // UB rows
  parameter int unsigned AccRows   = tpu_pkg::AccDepth,   // accumulator rows
  parameter int unsigned CompDepth = (N > 16) ? N / 4 : 4,  // instructions completing at once
  localparam int unsigned UbAw  = (UbRows > 1) ? $clog2(UbRows) : 1,
  localparam int unsigned AccAw = (AccRows > 1) ? $clog2(AccRows) : 1
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            abort_i,             // stop: drop what has not started
  // Instruction from the unit's queue.
  input  logic            instr_valid_i,       // instr_i / index_i hold the queue head
  output logic            instr_ready_o,       // ... and it is popped this cycle
  input  logic [127:0]    instr_i,             // a MATMUL, checked
  input  logic [31:0]     index_i,             // its index in the program
  // Tokens (port 3).
  output logic            take_valid_o,        // the held instruction asks for its wait tokens
  output logic [7:0]      take_mask_o,         // ... these
  input  logic            take_grant_i,        // ... and gets them this cycle
  output logic            give_valid_o,        // an instruction completed
  output logic [7:0]      give_mask_o,         // ... and signals these tokens
  output logic [31:0]     give_index_o,        // ... it has this index
  // UB reads (tpu_ub mxu_rd_*).
  output logic            ub_rd_req_valid_o,   // a row is requested
  input  logic            ub_rd_req_ready_i,   // ... and accepted this cycle
  output logic [UbAw-1:0] ub_rd_req_addr_o,    // the row
  input  logic            ub_rd_rsp_valid_i,   // the oldest requested row is there
  output logic            ub_rd_rsp_ready_o,   // ... and is taken (by the MXU, or dropped)
  // MXU activation side (the row data comes from the UB response directly).
  output logic            mxu_act_valid_o,     // an activation row is offered
  input  logic            mxu_act_ready_i,     // ... and taken this cycle
  output logic            mxu_act_new_tile_o,  // ... it switches to the next tile
  output logic [15:0]     mxu_act_tag_o,       // ... {last, accumulate, acc row}
  output logic            mxu_act_pad_o,       // ... it is a pad row, not the UB response
  output logic [7:0]      mxu_act_pad_value_o, // ... of N bytes of this value
  input  logic            mxu_out_valid_i,     // a result row leaves the MXU
  input  logic [15:0]     mxu_out_tag_i,       // ... with its tag
  input  logic            wf_empty_i,          // the weight FIFO holds no row
  // Status.
  output logic            idle_o,              // nothing held, nothing in flight
  output logic            blocked_o,           // waiting for tokens, or for a tile that is not coming
  output logic            error_o,             // pulse: NO_TILE
  output logic [7:0]      error_code_o,        // ... this code
  output logic [31:0]     error_index_o,       // ... of this instruction
  output logic            stall_dep_o,         // waiting for tokens
  output logic            stall_weights_o,     // a row waits for its weight tile
  output logic            stall_act_in_o,      // rows to send, no UB row there
  output logic            row_o                // a row entered the MXU
);

  localparam int unsigned FlightW = $clog2(2 * N + 8);
  // Window address widths (signed). Row address and line base: ub (< 2^18) + y0 * image_w
  // (|.| < 2^17) + the steps of a line (< 2^11): 21 bits (the ub field's and a margin of 3).
  // iy stops at the first line >= image_h, so it stays within [-512, 511 + 7]: 11 bits; ix
  // within [-16, 15 + 254 * 7]: 12 bits.
  localparam int unsigned AddrW = tpu_isa_pkg::MatmulUbWidth + 3;
  localparam int unsigned IyW   = 11;
  localparam int unsigned IxW   = 12;
  localparam int unsigned SideW = 26;  // {pad value, pad, new_tile, last, accumulate, acc row}

  typedef enum logic [1:0] {
    StIdle  = 2'd0,  // no instruction held
    StTake  = 2'd1,  // waiting for the wait tokens
    StIssue = 2'd2   // requesting rows
  } state_e;

  state_e            state_d, state_q;
  logic signed [AddrW-1:0] ub_d, ub_q;        // the row's UB address (window: maybe outside)
  logic [AccAw-1:0]  acc_d, acc_q;
  logic [16:0]       left_d, left_q;          // rows still to request
  logic              accum_d, accum_q, new_tile_d, new_tile_q, first_d, first_q;
  logic [7:0]        wait_d, wait_q, signal_d, signal_q;
  logic [31:0]       index_d, index_q;
  logic              seen_d, seen_q;          // a new_tile instruction since the start
  logic              err_d, err_q;
  logic [31:0]       err_index_d, err_index_q;
  logic [FlightW-1:0] flight_d, flight_q;     // rows inside the MXU
  // Window address generator.
  logic              win_d, win_q;            // window mode
  logic [2:0]        stride_w_d, stride_w_q, stride_h_d, stride_h_q;
  logic [7:0]        image_w_d, image_w_q, image_h_d, image_h_q;
  logic [7:0]        out_w_d, out_w_q;
  logic [7:0]        pad_value_d, pad_value_q;
  logic signed [IxW-1:0]   x0_d, x0_q;        // ix at the start of each output line
  logic signed [AddrW-1:0] line_step_d, line_step_q;  // stride_h * image_w
  logic signed [AddrW-1:0] line_d, line_q;    // ub + iy * image_w
  logic signed [IyW-1:0]   iy_d, iy_q;
  logic signed [IxW-1:0]   ix_d, ix_q;
  logic [7:0]        col_d, col_q;            // output column of the row, 0 .. out_w - 1
  logic signed [IyW-1:0]   image_h_s;
  logic signed [IxW-1:0]   image_w_s;

  logic              req_fire, row_fire, issue, in_image, last_req, pop, load;
  logic              col_last, iy_moves;
  logic signed [AddrW-1:0] line_next;
  logic [127:0]      nx;                      // the instruction being popped
  logic              nx_new_tile, nx_window;
  logic signed [9:0] nx_y0;
  logic signed [4:0] nx_x0;
  logic [7:0]        nx_image_w;
  logic signed [AddrW-1:0] nx_line;           // ub + y0 * image_w

  // Per-row side information, in issue order: {pad value, pad, new_tile, tag}.
  logic              side_in_ready, side_out_valid, side_empty;
  logic [SideW-1:0]  side_out;
  logic              head_pad, head_there, head_fire, drop;
  // Completions in order: {signal, index}.
  logic              comp_in_ready, comp_out_valid, comp_empty, comp_pop;
  logic [39:0]       comp_out;
  logic [2:0]        side_count;
  logic [$clog2(CompDepth + 1)-1:0] comp_count;

  assign nx          = instr_i;
  assign nx_new_tile = nx[tpu_isa_pkg::MatmulNewTileLsb];
  assign nx_window   = nx[tpu_isa_pkg::MatmulWindowLsb];
  assign nx_y0       = nx[tpu_isa_pkg::MatmulY0Lsb +: 10];
  assign nx_x0       = nx[tpu_isa_pkg::MatmulX0Lsb +: 5];
  assign nx_image_w  = nx[tpu_isa_pkg::MatmulImageWLsb +: 8];
  // The one product of the load (the other, stride_h * image_w, is formed below).
  assign nx_line     = AddrW'($signed({1'b0, nx[tpu_isa_pkg::MatmulUbLsb +:
                                                 tpu_isa_pkg::MatmulUbWidth]})) +
                       AddrW'(nx_y0) * AddrW'($signed({1'b0, nx_image_w}));

  // A row is inside the image (always, without window): it reads the UB, else it is padding.
  assign image_h_s = $signed(IyW'(image_h_q));
  assign image_w_s = $signed(IxW'(image_w_q));
  assign in_image  = !win_q ||
                     (iy_q >= 0 && iy_q < image_h_s && ix_q >= 0 && ix_q < image_w_s);
  assign issue    = state_q == StIssue && !abort_i && side_in_ready &&
                    (!last_req || comp_in_ready);
  assign req_fire = ub_rd_req_valid_o && ub_rd_req_ready_i;
  assign row_fire = issue && (!in_image || ub_rd_req_ready_i);
  assign last_req = left_q == 17'd1;
  // Window stepping: the last column wraps to the next output line; iy and the line base stop
  // at the first line below the image.
  assign col_last  = col_q == out_w_q - 8'd1;
  assign iy_moves  = iy_q < image_h_s;
  assign line_next = iy_moves ? line_q + line_step_q : line_q;

  always_comb begin
    state_d       = state_q;
    ub_d          = ub_q;
    acc_d         = acc_q;
    left_d        = left_q;
    accum_d       = accum_q;
    new_tile_d    = new_tile_q;
    first_d       = first_q;
    wait_d        = wait_q;
    signal_d      = signal_q;
    index_d       = index_q;
    seen_d        = seen_q;
    err_d         = 1'b0;
    err_index_d   = err_index_q;
    win_d         = win_q;
    stride_w_d    = stride_w_q;
    stride_h_d    = stride_h_q;
    image_w_d     = image_w_q;
    image_h_d     = image_h_q;
    out_w_d       = out_w_q;
    pad_value_d   = pad_value_q;
    x0_d          = x0_q;
    line_step_d   = line_step_q;
    line_d        = line_q;
    iy_d          = iy_q;
    ix_d          = ix_q;
    col_d         = col_q;
    pop           = 1'b0;
    take_valid_o  = 1'b0;
    ub_rd_req_valid_o = 1'b0;

    // Pop the next instruction when idle, or right behind the last row of this one.
    load = !abort_i && instr_valid_i &&
           (state_q == StIdle || (state_q == StIssue && row_fire && last_req));

    unique case (state_q)
      StIdle: ;
      StTake: begin
        if (abort_i) begin
          state_d = StIdle;
        end else begin
          take_valid_o = 1'b1;
          if (take_grant_i) state_d = StIssue;
        end
      end
      StIssue: begin
        if (abort_i) begin
          state_d = StIdle;
        end else begin
          ub_rd_req_valid_o = issue && in_image;
          if (row_fire) begin
            if (!win_q) begin
              ub_d = ub_q + AddrW'(1);
            end else if (col_last) begin
              // Next output line: back to x0, one stride_h down.
              col_d  = 8'd0;
              ix_d   = x0_q;
              line_d = line_next;
              ub_d   = line_next + AddrW'(x0_q);
              if (iy_moves) iy_d = iy_q + IyW'(stride_h_q);
            end else begin
              col_d = col_q + 8'd1;
              ix_d  = ix_q + IxW'(stride_w_q);
              ub_d  = ub_q + AddrW'(stride_w_q);
            end
            acc_d   = acc_q + AccAw'(1);
            left_d  = left_q - 17'd1;
            first_d = 1'b0;
            if (last_req) state_d = StIdle;
          end
        end
      end
      default: state_d = StIdle;
    endcase

    if (load) begin
      pop = 1'b1;
      if (!nx_new_tile && !seen_q) begin
        // NO_TILE: dropped, reported; the controller aborts.
        err_d       = 1'b1;
        err_index_d = index_i;
        state_d     = StIdle;
      end else begin
        win_d       = nx_window;
        stride_w_d  = nx[tpu_isa_pkg::MatmulStrideWLsb +: 3];
        image_w_d   = nx_image_w;
        image_h_d   = nx[tpu_isa_pkg::MatmulImageHLsb +: 8];
        out_w_d     = nx[tpu_isa_pkg::MatmulOutWLsb +: 8];
        pad_value_d = nx[tpu_isa_pkg::MatmulPadValueLsb +: 8];
        x0_d        = IxW'(nx_x0);
        line_step_d = AddrW'(11'(nx[tpu_isa_pkg::MatmulStrideHLsb +: 3]) * 11'(nx_image_w));
        stride_h_d  = nx[tpu_isa_pkg::MatmulStrideHLsb +: 3];
        iy_d        = IyW'(nx_y0);
        ix_d        = IxW'(nx_x0);
        col_d       = 8'd0;
        // Without window the fields are 0 (checked), so this is ub.
        line_d      = nx_line;
        ub_d        = nx_line + AddrW'(nx_x0);
        acc_d       = nx[tpu_isa_pkg::MatmulAccLsb +: AccAw];
        left_d      = 17'(nx[tpu_isa_pkg::MatmulRowsLsb +: tpu_isa_pkg::MatmulRowsWidth]);
        accum_d     = nx[tpu_isa_pkg::MatmulAccModeLsb];
        new_tile_d  = nx_new_tile;
        first_d     = 1'b1;
        wait_d      = nx[tpu_isa_pkg::MatmulWaitLsb +: 8];
        signal_d    = nx[tpu_isa_pkg::MatmulSignalLsb +: 8];
        index_d     = index_i;
        seen_d      = seen_q || nx_new_tile;
        // Without wait tokens the rows follow at once: no cycle lost between instructions.
        state_d     = (nx[tpu_isa_pkg::MatmulWaitLsb +: 8] == '0) ? StIssue : StTake;
      end
    end
  end

  assign instr_ready_o = pop;

  // Side FIFO: what each row carries into the MXU, in order; pad rows have no UB response.
  tpu_fifo #(
    .Width(SideW),
    .Depth(4)
  ) u_side (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .clear_i     (1'b0),
    .in_valid_i  (row_fire),
    .in_ready_o  (side_in_ready),
    .in_data_i   ({pad_value_q, !in_image, new_tile_q && first_q, last_req, accum_q,
                   14'(acc_q)}),
    .out_valid_o (side_out_valid),
    .out_ready_i (head_fire),
    .out_data_o  (side_out),
    .count_o     (side_count),
    .empty_o     (side_empty)
  );

  // Completion FIFO: an entry per instruction whose last row has been requested.
  tpu_fifo #(
    .Width(40),
    .Depth(CompDepth)
  ) u_comp (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .clear_i     (1'b0),
    .in_valid_i  (row_fire && last_req),
    .in_ready_o  (comp_in_ready),
    .in_data_i   ({signal_q, index_q}),
    .out_valid_o (comp_out_valid),
    .out_ready_i (comp_pop),
    .out_data_o  (comp_out),
    .count_o     (comp_count),
    .empty_o     (comp_empty)
  );

  // Rows into the MXU in side-FIFO order: the UB response, or the pad row at the head (a UB
  // response already there then belongs to a later row and waits). Under abort they are
  // dropped instead.
  assign drop                = abort_i;
  assign head_pad            = side_out_valid && side_out[17];
  assign head_there          = head_pad || ub_rd_rsp_valid_i;
  assign mxu_act_valid_o     = head_there && !drop;
  assign mxu_act_new_tile_o  = side_out[16];
  assign mxu_act_tag_o       = side_out[15:0];
  assign mxu_act_pad_o       = head_pad;
  assign mxu_act_pad_value_o = side_out[25:18];
  assign ub_rd_rsp_ready_o   = !head_pad && (drop || mxu_act_ready_i);
  assign head_fire           = head_there && (drop || mxu_act_ready_i);

  // Completions: the last row leaving the MXU gives; a dropped last row completes silently.
  assign comp_pop     = (mxu_out_valid_i && mxu_out_tag_i[15]) ||
                        (head_fire && drop && side_out[15]);
  assign give_valid_o = mxu_out_valid_i && mxu_out_tag_i[15];
  assign give_mask_o  = comp_out[39:32];
  assign give_index_o = comp_out[31:0];

  always_comb begin
    flight_d = flight_q;
    if (mxu_act_valid_o && mxu_act_ready_i) flight_d = flight_d + FlightW'(1);
    if (mxu_out_valid_i) flight_d = flight_d - FlightW'(1);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= StIdle;
      ub_q        <= '0;
      acc_q       <= '0;
      left_q      <= '0;
      accum_q     <= 1'b0;
      new_tile_q  <= 1'b0;
      first_q     <= 1'b0;
      wait_q      <= '0;
      signal_q    <= '0;
      index_q     <= '0;
      seen_q      <= 1'b0;
      err_q       <= 1'b0;
      err_index_q <= '0;
      flight_q    <= '0;
      win_q       <= 1'b0;
      stride_w_q  <= '0;
      stride_h_q  <= '0;
      image_w_q   <= '0;
      image_h_q   <= '0;
      out_w_q     <= '0;
      pad_value_q <= '0;
      x0_q        <= '0;
      line_step_q <= '0;
      line_q      <= '0;
      iy_q        <= '0;
      ix_q        <= '0;
      col_q       <= '0;
    end else begin
      state_q     <= state_d;
      ub_q        <= ub_d;
      acc_q       <= acc_d;
      left_q      <= left_d;
      accum_q     <= accum_d;
      new_tile_q  <= new_tile_d;
      first_q     <= first_d;
      wait_q      <= wait_d;
      signal_q    <= signal_d;
      index_q     <= index_d;
      seen_q      <= seen_d;
      err_q       <= err_d;
      err_index_q <= err_index_d;
      flight_q    <= flight_d;
      win_q       <= win_d;
      stride_w_q  <= stride_w_d;
      stride_h_q  <= stride_h_d;
      image_w_q   <= image_w_d;
      image_h_q   <= image_h_d;
      out_w_q     <= out_w_d;
      pad_value_q <= pad_value_d;
      x0_q        <= x0_d;
      line_step_q <= line_step_d;
      line_q      <= line_d;
      iy_q        <= iy_d;
      ix_q        <= ix_d;
      col_q       <= col_d;
    end
  end

  assign ub_rd_req_addr_o = ub_q[UbAw-1:0];
  assign take_mask_o      = wait_q;
  assign idle_o           = state_q == StIdle && side_empty && comp_empty && flight_q == '0 &&
                            !err_q;
  assign stall_dep_o      = take_valid_o && !take_grant_i;
  assign stall_weights_o  = mxu_act_valid_o && !mxu_act_ready_i;
  assign stall_act_in_o   = !abort_i && !head_there && (state_q == StIssue || !side_empty);
  // Blocked only with nothing in the MXU and nothing else on its way that could still give
  // tokens: rows in flight complete by themselves.
  assign blocked_o        = flight_q == '0 &&
                            ((stall_dep_o && side_empty && comp_empty) ||
                             (stall_weights_o && wf_empty_i));
  assign row_o            = mxu_act_valid_o && mxu_act_ready_i;
  assign error_o          = err_q;
  assign error_code_o     = tpu_isa_pkg::ErrNoTile;
  assign error_index_o    = err_index_q;

  // Only the last-row flag of a result matters here (the rest addresses the accumulators);
  // the queue counts are for waveforms.
  logic unused_status;
  assign unused_status = ^{mxu_out_tag_i[14:0], side_count, comp_count, req_fire,
                           ub_q[AddrW-1:UbAw]};

  `TPU_ASSERT_INIT(AccRowFitsTag, AccAw <= 14)
  `TPU_ASSERT(ResponseHasSideInfo, !ub_rd_rsp_valid_i || side_out_valid, clk_i, rst_ni)
  `TPU_ASSERT(CompletionKnown, !give_valid_o || comp_out_valid, clk_i, rst_ni)
  `TPU_ASSERT(FlightBounded, flight_q <= FlightW'(2 * N + 4), clk_i, rst_ni)
  `TPU_ASSERT_INIT(UbAddressFits, UbAw <= tpu_isa_pkg::MatmulUbWidth &&
      tpu_isa_pkg::MatmulUbWidth + 2 < AddrW)
  `TPU_ASSERT_INIT(RowsFit, tpu_isa_pkg::MatmulRowsWidth < 17)  // left_q
  // A requested row lies in the UB (the decoder checked the window's image against UB_ROWS).
  `TPU_ASSERT(RequestInUb, !ub_rd_req_valid_o ||
              (ub_q >= 0 && ub_q < AddrW'(UbRows)), clk_i, rst_ni)
  // Window registers hold their bounds: iy stops below the image, the column wraps at out_w.
  `TPU_ASSERT(WindowColumnBounded, !win_q || state_q != StIssue || col_q < out_w_q, clk_i, rst_ni)

endmodule
