`include "tpu_assert.svh"
// Beat-width adapter of the host interface (docs/host_if.md section 4): joins the core's
// host-memory port (one beat of N bytes per request, docs/controller.md section 2) to the DMA
// engines' beats of EB = TlpWidth / 8 bytes (client 0 of tpu_host_dma_rd, tpu_host_dma_wr), so
// that the engines keep coalescing a transfer's beats into long TLPs at every N. Below, "the
// engine beat" is EB bytes (16 at the default TlpWidth of 128).
//
// - N = EB: wires (no register, no added latency).
// - N > EB: a core beat is N / EB consecutive engine beats (address + EB each), offered one
//   per cycle while the core's request stays offered; the core's request is taken with its
//   last piece (the core holds a request until it is taken). A read's N / 16 responses are
//   gathered, the last one passing straight through: the core gets the beat in the cycle its
//   last piece is offered, with the error flag if any piece failed.
// - N < EB: EB / N consecutive core beats share one engine beat (a slot each).
//   Reads: a request whose engine beat is the one of the newest engine read issued, while
//   that read still has a core beat to hand out (so its response is still held), joins it
//   instead of reading the same EB bytes again (which would split the engine's run). Every
//   core read is queued as a use (its slot and whether it is its engine read's last use); the
//   newest use waits in a register until the next request shows whether it is the last. Each
//   use takes its slot of the engine's response, which is popped with its last use.
//   Writes: a write beat waits in a merge register; the following write beats of the same EB
//   bytes merge into it (later bytes win); it goes to the write engine in the first cycle in
//   which the core does not offer a beat to merge (a beat of other 16 bytes, a read, or no
//   beat), so it never waits for more than the engine's ready. A read is taken only once the
//   merge register is empty (it reaches the write engine before the read reaches the read
//   engine: reads never pass writes), and a write taken ends the joining of reads to the
//   newest engine read. wr_held_o tells tpu_host_dma that a write beat is held: MSIs and
//   client-0 MRds wait for it as for the write engine's own beats (and STATUS.dma_busy
//   shows it).
//
// flush_i (soft reset, with the read engine's flush of client 0 and the write engine's flush)
// drops every piece count, gathered piece, queued use and held write beat; nothing is offered
// to the engines in its cycle.
module tpu_host_beat_adapter #(
  parameter int unsigned N        = 16,   // core beat bytes: a power of two, 2 .. 256
  parameter int unsigned UseDepth = 512,  // N < EB: core reads waiting for data (>= 2)
  parameter int unsigned TlpWidth = 128,  // engine beat bits: 128, 256 or 512
  parameter int unsigned AddrW    = 48,   // host address bits
  localparam int unsigned W  = 8 * N,        // core beat bits
  localparam int unsigned EW = TlpWidth,     // engine beat bits
  localparam int unsigned EB = TlpWidth / 8  // engine beat bytes
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             flush_i,         // soft reset: drop every beat held
  // Core host-memory port (one beat of N bytes per request, reads answered in order).
  input  logic             hm_req_valid_i,  // a request is offered
  output logic             hm_req_ready_o,  // ... and taken this cycle
  input  logic             hm_req_write_i,  // 1 write, 0 read
  input  logic [AddrW-1:0] hm_req_addr_i,   // host byte address, a multiple of N
  input  logic [W-1:0]     hm_req_wdata_i,  // byte b at [8b +: 8]
  input  logic [N-1:0]     hm_req_wmask_i,  // bytes written
  output logic             hm_rsp_valid_o,  // read data of the oldest read
  input  logic             hm_rsp_ready_i,  // ... taken this cycle
  output logic [W-1:0]     hm_rsp_rdata_o,  // byte b at [8b +: 8]
  output logic             hm_rsp_error_o,  // the beat failed
  // Read engine, client 0 (engine beats).
  output logic             rd_req_valid_o,  // a beat read is offered
  input  logic             rd_req_ready_i,  // ... and taken this cycle
  output logic [AddrW-1:0] rd_req_addr_o,   // host byte address, a multiple of EB
  input  logic             rd_rsp_valid_i,  // the oldest beat read is offered
  output logic             rd_rsp_ready_o,  // ... and taken this cycle
  input  logic [EW-1:0]    rd_rsp_data_i,   // byte b at [8b +: 8]
  input  logic             rd_rsp_error_i,  // its request failed
  // Write engine (engine beats).
  output logic             wr_req_valid_o,  // a write beat is offered
  input  logic             wr_req_ready_i,  // ... and taken this cycle
  output logic [AddrW-1:0] wr_req_addr_o,   // host byte address, a multiple of EB
  output logic [EW-1:0]    wr_req_data_o,   // byte b at [8b +: 8]
  output logic [EB-1:0]    wr_req_mask_o,   // bytes written
  // Status.
  output logic             wr_held_o        // a write beat waits here (N < EB)
);

  localparam int unsigned EBW = $clog2(EB);  // byte index in an engine beat

  if (N == EB) begin : g_wire
    // ---------------------------------------------------------------------------------------
    // One core beat is one engine beat
    // ---------------------------------------------------------------------------------------
    assign rd_req_valid_o = hm_req_valid_i && !hm_req_write_i;
    assign rd_req_addr_o  = hm_req_addr_i;
    assign wr_req_valid_o = hm_req_valid_i && hm_req_write_i;
    assign wr_req_addr_o  = hm_req_addr_i;
    assign wr_req_data_o  = hm_req_wdata_i;
    assign wr_req_mask_o  = hm_req_wmask_i;
    assign hm_req_ready_o = hm_req_write_i ? wr_req_ready_i : rd_req_ready_i;
    assign hm_rsp_valid_o = rd_rsp_valid_i;
    assign rd_rsp_ready_o = hm_rsp_ready_i;
    assign hm_rsp_rdata_o = rd_rsp_data_i;
    assign hm_rsp_error_o = rd_rsp_error_i;
    assign wr_held_o      = 1'b0;

    // The engines flush themselves; no state here.
    logic unused_wire;
    assign unused_wire = ^{clk_i, rst_ni, flush_i};

  end else if (N > EB) begin : g_split
    // ---------------------------------------------------------------------------------------
    // One core beat is P engine-beat pieces
    // ---------------------------------------------------------------------------------------
    localparam int unsigned P  = N / EB;               // pieces per core beat
    localparam int unsigned KW = $clog2(P);            // piece index bits

    logic [KW-1:0]          k_d, k_q;                  // request: next piece to offer
    logic [KW-1:0]          g_d, g_q;                  // response: pieces gathered
    logic [(P-1)*EW-1:0]    gdata_d, gdata_q;          // ... their data
    logic                   gerr_d, gerr_q;            // ... one of them failed
    logic                   piece_fire, rsp_fire, last_piece, last_rsp;
    logic [EW-1:0]          piece_data;
    logic [EB-1:0]          piece_mask;

    assign last_piece = k_q == KW'(P - 1);
    assign last_rsp   = g_q == KW'(P - 1);
    assign piece_data = hm_req_wdata_i[EW*k_q +: EW];
    assign piece_mask = hm_req_wmask_i[EB*k_q +: EB];

    assign rd_req_valid_o = hm_req_valid_i && !hm_req_write_i && !flush_i;
    assign rd_req_addr_o  = hm_req_addr_i + (AddrW'(k_q) << EBW);
    assign wr_req_valid_o = hm_req_valid_i && hm_req_write_i && !flush_i;
    assign wr_req_addr_o  = rd_req_addr_o;
    assign wr_req_data_o  = piece_data;
    assign wr_req_mask_o  = piece_mask;
    assign piece_fire     = hm_req_write_i ? (wr_req_valid_o && wr_req_ready_i) :
                                             (rd_req_valid_o && rd_req_ready_i);
    assign hm_req_ready_o = last_piece && !flush_i &&
                            (hm_req_write_i ? wr_req_ready_i : rd_req_ready_i);

    // The last piece passes straight through: no added latency, one piece per cycle.
    assign hm_rsp_valid_o = rd_rsp_valid_i && last_rsp && !flush_i;
    assign rd_rsp_ready_o = (!last_rsp || hm_rsp_ready_i) && !flush_i;
    assign hm_rsp_rdata_o = {rd_rsp_data_i, gdata_q};
    assign hm_rsp_error_o = gerr_q || rd_rsp_error_i;
    assign rsp_fire       = rd_rsp_valid_i && rd_rsp_ready_o;
    assign wr_held_o      = 1'b0;

    always_comb begin
      k_d     = k_q;
      g_d     = g_q;
      gdata_d = gdata_q;
      gerr_d  = gerr_q;
      if (piece_fire) k_d = last_piece ? '0 : k_q + KW'(1);
      if (rsp_fire) begin
        if (last_rsp) begin
          g_d    = '0;
          gerr_d = 1'b0;
        end else begin
          g_d                     = g_q + KW'(1);
          gdata_d[EW*g_q +: EW]   = rd_rsp_data_i;
          gerr_d                  = gerr_q || rd_rsp_error_i;
        end
      end
      if (flush_i) begin
        k_d    = '0;
        g_d    = '0;
        gerr_d = 1'b0;
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        k_q     <= '0;
        g_q     <= '0;
        gdata_q <= '0;
        gerr_q  <= 1'b0;
      end else begin
        k_q     <= k_d;
        g_q     <= g_d;
        gdata_q <= gdata_d;
        gerr_q  <= gerr_d;
      end
    end

    // A request whose first pieces were taken stays offered (the core holds its requests).
    `TPU_ASSERT(SplitRequestHeld, k_q == '0 || hm_req_valid_i || flush_i, clk_i, rst_ni)

  end else begin : g_share
    // ---------------------------------------------------------------------------------------
    // S core beats share one engine beat
    // ---------------------------------------------------------------------------------------
    localparam int unsigned S  = EB / N;               // slots per engine beat
    localparam int unsigned SW = $clog2(S);            // slot bits
    localparam int unsigned UW = SW + 1;               // queued use: {last, slot}
    localparam int unsigned CW = $clog2(UseDepth + 1); // queued uses
    localparam int unsigned LW = AddrW - EBW;          // engine beat index (addr / EB) bits

    logic [SW-1:0] slot;                               // the request's slot
    logic [LW-1:0] line;                               // the request's engine beat (addr / EB)
    logic [EW-1:0] req_data_e;                         // its data in every slot
    logic [EB-1:0] req_mask_e;                         // its mask in its slot

    assign slot       = SW'(hm_req_addr_i[EBW-1:0] >> $clog2(N));
    assign line       = hm_req_addr_i[AddrW-1:EBW];
    assign req_data_e = {S{hm_req_wdata_i}};
    assign req_mask_e = EB'(hm_req_wmask_i) << (N * slot);

    // ---- writes: the merge register ------------------------------------------------------
    logic          h_d, h_q;                           // a write beat is held
    logic [LW-1:0] hline_d, hline_q;
    logic [EW-1:0] hdata_d, hdata_q;
    logic [EB-1:0] hmask_d, hmask_q;
    logic          w_same, w_merge, w_ready, w_take, h_leave;

    assign w_same  = h_q && line == hline_q;
    assign w_merge = hm_req_valid_i && hm_req_write_i && w_same;
    // Not from hm_req_valid_i: the held beat leaves in a cycle without a beat to merge.
    assign w_ready = !h_q || w_same || wr_req_ready_i;
    assign w_take  = hm_req_valid_i && hm_req_write_i && !flush_i && w_ready;

    assign wr_req_valid_o = h_q && !w_merge && !flush_i;
    assign wr_req_addr_o  = {hline_q, EBW'(0)};
    assign wr_req_data_o  = hdata_q;
    assign wr_req_mask_o  = hmask_q;
    assign h_leave        = wr_req_valid_o && wr_req_ready_i;
    assign wr_held_o      = h_q;

    always_comb begin
      h_d     = h_q && !h_leave;
      hline_d = hline_q;
      hdata_d = hdata_q;
      hmask_d = hmask_q;
      if (w_take) begin
        h_d     = 1'b1;
        hline_d = line;
        for (int b = 0; b < EB; b++) begin
          if (req_mask_e[b] || !w_merge) hdata_d[8*b +: 8] = req_data_e[8*b +: 8];
        end
        hmask_d = w_merge ? (hmask_q | req_mask_e) : req_mask_e;
      end
      if (flush_i) h_d = 1'b0;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        h_q     <= 1'b0;
        hline_q <= '0;
        hdata_q <= '0;
        hmask_q <= '0;
      end else begin
        h_q     <= h_d;
        hline_q <= hline_d;
        hdata_q <= hdata_d;
        hmask_q <= hmask_d;
      end
    end

    // ---- reads: issue and join -----------------------------------------------------------
    // The newest use waits in the stage register (s_*); older ones are queued with their
    // last flag. t_* describe the newest engine read issued.
    logic          s_d, s_q;                           // a use is staged
    logic [SW-1:0] sslot_d, sslot_q;
    logic          t_open_d, t_open_q;                 // reads may still join it
    logic [LW-1:0] tline_d, tline_q;
    logic          q_valid, q_ready, q_push, q_pop, q_empty;
    logic [UW-1:0] q_in, q_out;
    logic [CW-1:0] q_count;
    logic          r_join, r_ready, r_take, r_issue;
    logic          from_q, handout, staged_out, rsp_pop;
    logic [SW-1:0] head_slot;

    // Joins the newest engine read while its staged use (hence its response) is still held.
    assign r_join  = s_q && t_open_q && line == tline_q;
    // Room from registers only, and never while a write beat is held.
    assign r_ready = !h_q && !flush_i && q_count != CW'(UseDepth) && (r_join || rd_req_ready_i);
    assign r_take  = hm_req_valid_i && !hm_req_write_i && r_ready;
    assign r_issue = r_take && !r_join;

    assign rd_req_valid_o = hm_req_valid_i && !hm_req_write_i && !r_join && !h_q &&
                            !flush_i && q_count != CW'(UseDepth);
    assign rd_req_addr_o  = {line, EBW'(0)};
    assign hm_req_ready_o = hm_req_write_i ? (w_ready && !flush_i) : r_ready;

    // ---- responses -----------------------------------------------------------------------
    assign from_q     = q_valid;
    assign head_slot  = from_q ? q_out[SW-1:0] : sslot_q;
    assign hm_rsp_valid_o = rd_rsp_valid_i && (from_q || s_q) && !flush_i;
    assign hm_rsp_rdata_o = W'(rd_rsp_data_i >> (W * head_slot));
    assign hm_rsp_error_o = rd_rsp_error_i;
    assign handout    = hm_rsp_valid_o && hm_rsp_ready_i;
    assign staged_out = handout && !from_q;
    assign q_pop      = handout && from_q;
    // The response leaves with its read's last use; a staged use is the last unless a
    // request joins in the same cycle.
    assign rsp_pop        = from_q ? q_out[SW] : !(r_take && r_join);
    assign rd_rsp_ready_o = handout && rsp_pop;

    // The staged use moves to the queue when the next read is taken (unless handed out now).
    assign q_push = r_take && s_q && !staged_out;
    assign q_in   = {!r_join, sslot_q};

    tpu_fifo #(
      .Width(UW),
      .Depth(UseDepth)
    ) u_uses (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .clear_i    (flush_i),
      .in_valid_i (q_push),
      .in_ready_o (q_ready),
      .in_data_i  (q_in),
      .out_valid_o(q_valid),
      .out_ready_i(q_pop),
      .out_data_o (q_out),
      .count_o    (q_count),
      .empty_o    (q_empty)
    );

    always_comb begin
      s_d      = s_q && !staged_out;
      sslot_d  = sslot_q;
      t_open_d = t_open_q && !w_take;
      tline_d  = tline_q;
      if (r_take) begin
        s_d     = 1'b1;
        sslot_d = slot;
      end
      if (r_issue) begin
        t_open_d = 1'b1;
        tline_d  = line;
      end
      if (flush_i) begin
        s_d      = 1'b0;
        t_open_d = 1'b0;
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        s_q      <= 1'b0;
        sslot_q  <= '0;
        t_open_q <= 1'b0;
        tline_q  <= '0;
      end else begin
        s_q      <= s_d;
        sslot_q  <= sslot_d;
        t_open_q <= t_open_d;
        tline_q  <= tline_d;
      end
    end

    logic unused_share;
    assign unused_share = ^{q_ready, q_empty};

    // Every response of the engine belongs to a queued or staged use.
    `TPU_ASSERT(ResponseHasUse, !rd_rsp_valid_i || q_valid || s_q || flush_i, clk_i, rst_ni)
    // The queue's room is checked before a read is taken.
    `TPU_ASSERT(UseQueueRoom, !q_push || q_ready, clk_i, rst_ni)
  end

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(BeatIsPowerOfTwo, N >= 2 && N <= 256 && (N & (N - 1)) == 0)
  `TPU_ASSERT_INIT(TlpWidthLegal, TlpWidth == 128 || TlpWidth == 256 || TlpWidth == 512)
  `TPU_ASSERT_INIT(UseDepthAtLeastTwo, UseDepth >= 2)
  `TPU_ASSERT(RequestAligned, !hm_req_valid_i || (hm_req_addr_i % AddrW'(N)) == '0, clk_i,
              rst_ni)

endmodule
