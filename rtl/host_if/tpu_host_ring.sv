`include "tpu_assert.svh"
// Instruction ring of the host interface (docs/host_if.md sections 2 and 5). The host writes
// 16-byte instructions into the slots of a ring in host memory (RING_BASE, RING_SIZE slots)
// and moves RING_TAIL (the doorbell); this block fetches the slots through the read engine
// (client 1) and streams them into the core's instruction port.
//
// Start: a doorbell while the core is stopped (after reset, HALT or an error) and the ring is
// on (RING_SIZE != 0) pulses core_start_o in the next cycle, drops every slot fetched before
// (flush_o: the read engine discards that client's requests and beats) and fetches from the
// head. While the core runs, the block fetches every slot from the fetch pointer up to
// RING_TAIL as the tail moves (slots modulo RING_SIZE; a ring holds at most RING_SIZE - 1
// instructions, head == tail is empty). It stops fetching when the core stops.
//
// Buffer: at most BufSlots slots are requested and not yet taken by the core (they wait in
// the read engine's completion buffer). A burst of requests starts when BufSlots / 2 slots
// are free or every available slot fits, and runs until the buffer is full or the tail is
// reached; its last beat is marked req_last_o so the read engine sends the MRd at once.
//
// ring_head_o (RING_HEAD) is the slot after the last instruction the core took. A beat that
// returns with an error (failed completion or timeout) while the core wants instructions
// stops the ring: fetch_error_o pulses (the register file records RING_FETCH_ERROR), nothing
// more is fetched or delivered until soft_reset_i. soft_reset_i stops everything, drops what
// was fetched and sets the head back to slot 0 (the register file clears RING_TAIL).
// Latency: doorbell -> core_start_o and the first request 1 cycle; a fetched slot reaches
// instr_o the cycle the read engine offers it.
//
// The fetch address ring_base_i + 16 * fetch_q comes from tpu_add_short, of logarithmic
// depth: a plain `+` maps to a ripple chain 70 gate levels deep from ring_base_i to
// req_addr_o, and on through the read engine to the buffer count in tpu_host_if. It stays
// combinational because ring_base_i may change in any cycle.
module tpu_host_ring #(
  parameter int unsigned BufSlots = 8,  // slots requested ahead of the core: 2^k, >= 2
  localparam int unsigned SlotW = 16,   // RING_HEAD / RING_TAIL bits
  localparam int unsigned SizeW = 17    // RING_SIZE bits
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             soft_reset_i,     // pulse: stop, drop, head back to 0
  input  logic             doorbell_i,       // pulse: RING_TAIL was written
  input  logic [63:0]      ring_base_i,      // host address of slot 0 (bits 3:0 zero)
  input  logic [SizeW-1:0] ring_size_i,      // slots: 2^k, 2 .. 65536, or 0 (ring off)
  input  logic [SlotW-1:0] ring_tail_i,      // one past the last slot written
  // Core.
  input  logic             core_running_i,   // tpu_core running_o
  output logic             core_start_o,     // pulse: tpu_core start_i
  output logic             instr_valid_o,    // an instruction is offered
  input  logic             instr_ready_i,    // ... and taken this cycle
  output logic [127:0]     instr_o,          // the instruction
  // Read engine, client 1.
  output logic             req_valid_o,      // a slot read is offered
  input  logic             req_ready_i,      // ... and taken this cycle
  output logic [63:0]      req_addr_o,       // the slot's host address
  output logic             req_last_o,       // last slot of a burst
  input  logic             rsp_valid_i,      // a slot's contents are offered
  output logic             rsp_ready_o,      // ... and taken this cycle
  input  logic [127:0]     rsp_data_i,       // the slot
  input  logic             rsp_error_i,      // ... could not be read
  output logic             flush_o,          // drop this client's requests and beats
  // Status.
  output logic [SlotW-1:0] ring_head_o,      // RING_HEAD
  output logic             fetch_error_o,    // pulse: a slot could not be read
  output logic             active_o          // fetching for a started program
);

  localparam int unsigned OutW = $clog2(BufSlots + 1);

  logic [SlotW-1:0] head_d, head_q, fetch_d, fetch_q;
  logic [OutW-1:0]  out_d, out_q;        // slots requested and not yet taken by the core
  logic             run_d, run_q;        // a program was started and the core has not stopped
  logic             starting_d, starting_q;  // started, the core is not running yet
  logic             err_d, err_q;
  logic             burst_d, burst_q;
  logic             start_d, start_q;

  logic [SlotW-1:0] mask, tail_m, avail, fetch_next;
  logic [OutW-1:0]  free;
  logic             size_on, start, req_fire, instr_fire, fetch_err;
  logic [59:0]      slot_addr;  // req_addr_o[63:4]

  assign size_on    = ring_size_i != '0;
  assign mask       = SlotW'(ring_size_i - SizeW'(1));
  assign tail_m     = ring_tail_i & mask;
  assign avail      = (tail_m - fetch_q) & mask;
  assign fetch_next = (fetch_q + SlotW'(1)) & mask;
  assign free       = OutW'(BufSlots) - out_q;

  // A doorbell while the core is stopped starts it.
  assign start = doorbell_i && size_on && !core_running_i && !starting_q && !err_q &&
                 !soft_reset_i;

  // Requests: bursts of slots up to the tail and the buffer's room.
  assign req_valid_o = run_q && size_on && !err_q && avail != '0 && free != '0 &&
                       (burst_q || free >= OutW'(BufSlots / 2) || 32'(free) >= 32'(avail));
  assign req_addr_o  = {slot_addr, ring_base_i[3:0]};
  assign req_last_o  = avail == SlotW'(1) || free == OutW'(1) || fetch_next == '0;
  assign req_fire    = req_valid_o && req_ready_i;

  // Delivery: in order; a failed slot stops the ring.
  assign instr_valid_o = run_q && !err_q && rsp_valid_i && !rsp_error_i;
  assign instr_o       = rsp_data_i;
  assign rsp_ready_o   = run_q && !err_q && (rsp_error_i || instr_ready_i);
  assign instr_fire    = instr_valid_o && instr_ready_i;
  assign fetch_err     = run_q && !err_q && rsp_valid_i && rsp_error_i;

  // ring_base_i + 16 * fetch_q, of logarithmic depth.
  tpu_add_short #(
    .Width (60),
    .ShortW(SlotW)
  ) u_addr (
    .a_i  (ring_base_i[63:4]),
    .b_i  (fetch_q),
    .sum_o(slot_addr)
  );

  always_comb begin
    head_d     = head_q;
    fetch_d    = fetch_q;
    out_d      = out_q + OutW'(req_fire) - OutW'(instr_fire);
    run_d      = run_q;
    starting_d = starting_q && !core_running_i;
    err_d      = err_q || fetch_err;
    burst_d    = req_fire ? !req_last_o : burst_q;
    start_d    = start;
    if (req_fire) fetch_d = fetch_next;
    if (instr_fire) head_d = (head_q + SlotW'(1)) & mask;
    // The core stopped (HALT or an error): nothing more to fetch for this program.
    if (run_q && !starting_q && !core_running_i) run_d = 1'b0;
    if (fetch_err) run_d = 1'b0;
    if (start) begin
      fetch_d    = head_q;
      out_d      = '0;
      run_d      = 1'b1;
      starting_d = 1'b1;
      burst_d    = 1'b0;
    end
    if (soft_reset_i) begin
      head_d     = '0;
      fetch_d    = '0;
      out_d      = '0;
      run_d      = 1'b0;
      starting_d = 1'b0;
      err_d      = 1'b0;
      burst_d    = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_q     <= '0;
      fetch_q    <= '0;
      out_q      <= '0;
      run_q      <= 1'b0;
      starting_q <= 1'b0;
      err_q      <= 1'b0;
      burst_q    <= 1'b0;
      start_q    <= 1'b0;
    end else begin
      head_q     <= head_d;
      fetch_q    <= fetch_d;
      out_q      <= out_d;
      run_q      <= run_d;
      starting_q <= starting_d;
      err_q      <= err_d;
      burst_q    <= burst_d;
      start_q    <= start_d;
    end
  end

  assign core_start_o  = start_q;
  assign flush_o       = start || soft_reset_i || fetch_err;
  assign ring_head_o   = head_q;
  assign fetch_error_o = fetch_err;
  assign active_o      = run_q;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(BufSlotsLegal, BufSlots >= 2 && (BufSlots & (BufSlots - 1)) == 0)
  `TPU_ASSERT(OutstandingBounded, out_q <= OutW'(BufSlots), clk_i, rst_ni)
  `TPU_ASSERT(BaseAligned, ring_base_i[3:0] == 4'h0, clk_i, rst_ni)
  `TPU_ASSERT(DeliverOnlyRequested, !instr_fire || out_q != '0, clk_i, rst_ni)

endmodule
