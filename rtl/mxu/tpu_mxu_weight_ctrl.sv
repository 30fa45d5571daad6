`include "tpu_assert.svh"

// MXU weight-bank control: decides when a weight beat, and when an activation row, may enter.
//
// Every PE has two weight banks. Activations use the "current" bank; the next tile is shifted
// into the per-PE weight pipe (one beat = one tile row per cycle) and copied into the other
// bank on its last beat ("capture"). A row flagged new_tile switches to the other bank; the
// bank select travels with the activations, so the switch lands between two rows everywhere in
// the array, with no bubble. Timing rules, with activation lane k and weight lane c both
// entering the array 1 + k (resp. 1 + c) cycles after they are accepted here:
//  - a new-tile row may enter from the cycle after its tile's last beat (its bank is written
//    at the end of cycle s + 1 + c, and the row reaches PE(k,c) in cycle t + 1 + k + c);
//  - a last beat may enter N - 1 cycles after the switch away from the bank it overwrites
//    (the old tile's last row is still passing through the array's bottom rows before that).
// Beats other than the last only move the pipe and never wait. So tiles of N rows or more
// stream back to back with every weight load hidden. Decisions only; no datapath. Latency 0.
module tpu_mxu_weight_ctrl #(
  parameter int unsigned N = tpu_pkg::MxuDim  // rows of a tile (array size)
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic weight_valid_i,   // a tile row is offered
  output logic weight_ready_o,   // ... and may enter now
  output logic weight_shift_o,   // accepted: move the weight pipe
  output logic weight_capture_o, // accepted and last row of a tile: copy pipe to a bank
  output logic weight_bank_o,    // bank that the capture writes
  input  logic act_valid_i,      // an activation row is offered
  input  logic act_new_tile_i,   // ... and it starts using the most recently loaded tile
  output logic act_ready_o,      // ... and may enter now
  output logic act_sel_o,        // weight bank the offered row uses
  output logic tile_loaded_o     // a loaded tile waits for its first row
);

  localparam int unsigned CntWidth = (N > 1) ? $clog2(N) : 1;

  logic                cur_bank_q, cur_bank_d;      // bank activations use now
  logic                loaded_q, loaded_d;          // the other bank holds an unused tile
  logic [CntWidth-1:0] beat_q, beat_d;              // next beat's row within its tile
  logic [CntWidth-1:0] drain_q, drain_d;            // cycles until the other bank is free

  logic last_beat, weight_fire, act_fire, flip;

  always_comb begin
    last_beat      = beat_q == CntWidth'(N - 1);
    // A last beat overwrites the other bank: it must be free of an unused tile and of rows
    // still in flight. Earlier beats only fill the pipe.
    weight_ready_o = !last_beat || (!loaded_q && drain_q == '0);
    weight_fire    = weight_valid_i && weight_ready_o;
    act_ready_o    = !act_new_tile_i || loaded_q;
    act_fire       = act_valid_i && act_ready_o;
    flip           = act_fire && act_new_tile_i;
    act_sel_o      = act_new_tile_i ? !cur_bank_q : cur_bank_q;

    weight_shift_o   = weight_fire;
    weight_capture_o = weight_fire && last_beat;
    weight_bank_o    = !cur_bank_q;

    cur_bank_d = flip ? !cur_bank_q : cur_bank_q;
    loaded_d   = loaded_q;
    if (weight_capture_o) loaded_d = 1'b1;
    if (flip)             loaded_d = 1'b0;
    beat_d = beat_q;
    if (weight_fire) beat_d = last_beat ? '0 : beat_q + 1'b1;
    // The old tile's last row entered at most one cycle before the flip and leaves the
    // bottom row of the array N - 1 cycles after it entered the top.
    drain_d = (drain_q != '0) ? drain_q - 1'b1 : '0;
    if (flip) drain_d = CntWidth'(N - 2);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cur_bank_q <= 1'b0;
      loaded_q   <= 1'b0;
      beat_q     <= '0;
      drain_q    <= '0;
    end else begin
      cur_bank_q <= cur_bank_d;
      loaded_q   <= loaded_d;
      beat_q     <= beat_d;
      drain_q    <= drain_d;
    end
  end

  assign tile_loaded_o = loaded_q;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(NAtLeastTwo, N >= 2)
  // A capture and a flip never meet: one needs the other bank empty, the other needs it full.
  `TPU_ASSERT(CaptureNotWithFlip, !(weight_capture_o && flip), clk_i, rst_ni)

endmodule
