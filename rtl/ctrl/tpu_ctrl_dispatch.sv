`include "tpu_assert.svh"

// Dispatcher of the controller (docs/controller.md section 1): takes checked instructions from
// tpu_ctrl_decode in order, numbers them from 0 since the start, issues each unit instruction
// into its unit's queue, executes NOP, SYNC and HALT itself, and owns the queue's status: the
// first error (a decode error of the held instruction, a unit's run-time error, or DEADLOCK)
// wins, stops issuing and aborts the units; once every unit has drained, error_o rises. HALT
// waits for every unit to be idle and raises done_o. irq_o pulses when either rises.
//
// Units are numbered as the SYNC `units` mask: 0 dma, 1 weights, 2 matrix, 3 activation.
// DEADLOCK: the held instruction cannot issue (SYNC or HALT waiting, or its queue full) and
// every unit is idle with an empty queue or blocked, for DeadlockCycles cycles in a row (a
// token given in one cycle can be taken only in the next, so one cycle is not proof).
module tpu_ctrl_dispatch #(
  parameter int unsigned DeadlockCycles = 3  // cycles the deadlock condition must hold
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         start_i,         // pulse: run from instruction index 0
  // Checked instructions from tpu_ctrl_decode.
  input  logic         in_valid_i,      // in_instr_i / in_error_i hold the next instruction
  output logic         in_ready_o,      // ... and it retires or issues this cycle
  input  logic [127:0] in_instr_i,      // the instruction
  input  logic [7:0]   in_error_i,      // its decode error, ErrOk if none
  output logic         fetch_en_o,      // the decoder may take further instructions
  // Unit queues (tpu_fifo): entry = {index, instruction}.
  output logic [3:0]   q_valid_o,       // push into queue u
  input  logic [3:0]   q_ready_i,       // queue u has room
  output logic [159:0] q_data_o,        // {index[31:0], instruction[127:0]}
  input  logic [3:0]   q_empty_i,       // queue u holds nothing
  // Unit status.
  input  logic [3:0]   unit_idle_i,     // unit u holds no instruction and nothing in flight
  input  logic [3:0]   unit_blocked_i,  // unit u cannot advance without another unit
  // Tokens, port 0 (SYNC).
  output logic         take_valid_o,    // SYNC asks for its wait tokens
  output logic [7:0]   take_mask_o,     // ... these
  input  logic         take_grant_i,    // ... and gets them this cycle
  output logic         give_valid_o,    // SYNC signals
  output logic [7:0]   give_mask_o,     // ... these tokens
  // Run-time errors of the units and the token counters (already one per cycle). They stop
  // issuing from the next cycle: an instruction issued in the same cycle is aborted with the
  // rest (the token overflow check depends on this cycle's SYNC give, so no combinational
  // path may lead from here back to the issue).
  input  logic         rt_error_i,      // an error is raised this cycle
  input  logic [7:0]   rt_code_i,       // its code
  input  logic [31:0]  rt_index_i,      // index of its instruction
  // Control and status.
  output logic         abort_o,         // an error stopped the queue: units drop what waits
  output logic         sync_stall_o,    // SYNC waits for its tokens (perf_stall_dep)
  output logic         running_o,       // started, not done, error not yet drained
  output logic         done_o,          // HALT completed
  output logic         error_o,         // stopped by an error, every unit drained
  output logic [7:0]   error_code_o,    // first error's code
  output logic [31:0]  error_index_o,   // first error's instruction index
  output logic         irq_o            // pulse when done_o or error_o rises
);

  typedef enum logic [2:0] {
    StStopped = 3'd0,  // after reset, until start
    StRun     = 3'd1,  // issuing
    StDrain   = 3'd2,  // an error stopped issuing; units finish what they started
    StDone    = 3'd3,  // HALT completed
    StError   = 3'd4   // drained after an error
  } state_e;

  localparam int unsigned DlW = $clog2(DeadlockCycles + 1);

  state_e          state_d, state_q;
  logic [31:0]     index_d, index_q;
  logic [7:0]      code_d, code_q;
  logic [31:0]     err_index_d, err_index_q;
  logic [DlW-1:0]  dl_cnt_d, dl_cnt_q;
  logic            irq_d, irq_q;

  logic [7:0]      opcode;
  logic [3:0]      units_mask, quiet, target_onehot;
  logic            is_unit_instr, all_quiet, units_quiet, stuck, stuck_now, decode_err;
  logic            issue, sync_held;

  assign opcode     = in_instr_i[tpu_isa_pkg::OpcodeLsb +: tpu_isa_pkg::OpcodeWidth];
  assign units_mask = in_instr_i[tpu_isa_pkg::SyncUnitsLsb +: tpu_isa_pkg::SyncUnitsWidth];
  assign quiet      = unit_idle_i & q_empty_i;  // unit with nothing to do
  assign all_quiet  = &quiet;
  assign units_quiet = (quiet & units_mask) == units_mask;
  assign decode_err = in_error_i != tpu_isa_pkg::ErrOk;

  always_comb begin
    target_onehot = 4'b0000;
    is_unit_instr = 1'b1;
    unique case (opcode)
      tpu_isa_pkg::OpReadHost,
      tpu_isa_pkg::OpWriteHost:   target_onehot = 4'b0001;
      tpu_isa_pkg::OpReadWeights: target_onehot = 4'b0010;
      tpu_isa_pkg::OpMatmul:      target_onehot = 4'b0100;
      tpu_isa_pkg::OpActivate:    target_onehot = 4'b1000;
      default:                    is_unit_instr = 1'b0;
    endcase
  end

  assign q_data_o = {index_q, in_instr_i};

  // SYNC asks for its tokens once its units are quiet; apart from the process below, which
  // depends on the grant (a shared process would be a false combinational loop).
  assign sync_held    = state_q == StRun && in_valid_i && !decode_err && !is_unit_instr &&
                        opcode == tpu_isa_pkg::OpSync;
  assign take_valid_o = sync_held && units_quiet;
  assign take_mask_o  = in_instr_i[tpu_isa_pkg::SyncWaitLsb +: tpu_isa_pkg::SyncWaitWidth];

  // What the held instruction does this cycle (state Run, no error held).
  always_comb begin
    in_ready_o   = 1'b0;
    q_valid_o    = 4'b0000;
    give_valid_o = 1'b0;
    give_mask_o  = in_instr_i[tpu_isa_pkg::SyncSignalLsb +: tpu_isa_pkg::SyncSignalWidth];
    sync_stall_o = 1'b0;
    issue        = 1'b0;
    if (state_q == StRun && in_valid_i && !decode_err) begin
      if (is_unit_instr) begin
        q_valid_o  = target_onehot;
        in_ready_o = (q_ready_i & target_onehot) != 4'b0000;
      end else begin
        unique case (opcode)
          tpu_isa_pkg::OpHalt: in_ready_o = all_quiet;
          tpu_isa_pkg::OpSync: begin
            sync_stall_o = units_quiet && !take_grant_i;
            in_ready_o   = units_quiet && take_grant_i;
            give_valid_o = in_ready_o;
          end
          default: in_ready_o = 1'b1;  // NOP
        endcase
      end
      issue = in_ready_o;
    end
  end

  // The decoder stops at HALT and at a bad instruction: nothing after them is consumed.
  assign fetch_en_o = state_q == StRun &&
      !(in_valid_i && (decode_err || opcode == tpu_isa_pkg::OpHalt));

  // Deadlock: the held instruction cannot issue and no unit can make progress.
  assign stuck_now = state_q == StRun && in_valid_i && !decode_err && !in_ready_o &&
      (quiet | unit_blocked_i) == 4'b1111;
  assign stuck     = stuck_now && dl_cnt_q == DlW'(DeadlockCycles - 1);

  always_comb begin
    state_d     = state_q;
    index_d     = index_q;
    code_d      = code_q;
    err_index_d = err_index_q;
    dl_cnt_d    = stuck_now ? dl_cnt_q + DlW'(1) : '0;
    irq_d       = 1'b0;
    unique case (state_q)
      StStopped, StDone, StError: begin
        if (start_i) begin
          state_d     = StRun;
          index_d     = '0;
          code_d      = tpu_isa_pkg::ErrOk;
          err_index_d = '0;
          dl_cnt_d    = '0;
        end
      end
      StRun: begin
        if (rt_error_i) begin
          state_d     = StDrain;
          code_d      = rt_code_i;
          err_index_d = rt_index_i;
        end else if (in_valid_i && decode_err) begin
          state_d     = StDrain;
          code_d      = in_error_i;
          err_index_d = index_q;
        end else if (stuck) begin
          state_d     = StDrain;
          code_d      = tpu_isa_pkg::ErrDeadlock;
          err_index_d = index_q;
        end else if (issue) begin
          index_d = index_q + 32'd1;
          if (opcode == tpu_isa_pkg::OpHalt && !is_unit_instr) begin
            state_d = StDone;
            irq_d   = 1'b1;
          end
        end
      end
      StDrain: begin
        if (all_quiet) begin
          state_d = StError;
          irq_d   = 1'b1;
        end
      end
      default: state_d = StStopped;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= StStopped;
      index_q     <= '0;
      code_q      <= tpu_isa_pkg::ErrOk;
      err_index_q <= '0;
      dl_cnt_q    <= '0;
      irq_q       <= 1'b0;
    end else begin
      state_q     <= state_d;
      index_q     <= index_d;
      code_q      <= code_d;
      err_index_q <= err_index_d;
      dl_cnt_q    <= dl_cnt_d;
      irq_q       <= irq_d;
    end
  end

  assign abort_o       = state_q == StDrain || state_q == StError;
  assign running_o     = state_q == StRun || state_q == StDrain;
  assign done_o        = state_q == StDone;
  assign error_o       = state_q == StError;
  assign error_code_o  = code_q;
  assign error_index_o = err_index_q;
  assign irq_o         = irq_q;

  `TPU_ASSERT(OneQueuePush, $onehot0(q_valid_o), clk_i, rst_ni)
  `TPU_ASSERT(ErrorCodeSetWhenStopped, state_q != StError || code_q != tpu_isa_pkg::ErrOk,
              clk_i, rst_ni)

endmodule
