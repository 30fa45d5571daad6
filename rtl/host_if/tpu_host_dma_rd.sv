`include "tpu_assert.svh"
// DMA read engine of the host interface (docs/host_if.md section 4). Two clients read host
// memory in beats of B = TlpWidth / 8 bytes (one beat of the TLP stream): client 0 the core's
// host-memory port (through tpu_host_beat_adapter), client 1 the instruction ring. Each client
// gets its beats back in its own request order; the clients do not wait for each other.
//
// Requests: a client's consecutive beats (address + B each time) coalesce into one run that
// becomes one MRd of up to MRRS bytes, never crossing an MRRS-aligned (hence 4 KiB) boundary,
// MRRS being the size in use (mrrs_mask_i + 1: Device Control's, at most MaxReadReq; a run open
// when it changes ends at the next boundary of the new size). A run ends when a beat does not continue it, when it reaches such a boundary, when
// the client marks a beat req_last_i, or after IdleGap cycles without a beat; it then waits in
// a register for a free tag and the transmit side. Client 0's MRds also wait for wr_empty_i
// (the write engine has sent everything), so that a read never passes an earlier write. At
// most Client0Tags / Client1Tags requests of each client are outstanding (NumTags in all).
//
// Completions (cpl_*, from tpu_host_rx, one beat per cycle, never back-pressured): every tag owns a
// slot of MaxReadReq bytes in one completion buffer (tpu_mem_1r1w, NumTags * MaxReadReq / B rows of
// TlpWidth bits). A request's completions may be split at any multiple of B bytes (the root complex
// uses its 64-byte read completion boundary; B is at most 64) and those of different tags may
// interleave in any order; PCIe returns one request's completions in address order, so a CplD is
// taken when its byte count equals the bytes still owed, its lower address continues the request,
// its length is a whole number of beats no larger than the byte count, and it has that many payload
// beats; its beats are then written behind the ones received. A completion with a status other than
// SC, without data, or failing those checks fails its request, and no further completion is
// expected for it; a poisoned CplD (EP) fails its request too, but the request's later completions
// are still taken (and checked) until it is complete. A completion whose tag has no request
// expecting one is dropped and pulses cpl_unexpected_o. A request not complete Timeout cycles after
// its MRd was sent fails as well (timeout_o pulses; the tags are checked one per cycle in turn, so
// the timeout resolves within Timeout + NumTags cycles).
//
// Responses: the oldest request of each client hands its beats out as they arrive (the read
// port of the buffer serves the two clients in turn, one beat per cycle, through a three-entry
// output FIFO per client: a beat read while one waits and one is on its way keeps a client
// that takes a beat every cycle busy); once its request failed, every beat not yet handed out
// returns with rsp_error_o set. A tag is free again when its last beat has been read out (a
// poisoned request whose later completions are still to come then waits as an orphan).
//
// flush_i[c] (soft reset, or the ring restarting) drops client c's open run, waiting MRd,
// request order and undelivered beats; its requests still outstanding become orphans: their
// completions are taken and thrown away, and their tags are freed when complete or timed out
// (so a late completion never lands in a later request's slot). An MRd sent in the same cycle
// is an orphan from the start.
//
// Failure report: fail_o pulses when a request a client still waits for (not an orphan)
// fails for the first time, with what failed it (fail_kind_o: a completion with status
// fail_status_o, SC for one that breaks the rules; a poisoned CplD; a timeout), the client and
// the tag (the register file keeps the first as DMA_ERROR_CAUSE). A completion's failure wins
// over a timeout in the same cycle (that one is not reported: only the first failure matters).
//
// Tag quarantine: a tag whose request timed out is not issued again until Quarantine cycles
// after the timeout (quar_q; released by the same one-tag-per-cycle scan, so within
// Quarantine + NumTags cycles) even once its beats have been handed out. A completion for
// it arriving in that time matches no request waiting for data and is dropped (counted on
// cpl_unexpected_o) instead of landing in a new request's slot: a late completion is harmless
// up to Timeout + Quarantine cycles after its MRd. The quarantined tags count against no
// client, and busy_o does not wait for them.
//
// Depth (docs/fpga.md, the logic-depth budget): whether a beat continues its client's open
// run is tested without forming the run's next address (that 64-bit add, then the compare,
// made the path through req_ready_o 71 gate levels deep).
//
// Latency: a run's MRd is offered in the cycle after the run closed (its last beat plus
// IdleGap cycles, or at once for a last or boundary beat); a beat whose data arrived in cycle
// t is read at t + 1 at the earliest and is on rsp_* from t + 2.
module tpu_host_dma_rd #(
  parameter int unsigned MaxReadReq  = 512,         // MRRS in bytes: 2^k, 64 .. 4096
  parameter int unsigned NumTags     = 16,          // requests outstanding: 2^k, 2 .. 256
  parameter int unsigned Client0Tags = NumTags - 2, // at most this many of client 0
  parameter int unsigned Client1Tags = 2,           // at most this many of client 1
  parameter int unsigned Timeout     = 65536,       // cycles from MRd to its last completion
  parameter int unsigned Quarantine  = Timeout,     // cycles a timed-out tag is not reused
  parameter int unsigned IdleGap     = 4,           // cycles without a beat that close a run
  parameter int unsigned TlpWidth    = 128,         // beat bits: 128, 256 or 512
  localparam int unsigned NumClients = 2,
  localparam int unsigned W          = TlpWidth     // beat bits
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  input  logic [NumClients-1:0]     flush_i,          // drop client c's requests and beats
  input  logic                      wr_empty_i,       // the write engine has nothing left
  input  logic [11:0]               mrrs_mask_i,      // MRRS in use - 1 (<= MaxReadReq - 1)
  // Client requests, one beat each (client c at [c] / [64c +: 64]).
  input  logic [NumClients-1:0]     req_valid_i,      // a beat read is offered
  output logic [NumClients-1:0]     req_ready_o,      // ... and taken this cycle
  input  logic [NumClients*64-1:0]  req_addr_i,       // its host address, a multiple of B
  input  logic [NumClients-1:0]     req_last_i,       // close the run after this beat
  // Client responses, in each client's request order (client c at [c] / [W*c +: W]).
  output logic [NumClients-1:0]     rsp_valid_o,      // a beat is offered
  input  logic [NumClients-1:0]     rsp_ready_i,      // ... and taken this cycle
  output logic [NumClients*W-1:0]   rsp_data_o,       // byte b at [8b +: 8]
  output logic [NumClients-1:0]     rsp_error_o,      // its request failed
  // Memory read requests to the transmit side.
  output logic                      mrd_valid_o,      // an MRd is offered
  input  logic                      mrd_ready_i,      // ... and sent (taken) this cycle
  output logic [63:0]               mrd_addr_o,       // first byte, a multiple of B
  output logic [9:0]                mrd_dwords_o,     // length in DWs (0 = 1024)
  output logic [7:0]                mrd_tag_o,        // tag
  // Completion beats from the receive side.
  input  logic                      cpl_valid_i,      // a completion beat
  input  logic                      cpl_first_i,      // ... its TLP's first beat
  input  logic                      cpl_last_i,       // ... its TLP's last beat
  input  logic                      cpl_has_data_i,   // 0: a Cpl without data
  input  logic [7:0]                cpl_tag_i,        // tag
  input  logic [2:0]                cpl_status_i,     // completion status, 0 = SC
  input  logic                      cpl_poisoned_i,   // EP
  input  logic [11:0]               cpl_byte_count_i, // bytes still owed (0 = 4096)
  input  logic [6:0]                cpl_lower_addr_i, // address bits 6:0 of the first byte
  input  logic [9:0]                cpl_dwords_i,     // payload DWs (0 = 1024)
  input  logic [W-1:0]              cpl_data_i,       // payload beat
  // Status.
  output logic                      busy_o,           // a run, an MRd or a tag in flight
  output logic                      cpl_unexpected_o, // pulse: a completion was dropped
  output logic                      timeout_o,        // pulse: a request timed out
  output logic                      fail_o,           // pulse: a client's request failed
  output logic [1:0]                fail_kind_o,      // ... 0 completion, 1 poisoned, 2 timeout
  output logic [2:0]                fail_status_o,    // ... the completion's status (kind 0)
  output logic                      fail_client_o,    // ... whose (0 or 1)
  output logic [7:0]                fail_tag_o        // ... its tag
);

  localparam int unsigned B         = TlpWidth / 8;                  // beat bytes
  localparam int unsigned BW        = $clog2(B);                     // byte index in a beat
  localparam int unsigned DwW       = $clog2(TlpWidth / 32);         // DW index in a beat
  localparam int unsigned SlotBeats = MaxReadReq / B;               // beats per tag slot
  localparam int unsigned SbW       = $clog2(SlotBeats);            // beat index in a slot
  localparam int unsigned NbW       = $clog2(SlotBeats + 1);        // beat counts 0..SlotBeats
  localparam int unsigned TagW      = $clog2(NumTags);              // tag bits used
  localparam int unsigned MemAw     = TagW + SbW;                   // buffer row address
  localparam int unsigned TimerW    = $clog2(((Timeout > Quarantine) ? Timeout : Quarantine) +
                                         NumTags) + 1;                // cycle stamps
  localparam int unsigned CntW      = $clog2(NumTags + 1);          // tags of one client
  localparam int unsigned GapW      = $clog2(IdleGap + 1);          // idle counter
  localparam int unsigned OrderW    = (TagW > 1) ? TagW : 1;        // order FIFO entry
  localparam int unsigned OutDepth  = 3;                            // output FIFO beats

  // ---------------------------------------------------------------------------------------
  // Per-tag state
  // ---------------------------------------------------------------------------------------
  logic [NumTags-1:0] busy_d, busy_q;      // an MRd was sent, its slot is in use
  logic [NumTags-1:0] orphan_d, orphan_q;  // flushed: completions are thrown away
  logic [NumTags-1:0] client_d, client_q;  // whose request
  logic [NumTags-1:0] err_d, err_q;        // the request failed: its beats return with error
  logic [NumTags-1:0] term_d, term_q;      // ... and no further completion will come for it
  logic [NumTags-1:0] quar_d, quar_q;      // timed out: not issued again before Quarantine
  logic [NbW-1:0]     nb_q [NumTags];      // beats requested
  logic [NbW-1:0]     rcvd_q [NumTags];    // beats received (in address order)
  logic [6:0]         lo7_q [NumTags];     // address bits 6:0 of the request
  logic [TimerW-1:0]  stamp_q [NumTags];   // cycle the MRd was sent
  logic [NumTags-1:0] all_rcvd;            // every beat requested has been received
  logic [NumTags-1:0] waiting;             // busy, completions still expected

  for (genvar t = 0; t < NumTags; t++) begin : g_all_rcvd
    assign all_rcvd[t] = rcvd_q[t] == nb_q[t];
  end
  assign waiting = busy_q & ~term_q & ~all_rcvd;

  // ---------------------------------------------------------------------------------------
  // Coalescing: one open run and one closed run (waiting MRd) per client
  // ---------------------------------------------------------------------------------------
  logic [NumClients-1:0] open_d, open_q, full_d, full_q, pend_d, pend_q;
  logic [63:0]           base_d [NumClients];   // first beat of the open run
  logic [63:0]           base_q [NumClients];
  logic [NbW-1:0]        run_nb_d [NumClients]; // beats of the open run
  logic [NbW-1:0]        run_nb_q [NumClients];
  logic [GapW-1:0]       idle_d [NumClients];   // cycles since its last beat
  logic [GapW-1:0]       idle_q [NumClients];
  logic [63:0]           pend_addr_d [NumClients];
  logic [63:0]           pend_addr_q [NumClients];
  logic [NbW-1:0]        pend_nb_d [NumClients];
  logic [NbW-1:0]        pend_nb_q [NumClients];
  logic [NumClients-1:0] issue_c;               // client c's waiting MRd is sent this cycle

  for (genvar c = 0; c < NumClients; c++) begin : g_run
    logic [63:0] addr, run_bytes;
    logic [62:0] run_carry;  // carry out of bit i
    logic [11:0] addr_plus;  // the next beat's address bits 11:0 (blocks are at most 4 KiB)
    logic        extend, want_close, do_close, accept;

    assign addr       = req_addr_i[64*c +: 64];
    // addr == base_q + run_bytes compared without the sum's carry chain (the add then compare
    // would be the deepest path, through req_ready_o): the sum equals addr exactly when every
    // bit's carry in, read off as base ^ run_bytes ^ addr, is the carry the bit below makes
    // with that sum bit (run_carry), so every bit is checked at once.
    assign run_bytes  = 64'(run_nb_q[c]) << BW;
    assign run_carry  = (base_q[c][62:0] & run_bytes[62:0]) |
                        ((base_q[c][62:0] | run_bytes[62:0]) & ~addr[62:0]);
    assign addr_plus  = addr[11:0] + 12'(B);
    assign extend     = open_q[c] && !full_q[c] && idle_q[c] < GapW'(IdleGap) &&
                        (base_q[c] ^ run_bytes ^ addr) == {run_carry, 1'b0};
    assign want_close = open_q[c] && (full_q[c] || idle_q[c] >= GapW'(IdleGap) ||
                                      (req_valid_i[c] && !extend));
    assign do_close   = want_close && !pend_q[c];
    // Not from req_valid_i (a beat that does not extend the open run closes it when the
    // waiting-MRd register is free), so the client sees no path back to its valid.
    assign req_ready_o[c] = !flush_i[c] && (extend || !open_q[c] || !pend_q[c]);
    assign accept     = req_valid_i[c] && req_ready_o[c];

    always_comb begin
      open_d[c]      = open_q[c];
      full_d[c]      = full_q[c];
      base_d[c]      = base_q[c];
      run_nb_d[c]    = run_nb_q[c];
      idle_d[c]      = idle_q[c];
      pend_d[c]      = pend_q[c] && !issue_c[c];
      pend_addr_d[c] = pend_addr_q[c];
      pend_nb_d[c]   = pend_nb_q[c];
      if (do_close) begin
        pend_d[c]      = 1'b1;
        pend_addr_d[c] = base_q[c];
        pend_nb_d[c]   = run_nb_q[c];
        open_d[c]      = 1'b0;
      end
      if (accept) begin
        if (extend) begin
          run_nb_d[c] = run_nb_q[c] + NbW'(1);
        end else begin
          open_d[c]   = 1'b1;
          base_d[c]   = addr;
          run_nb_d[c] = NbW'(1);
        end
        // Full when the next beat would start a new block of the MRRS in use (Device
        // Control, at most MaxReadReq: a run never outgrows its tag's slot).
        full_d[c] = req_last_i[c] || (addr_plus & mrrs_mask_i) == 12'd0;
        idle_d[c] = '0;
      end else if (open_q[c] && idle_q[c] < GapW'(IdleGap)) begin
        idle_d[c] = idle_q[c] + GapW'(1);
      end
      if (flush_i[c]) begin
        open_d[c] = 1'b0;
        pend_d[c] = 1'b0;
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        open_q[c]      <= 1'b0;
        full_q[c]      <= 1'b0;
        base_q[c]      <= '0;
        run_nb_q[c]    <= '0;
        idle_q[c]      <= '0;
        pend_q[c]      <= 1'b0;
        pend_addr_q[c] <= '0;
        pend_nb_q[c]   <= '0;
      end else begin
        open_q[c]      <= open_d[c];
        full_q[c]      <= full_d[c];
        base_q[c]      <= base_d[c];
        run_nb_q[c]    <= run_nb_d[c];
        idle_q[c]      <= idle_d[c];
        pend_q[c]      <= pend_d[c];
        pend_addr_q[c] <= pend_addr_d[c];
        pend_nb_q[c]   <= pend_nb_d[c];
      end
    end
  end

  // ---------------------------------------------------------------------------------------
  // Issue: a free tag and the transmit side for one waiting MRd, clients in turn
  // ---------------------------------------------------------------------------------------
  logic [TagW-1:0]       free_tag;
  logic                  any_free;
  logic [CntW-1:0]       used0, used1;        // tags held by client 0 / 1 (orphans included)
  logic [NumClients-1:0] eligible;
  logic                  rr_d, rr_q;          // client served last
  logic                  sel;                 // client whose MRd is offered
  logic                  issue;

  always_comb begin
    free_tag = '0;
    any_free = 1'b0;
    for (int t = NumTags - 1; t >= 0; t--) begin
      if (!busy_q[t] && !quar_q[t]) begin
        free_tag = TagW'(t);
        any_free = 1'b1;
      end
    end
  end

  assign used0 = CntW'($countones(busy_q & ~client_q));
  assign used1 = CntW'($countones(busy_q & client_q));

  assign eligible[0] = pend_q[0] && any_free && used0 < CntW'(Client0Tags) && wr_empty_i;
  assign eligible[1] = pend_q[1] && any_free && used1 < CntW'(Client1Tags);
  assign sel         = (eligible[0] && eligible[1]) ? !rr_q : eligible[1];
  assign mrd_valid_o = |eligible;
  assign issue       = mrd_valid_o && mrd_ready_i;
  assign issue_c     = issue ? (sel ? 2'b10 : 2'b01) : 2'b00;
  assign rr_d        = issue ? sel : rr_q;

  assign mrd_addr_o   = pend_addr_q[sel];
  assign mrd_dwords_o = 10'(32'(pend_nb_q[sel]) << DwW);
  assign mrd_tag_o    = 8'(free_tag);

  // ---------------------------------------------------------------------------------------
  // Completions
  // ---------------------------------------------------------------------------------------
  logic [TagW-1:0]   ctag;            // tag of a first beat
  logic              f_known;         // ... names a request waiting for data
  logic              f_good;          // ... and continues it correctly (maybe poisoned)
  logic [NbW-1:0]    owed_beats;      // beats the request still waits for
  logic [NbW+BW-1:0] owed;            // ... in bytes
  logic [12:0]       bc;              // byte count, 1..4096
  logic [10:0]       dws;             // length, 1..1024
  logic [6:0]        next_lo7;        // lower address the next completion must carry
  logic [6:0]        rcvd_lo7;        // bytes the request received, bits 6:0
  logic              cur_on_d, cur_on_q;     // the current TLP's beats are written
  logic [TagW-1:0]   cur_tag_d, cur_tag_q;
  logic [NbW-1:0]    cur_left_d, cur_left_q; // its payload beats still to come
  logic              beat_on;
  logic [TagW-1:0]   beat_tag;
  logic [NbW-1:0]    beat_left;
  logic              cpl_we, cpl_fail, cpl_poison, cpl_drop;
  logic [MemAw-1:0]  cpl_waddr;

  assign ctag     = cpl_tag_i[TagW-1:0];
  assign f_known  = (cpl_tag_i >> TagW) == 8'd0 && waiting[ctag];
  assign owed_beats = nb_q[ctag] - rcvd_q[ctag];
  assign owed     = (NbW+BW)'(owed_beats) << BW;
  assign bc       = (cpl_byte_count_i == 12'd0) ? 13'd4096 : {1'b0, cpl_byte_count_i};
  assign dws      = (cpl_dwords_i == 10'd0) ? 11'd1024 : {1'b0, cpl_dwords_i};
  assign rcvd_lo7 = 7'(32'(rcvd_q[ctag]) << BW);
  assign next_lo7 = lo7_q[ctag] + rcvd_lo7;
  assign f_good   = f_known && cpl_status_i == 3'b000 && cpl_has_data_i &&
                    32'(bc) == 32'(owed) && dws[DwW-1:0] == '0 && {dws, 2'b00} <= 13'(bc) &&
                    cpl_lower_addr_i == next_lo7;

  assign beat_on   = cpl_first_i ? f_good : cur_on_q;
  assign beat_tag  = cpl_first_i ? ctag : cur_tag_q;
  assign beat_left = cpl_first_i ? NbW'(dws >> DwW) : cur_left_q;
  assign cpl_we    = cpl_valid_i && beat_on && beat_left != '0;
  // A known request fails on a bad first beat, a beat beyond the TLP's length, or a TLP that
  // ends before its length.
  assign cpl_fail  = cpl_valid_i && ((cpl_first_i && f_known && !f_good) ||
                                     (beat_on && beat_left == '0) ||
                                     (beat_on && cpl_last_i && beat_left != NbW'(1)));
  // A poisoned CplD is counted like a good one (later completions of its request still come
  // and are checked) but fails the request.
  assign cpl_poison = cpl_valid_i && cpl_first_i && f_good && cpl_poisoned_i;
  assign cpl_drop   = cpl_valid_i && cpl_first_i && !f_known;
  assign cpl_waddr = {beat_tag, SbW'(rcvd_q[beat_tag])};

  always_comb begin
    cur_on_d   = cur_on_q;
    cur_tag_d  = cur_tag_q;
    cur_left_d = cur_left_q;
    if (cpl_valid_i) begin
      cur_on_d   = beat_on && !cpl_fail && !cpl_last_i;
      cur_tag_d  = beat_tag;
      cur_left_d = beat_left - NbW'(cpl_we);
    end
  end

  // ---------------------------------------------------------------------------------------
  // Timeouts: one tag checked per cycle
  // ---------------------------------------------------------------------------------------
  logic [TimerW-1:0] now_q;
  logic [TagW-1:0]   scan_q;
  logic              tmo;
  logic              quar_end;  // the scanned tag's quarantine is over

  assign tmo = waiting[scan_q] && (now_q - stamp_q[scan_q]) >= TimerW'(Timeout) &&
               !(cur_on_q && cur_tag_q == scan_q) &&
               !(cpl_valid_i && cpl_first_i && ctag == scan_q);
  assign quar_end = quar_q[scan_q] && (now_q - stamp_q[scan_q]) >= TimerW'(Quarantine);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      now_q  <= '0;
      scan_q <= '0;
    end else begin
      now_q  <= now_q + TimerW'(1);
      scan_q <= scan_q + TagW'(1);
    end
  end

  // ---------------------------------------------------------------------------------------
  // Responses: request order per client, one buffer read per cycle
  // ---------------------------------------------------------------------------------------
  logic [NumClients-1:0] ord_valid, ord_ready, ord_push;
  logic [OrderW-1:0]     ord_head [NumClients];
  logic [NbW-1:0]        ob_d [NumClients];      // beats of the head request read out
  logic [NbW-1:0]        ob_q [NumClients];
  logic [NumClients-1:0] can_read;
  logic [NumClients-1:0] inflight_d, inflight_q; // a read for client c lands this cycle
  logic                  err_rd_d, err_rd_q;     // ... failed request
  logic                  rsel_d, rsel_q;         // client read last
  logic                  rsel;                   // client read this cycle
  logic                  mem_re;
  logic [MemAw-1:0]      mem_raddr;
  logic [W-1:0]          mem_rdata;
  logic                  rd_last;                // the read is the head request's last beat
  logic [TagW-1:0]       rd_tag;
  logic [1:0]            out_count [NumClients];
  logic [NumClients-1:0] out_push;

  for (genvar c = 0; c < NumClients; c++) begin : g_order
    logic [$clog2(NumTags + 1)-1:0] count;
    logic                           empty, in_ready;
    logic [TagW-1:0]                h;

    assign ord_push[c] = issue_c[c] && !flush_i[c];

    tpu_fifo #(
      .Width(OrderW),
      .Depth(NumTags)
    ) u_order (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .clear_i     (flush_i[c]),
      .in_valid_i  (ord_push[c]),
      .in_ready_o  (in_ready),
      .in_data_i   (OrderW'(free_tag)),
      .out_valid_o (ord_valid[c]),
      .out_ready_i (ord_ready[c]),
      .out_data_o  (ord_head[c]),
      .count_o     (count),
      .empty_o     (empty)
    );

    assign h = TagW'(ord_head[c]);
    assign can_read[c] = ord_valid[c] && (ob_q[c] < rcvd_q[h] || err_q[h]) &&
                         (32'(out_count[c]) + 32'(inflight_q[c])) < OutDepth;

    logic unused_order;
    assign unused_order = ^{count, empty, in_ready};
  end

  assign rsel      = (can_read[0] && can_read[1]) ? !rsel_q : can_read[1];
  assign mem_re    = |can_read;
  assign rd_tag    = TagW'(ord_head[rsel]);
  assign mem_raddr = {rd_tag, SbW'(ob_q[rsel])};
  assign rd_last   = ob_q[rsel] == nb_q[rd_tag] - NbW'(1);
  assign rsel_d    = mem_re ? rsel : rsel_q;
  assign err_rd_d  = err_q[rd_tag];

  always_comb begin
    for (int c = 0; c < NumClients; c++) begin
      ob_d[c]       = ob_q[c];
      ord_ready[c]  = 1'b0;
      inflight_d[c] = 1'b0;
      if (mem_re && rsel == c[0]) begin
        ob_d[c]       = rd_last ? '0 : ob_q[c] + NbW'(1);
        ord_ready[c]  = rd_last;
        inflight_d[c] = 1'b1;
      end
      if (flush_i[c]) begin
        ob_d[c]       = '0;
        inflight_d[c] = 1'b0;
      end
    end
  end

  tpu_mem_1r1w #(
    .Lanes    (1),
    .LaneWidth(W),
    .Depth    (NumTags * SlotBeats)
  ) u_buf (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .we_i    (cpl_we),
    .waddr_i (cpl_waddr),
    .wmask_i (1'b1),
    .wdata_i (cpl_data_i),
    .re_i    (mem_re),
    .raddr_i (mem_raddr),
    .rdata_o (mem_rdata)
  );

  // Output FIFOs: OutDepth beats per client; a read is issued only if its beat has room.
  for (genvar c = 0; c < NumClients; c++) begin : g_out
    logic       in_ready, empty;
    logic [W:0]   out_data;

    assign out_push[c] = inflight_q[c] && !flush_i[c];

    tpu_fifo #(
      .Width(W + 1),
      .Depth(OutDepth)
    ) u_out (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni),
      .clear_i     (flush_i[c]),
      .in_valid_i  (out_push[c]),
      .in_ready_o  (in_ready),
      .in_data_i   ({err_rd_q, mem_rdata}),
      .out_valid_o (rsp_valid_o[c]),
      .out_ready_i (rsp_ready_i[c]),
      .out_data_o  (out_data),
      .count_o     (out_count[c]),
      .empty_o     (empty)
    );

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) ob_q[c] <= '0;
      else         ob_q[c] <= ob_d[c];
    end

    assign rsp_data_o[W*c +: W] = out_data[W-1:0];
    assign rsp_error_o[c]       = out_data[W];

    logic unused_out;
    assign unused_out = ^{in_ready, empty};
  end

  // ---------------------------------------------------------------------------------------
  // Per-tag next state
  // ---------------------------------------------------------------------------------------
  // Each event names one tag (a flush: every tag of a client), so the flags are computed for
  // all tags at once, a bit per tag (iss_v and the other *_v: the tag the event names), and a
  // tag's counters and stamp are written only when an event names it. (A simulator evaluates a
  // few vector operations a cycle instead of every tag's next state: this block was a sixth of
  // the whole device's simulation time, docs/performance.md.)
  logic [NumTags-1:0] iss_v;       // issued: its MRd is sent
  logic [NumTags-1:0] cpl_v;       // a completion beat is written into its slot
  logic [NumTags-1:0] fail_v;      // a completion fails it
  logic [NumTags-1:0] tmo_v;       // it times out
  logic [NumTags-1:0] poison_v;    // a poisoned CplD for it
  logic [NumTags-1:0] rd_v;        // its last beat is read out
  logic [NumTags-1:0] qend_v;      // its quarantine ends
  logic [NumTags-1:0] flushed_v;   // its client is flushed
  logic               cpl_all;     // the beat written is its request's last
  logic [NumTags-1:0] done_v;      // every beat received, this cycle's included
  logic [NumTags-1:0] complete_v;  // no completion expected any more (done or terminated)

  assign iss_v      = issue ? NumTags'(1) << free_tag : '0;
  assign cpl_v      = (cpl_we ? NumTags'(1) << beat_tag : '0) & busy_q;
  assign fail_v     = cpl_fail ? NumTags'(1) << beat_tag : '0;
  assign tmo_v      = tmo ? NumTags'(1) << scan_q : '0;
  assign poison_v   = cpl_poison ? NumTags'(1) << beat_tag : '0;
  assign rd_v       = (mem_re && rd_last) ? NumTags'(1) << rd_tag : '0;
  assign qend_v     = quar_end ? NumTags'(1) << scan_q : '0;
  assign flushed_v  = (client_q & {NumTags{flush_i[1]}}) | (~client_q & {NumTags{flush_i[0]}});
  assign cpl_all    = rcvd_q[beat_tag] + NbW'(1) == nb_q[beat_tag];
  assign done_v     = (all_rcvd & ~cpl_v) | (cpl_v & {NumTags{cpl_all}});

  // An issued tag starts afresh (it was neither busy nor quarantined). A busy one: a flush
  // makes it an orphan; a failing completion or a timeout terminates it (no further completion
  // is expected) and fails it, a poisoned CplD only fails it. It is freed when its last beat is
  // read out, unless completions are still expected (a poisoned request read out early): it
  // then waits as an orphan; orphans are freed when nothing more is expected.
  assign term_d     = ~iss_v & (term_q | (busy_q & (fail_v | tmo_v)));
  assign complete_v = term_d | done_v;
  assign busy_d     = (busy_q & ~(complete_v & (rd_v | orphan_q | flushed_v))) | iss_v;
  assign orphan_d   = (iss_v & {NumTags{flush_i[sel]}}) |
                      (~iss_v & (orphan_q | (busy_q & (flushed_v | (rd_v & ~complete_v)))));
  assign client_d   = (iss_v & {NumTags{sel}}) | (~iss_v & client_q);
  assign err_d      = ~iss_v & (err_q | (busy_q & (fail_v | tmo_v | poison_v)));
  // A timeout starts the tag's quarantine.
  assign quar_d     = (quar_q & ~qend_v) | (busy_q & tmo_v);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q   <= '0;
      orphan_q <= '0;
      client_q <= '0;
      err_q    <= '0;
      term_q   <= '0;
      quar_q   <= '0;
    end else begin
      busy_q   <= busy_d;
      orphan_q <= orphan_d;
      client_q <= client_d;
      err_q    <= err_d;
      term_q   <= term_d;
      quar_q   <= quar_d;
    end
  end

  for (genvar t = 0; t < NumTags; t++) begin : g_tag
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        nb_q[t]    <= '0;
        rcvd_q[t]  <= '0;
        lo7_q[t]   <= '0;
        stamp_q[t] <= '0;
      end else if (iss_v[t]) begin
        nb_q[t]    <= pend_nb_q[sel];
        rcvd_q[t]  <= '0;
        lo7_q[t]   <= pend_addr_q[sel][6:0];
        stamp_q[t] <= now_q;
      end else begin
        if (cpl_v[t]) rcvd_q[t] <= rcvd_q[t] + NbW'(1);
        // The stamp, no longer needed for the timeout, now times the quarantine.
        if (busy_q[t] && tmo_v[t]) stamp_q[t] <= now_q;
      end
    end
  end

  // ---------------------------------------------------------------------------------------
  // Shared registers and status
  // ---------------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rr_q       <= 1'b0;
      rsel_q     <= 1'b0;
      cur_on_q   <= 1'b0;
      cur_tag_q  <= '0;
      cur_left_q <= '0;
      inflight_q <= '0;
      err_rd_q   <= 1'b0;
    end else begin
      rr_q       <= rr_d;
      rsel_q     <= rsel_d;
      cur_on_q   <= cur_on_d;
      cur_tag_q  <= cur_tag_d;
      cur_left_q <= cur_left_d;
      inflight_q <= inflight_d;
      err_rd_q   <= err_rd_d;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Failure report
  // ---------------------------------------------------------------------------------------
  logic            cpl_fail_new, poison_new, tmo_new;
  logic [TagW-1:0] fail_tag;

  assign cpl_fail_new = cpl_fail && !err_q[beat_tag] && !orphan_q[beat_tag];
  assign poison_new   = cpl_poison && !err_q[beat_tag] && !orphan_q[beat_tag];
  assign tmo_new      = tmo && !err_q[scan_q] && !orphan_q[scan_q];

  assign fail_tag      = (cpl_fail_new || poison_new) ? beat_tag : scan_q;
  assign fail_o        = cpl_fail_new || poison_new || tmo_new;
  assign fail_kind_o   = cpl_fail_new ? 2'd0 : poison_new ? 2'd1 : 2'd2;
  // A later beat of a TLP fails on its length only: its first beat's status was SC.
  assign fail_status_o = cpl_first_i ? cpl_status_i : 3'b000;
  assign fail_client_o = client_q[fail_tag];
  assign fail_tag_o    = 8'(fail_tag);

  assign busy_o           = (|busy_q) || (|open_q) || (|pend_q);
  assign cpl_unexpected_o = cpl_drop;
  assign timeout_o        = tmo;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(TlpWidthLegal, TlpWidth == 128 || TlpWidth == 256 || TlpWidth == 512)
  // At least two beats per tag slot (a beat index of at least one bit).
  `TPU_ASSERT_INIT(MaxReadReqLegal, MaxReadReq >= 64 && MaxReadReq >= 2 * B &&
                                    MaxReadReq <= 4096 && (MaxReadReq & (MaxReadReq - 1)) == 0)
  `TPU_ASSERT_INIT(NumTagsLegal, NumTags >= 2 && NumTags <= 256 &&
                                 (NumTags & (NumTags - 1)) == 0)
  `TPU_ASSERT_INIT(ClientTagsLegal, Client0Tags >= 1 && Client1Tags >= 1 &&
                                    Client0Tags + Client1Tags <= NumTags)
  `TPU_ASSERT_INIT(TimeoutLegal, Timeout >= 2 * NumTags)
  `TPU_ASSERT(RequestBeatAligned, !req_valid_i[0] || req_addr_i[BW-1:0] == '0, clk_i, rst_ni)
  `TPU_ASSERT(RequestBeatAligned1, !req_valid_i[1] || req_addr_i[64 +: BW] == '0,
              clk_i, rst_ni)
  // (Array selects computed outside the assertions: Verilator 5.006 fails on them inside.)
  logic chk_free, chk_in_slot, chk_has_data, chk_fits;
  assign chk_free     = !busy_q[free_tag] && !quar_q[free_tag];
  assign chk_in_slot  = rcvd_q[beat_tag] < nb_q[beat_tag];
  assign chk_has_data = ob_q[rsel] < rcvd_q[rd_tag] || err_q[rd_tag];
  assign chk_fits     = pend_nb_q[sel] != '0 && pend_nb_q[sel] <= NbW'(SlotBeats);
  `TPU_ASSERT(IssueHasFreeTag, !issue || chk_free, clk_i, rst_ni)
  `TPU_ASSERT(WriteInSlot, !cpl_we || chk_in_slot, clk_i, rst_ni)
  `TPU_ASSERT(ReadHasData, !mem_re || chk_has_data, clk_i, rst_ni)
  `TPU_ASSERT(RunFitsSlot, !issue || chk_fits, clk_i, rst_ni)

endmodule
