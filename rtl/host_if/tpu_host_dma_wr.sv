`include "tpu_assert.svh"
// DMA write engine of the host interface (docs/host_if.md section 4): turns the core's write
// beats (a beat address, B = TlpWidth / 8 bytes and a byte mask; the core's beats reach it
// through tpu_host_beat_adapter) into MWr TLPs.
//
// Runs: consecutive beats whose written bytes form one contiguous byte range (the first beat's
// mask ends at byte B - 1, the following beats are full, the last one's mask starts at byte 0)
// coalesce into one MWr of up to MPS bytes that never crosses an MPS-aligned (hence 4 KiB)
// boundary, MPS being the size in use (mps_mask_i + 1: Device Control's, at most MaxPayload;
// a run open when it changes ends at the next boundary of the new size): its first and last
// DW byte enables cover the partial DWs at the ends. A run is sent when a beat does not
// continue it, when it ends in a partial beat or at an MPS boundary, when close_i is high (a read follows: tpu_host_if raises it when the
// core's read is taken), or after IdleGap cycles without a beat. A beat whose mask is not one
// contiguous range is sent as one 1-DW MWr per DW with bytes to write, carrying that DW's byte
// enables as they are; a beat with an empty mask is taken and dropped.
//
// Storage: the beats wait in a data FIFO (DataDepth rows of TlpWidth bits), the TLPs formed from
// them in a descriptor FIFO (address of the first DW, length, byte enables, beats, DW shift).
// The transmit side takes a TLP's header fields on hdr_* and then its payload on pay_*;
// payload DW d is DW (shift + d) of the run's bytes, so the beats are shifted down by the run's
// first DW (the TLP stream carries payload beat aligned, docs/host_if.md section 1). DWs past
// the TLP's length in its last beat are zero.
//
// empty_o: no beat, run or TLP is left (every write TLP has been handed to the transmit side),
// so an MSI sent after it follows every write. flush_i (soft reset) drops everything except
// the payload of a TLP whose header the transmit side already took, which is still sent whole.
//
// Depth (docs/fpga.md, the logic-depth budget): no 64-bit carry chain lies on a path. Whether
// a beat continues the open run is tested without forming the run's next address, and the
// descriptors' first-DW addresses come from tpu_add_short (a plain `+` maps to a ripple chain,
// which made run_nb_q -> req_ready_o -> dcount_q 81 gate levels deep).
//
// Latency: a beat is taken in the cycle it is offered while the FIFOs have room; a closed
// run's header is offered in the cycle after it closed; one payload beat per cycle.
module tpu_host_dma_wr #(
  parameter int unsigned MaxPayload = 256,                   // MPS in bytes: 2^k, B .. 4096
  parameter int unsigned IdleGap    = 4,                     // cycles without a beat: send
  parameter int unsigned TlpWidth   = 128,                   // beat bits: 128, 256 or 512
  parameter int unsigned DataDepth  = 2 * MaxPayload / (TlpWidth / 8),  // beats buffered: 2^k
  parameter int unsigned DescDepth  = 4,                     // TLPs formed and not yet sent
  localparam int unsigned W = TlpWidth,                      // beat bits
  localparam int unsigned B = TlpWidth / 8                   // beat bytes
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         flush_i,         // soft reset: drop everything not yet started
  input  logic         close_i,         // send the open run now
  input  logic [11:0]  mps_mask_i,      // MPS in use - 1 (<= MaxPayload - 1)
  // Write beats.
  input  logic         req_valid_i,     // a beat is offered
  output logic         req_ready_o,     // ... and taken this cycle
  input  logic [63:0]  req_addr_i,      // host address of the beat, a multiple of B
  input  logic [W-1:0] req_data_i,      // byte b at [8b +: 8]
  input  logic [B-1:0] req_mask_i,      // bytes to write
  // MWr header fields to the transmit side.
  output logic         hdr_valid_o,     // a TLP is ready
  input  logic         hdr_ready_i,     // ... and its header is sent (taken) this cycle
  output logic [63:0]  hdr_addr_o,      // address of the first DW (bits 1:0 zero)
  output logic [9:0]   hdr_dwords_o,    // length in DWs (0 = 1024)
  output logic [3:0]   hdr_first_be_o,  // first DW byte enables
  output logic [3:0]   hdr_last_be_o,   // last DW byte enables (0 for 1 DW)
  // Payload beats of the TLP whose header was taken.
  output logic         pay_valid_o,     // a payload beat is offered
  input  logic         pay_ready_i,     // ... and taken this cycle
  output logic [W-1:0] pay_data_o,      // payload DW d at [32d +: 32]
  output logic         pay_last_o,      // the TLP's last beat
  // Status.
  output logic         empty_o          // nothing buffered, every TLP handed over
);

  localparam int unsigned D     = TlpWidth / 32;              // DWs per beat
  localparam int unsigned BW    = $clog2(B);                  // byte index in a beat
  localparam int unsigned DwW   = $clog2(D);                  // DW index in a beat
  localparam int unsigned PtrW  = $clog2(DataDepth);           // data FIFO index
  localparam int unsigned CntW  = $clog2(DataDepth + 1);       // beats held
  localparam int unsigned MaxNb = MaxPayload / B;              // beats per run
  localparam int unsigned NbW   = $clog2(MaxNb + 1);           // beats of a run
  localparam int unsigned GapW  = $clog2(IdleGap + 1);         // idle counter
  localparam int unsigned DcW   = $clog2(DescDepth + 1);       // descriptors held
  localparam int unsigned DescW = 64 + 11 + 4 + 4 + DwW + NbW + 1;  // descriptor bits

  // ---------------------------------------------------------------------------------------
  // The offered beat's mask
  // ---------------------------------------------------------------------------------------
  logic [BW-1:0] lo, hi;        // lowest and highest byte written
  logic [B:0]    shifted;       // mask >> lo
  logic          m_zero, m_contig;
  logic [3:0]    nib [D];       // byte enables of DW d

  always_comb begin
    lo = '0;
    hi = '0;
    for (int b = B - 1; b >= 0; b--) begin
      if (req_mask_i[b]) lo = BW'(b);
    end
    for (int b = 0; b < B; b++) begin
      if (req_mask_i[b]) hi = BW'(b);
    end
  end

  assign shifted  = {1'b0, req_mask_i} >> lo;
  assign m_zero   = req_mask_i == '0;
  assign m_contig = !m_zero && ((shifted + (B+1)'(1)) & shifted) == '0;

  for (genvar d = 0; d < D; d++) begin : g_nib
    assign nib[d] = req_mask_i[4*d +: 4];
  end

  // ---------------------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------------------
  // Open run: beats [run_addr, run_addr + B * run_nb), bytes from run_lo of the first beat to
  // run_hi of the last; done when it cannot grow.
  logic             open_d, open_q, done_d, done_q;
  logic [63:0]      run_addr_d, run_addr_q;
  logic [BW-1:0]    run_lo_d, run_lo_q, run_hi_d, run_hi_q;
  logic [NbW-1:0]   run_nb_d, run_nb_q;
  logic [GapW-1:0]  idle_d, idle_q;
  // A non-contiguous beat being split into 1-DW writes: DWs left, their masks, beat address.
  logic [D-1:0]     split_d, split_q;
  logic [B-1:0]     split_mask_d, split_mask_q;
  logic [63:0]      split_addr_d, split_addr_q;
  // Data FIFO.
  logic [PtrW-1:0]  wp_d, wp_q, rp_d, rp_q;
  logic [CntW-1:0]  dcount_d, dcount_q;
  // Output: the head TLP is being sent (header taken), beat j of it.
  logic             active_d, active_q, flushing_d, flushing_q;
  logic [NbW-1:0]   j_d, j_q;

  // ---------------------------------------------------------------------------------------
  // Input: runs, splits, descriptors
  // ---------------------------------------------------------------------------------------
  logic             data_room, desc_room, desc_push, drop_now;
  logic [DescW-1:0] desc_in, desc_out;
  logic             desc_valid, desc_pop, desc_empty, desc_in_ready;
  logic [DcW-1:0]   desc_count;
  logic [63:0]      run_bytes;
  logic [62:0]      run_carry;  // carry out of bit i
  logic             at_next;    // req_addr_i is the open run's next beat
  logic [11:0]      addr_plus;  // the next beat's address bits 11:0 (MPS is at most 4 KiB)
  logic             extend, close_run, dwrite;
  // The open run as a descriptor.
  logic [DwW-1:0]   r_fd;
  logic [10:0]      r_dwords;
  logic [3:0]       r_first_be, r_last_be;
  // The next 1-DW write of a split.
  logic [DwW-1:0]   s_dw;
  logic [D-1:0]     s_rest;
  // The descriptors' first-DW addresses, of logarithmic depth (a plain 64-bit `+` maps to a
  // ripple chain, the block's deepest path).
  logic [63:0]      r_addr, s_addr;

  tpu_add_short #(
    .Width (64),
    .ShortW(BW)
  ) u_run_addr (
    .a_i  (run_addr_q),
    .b_i  ({r_fd, 2'b00}),
    .sum_o(r_addr)
  );

  tpu_add_short #(
    .Width (64),
    .ShortW(BW)
  ) u_split_addr (
    .a_i  (split_addr_q),
    .b_i  ({s_dw, 2'b00}),
    .sum_o(s_addr)
  );

  // Room from registers only (not from this cycle's pops): no path from the transmit side's
  // ready to req_ready_o.
  assign data_room = dcount_q != CntW'(DataDepth);
  assign desc_room = desc_count != DcW'(DescDepth);
  // at_next is req_addr_i == run_addr_q + run_bytes compared without the sum's carry chain (a
  // 64-bit add then compare would be the deepest path, through req_ready_o): the sum equals
  // req_addr_i exactly when every bit's carry in, read off as run_addr ^ run_bytes ^ req_addr,
  // is the carry the bit below makes with that sum bit (run_carry), so every bit is checked at
  // once.
  assign run_bytes = 64'(run_nb_q) << BW;
  assign run_carry = (run_addr_q[62:0] & run_bytes[62:0]) |
                     ((run_addr_q[62:0] | run_bytes[62:0]) & ~req_addr_i[62:0]);
  assign at_next   = (run_addr_q ^ run_bytes ^ req_addr_i) == {run_carry, 1'b0};
  assign addr_plus = req_addr_i[11:0] + 12'(B);
  // The beat can continue the open run (unless the run is sent in this cycle anyway: then
  // the beat starts the next run).
  assign extend    = open_q && !done_q && at_next && m_contig && lo == '0;
  assign drop_now  = (flush_i || flushing_q) && !active_q;

  always_comb begin
    r_fd       = run_lo_q[BW-1:2];
    r_dwords   = (11'(run_nb_q) << DwW) - 11'(D) + 11'(run_hi_q[BW-1:2]) - 11'(r_fd) + 11'd1;
    r_first_be = 4'b1111 << run_lo_q[1:0];
    r_last_be  = 4'b1111 >> (2'd3 - run_hi_q[1:0]);
    if (r_dwords == 11'd1) begin
      r_first_be = r_first_be & r_last_be;
      r_last_be  = 4'b0000;
    end
  end

  always_comb begin
    s_dw = '0;
    for (int d = D - 1; d >= 0; d--) begin
      if (split_q[d]) s_dw = DwW'(d);
    end
    s_rest = split_q & ~(D'(1) << s_dw);
  end

  // Whether the offered beat can be taken, from its address and mask (not from req_valid_i,
  // so that the core's request logic sees no combinational path back to its valid).
  always_comb begin
    req_ready_o = 1'b0;
    if (!flush_i && !flushing_q && split_q == '0) begin
      if (m_zero) begin
        req_ready_o = 1'b1;
      end else if (extend) begin
        req_ready_o = data_room;
      end else if (m_contig) begin
        req_ready_o = data_room && (!open_q || desc_room);
      end else begin
        req_ready_o = data_room && !open_q;
      end
    end
  end

  // One descriptor push per cycle: a split's next DW, or the open run.
  always_comb begin
    open_d       = open_q;
    done_d       = done_q;
    run_addr_d   = run_addr_q;
    run_lo_d     = run_lo_q;
    run_hi_d     = run_hi_q;
    run_nb_d     = run_nb_q;
    idle_d       = idle_q;
    split_d      = split_q;
    split_mask_d = split_mask_q;
    split_addr_d = split_addr_q;
    desc_push    = 1'b0;
    desc_in      = '0;
    close_run    = 1'b0;
    dwrite       = 1'b0;
    if (flush_i || flushing_q) begin
      open_d  = 1'b0;
      split_d = '0;
    end else if (split_q != '0) begin
      // Split beat: one 1-DW write per cycle; the last one releases the beat.
      desc_push = desc_room;
      desc_in   = {s_addr, 11'd1,
                   split_mask_q[4*s_dw +: 4], 4'b0000, s_dw, NbW'(1), s_rest == '0};
      if (desc_room) split_d = s_rest;
    end else begin
      close_run = open_q && (done_q || idle_q >= GapW'(IdleGap) || close_i ||
                             (req_valid_i && !m_zero && !extend));
      if (close_run && desc_room) begin
        desc_push = 1'b1;
        desc_in   = {r_addr, r_dwords, r_first_be, r_last_be, r_fd,
                     run_nb_q, 1'b1};
        open_d    = 1'b0;
      end
      if (req_valid_i && req_ready_o && !m_zero) begin
        dwrite = 1'b1;
        idle_d = '0;
        if (extend && !desc_push) begin
          run_nb_d = run_nb_q + NbW'(1);
          run_hi_d = hi;
          done_d   = hi != BW'(B - 1) || (addr_plus & mps_mask_i) == 12'd0;
        end else if (m_contig) begin
          open_d     = 1'b1;
          run_addr_d = req_addr_i;
          run_lo_d   = lo;
          run_hi_d   = hi;
          run_nb_d   = NbW'(1);
          done_d     = hi != BW'(B - 1) || (addr_plus & mps_mask_i) == 12'd0;
        end else begin
          for (int d = 0; d < D; d++) split_d[d] = nib[d] != '0;
          split_mask_d = req_mask_i;
          split_addr_d = req_addr_i;
        end
      end else if (open_q && !close_run && idle_q < GapW'(IdleGap)) begin
        idle_d = idle_q + GapW'(1);
      end
    end
  end

  tpu_fifo #(
    .Width(DescW),
    .Depth(DescDepth)
  ) u_desc (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .clear_i     (drop_now),
    .in_valid_i  (desc_push),
    .in_ready_o  (desc_in_ready),
    .in_data_i   (desc_in),
    .out_valid_o (desc_valid),
    .out_ready_i (desc_pop),
    .out_data_o  (desc_out),
    .count_o     (desc_count),
    .empty_o     (desc_empty)
  );

  // ---------------------------------------------------------------------------------------
  // Data FIFO: one write port, two asynchronous read ports (beats j and j + 1 of the head TLP)
  // ---------------------------------------------------------------------------------------
  logic [W-1:0] dmem [DataDepth];
  logic [W-1:0] beat0, beat1;

  always_ff @(posedge clk_i) begin
    if (dwrite) dmem[wp_q] <= req_data_i;
  end

  // ---------------------------------------------------------------------------------------
  // Output
  // ---------------------------------------------------------------------------------------
  logic [63:0]    h_addr;
  logic [10:0]    h_dwords;
  logic [3:0]     h_first_be, h_last_be;
  logic [DwW-1:0] h_shift;
  logic [NbW-1:0] h_nb, h_pbeats;
  logic           h_release, pay_fire, last_beat;
  logic [2*W-1:0] pair;
  logic [W-1:0]   shifted_beat;
  logic [DwW-1:0] tail_dws;        // DWs of the last beat, 0 = D

  assign {h_addr, h_dwords, h_first_be, h_last_be, h_shift, h_nb, h_release} = desc_out;
  assign h_pbeats = NbW'((h_dwords + 11'(D - 1)) >> DwW);

  assign beat0        = dmem[rp_q + PtrW'(j_q)];
  assign beat1        = dmem[rp_q + PtrW'(j_q) + PtrW'(1)];
  assign pair         = {beat1, beat0};
  assign shifted_beat = W'(pair >> {h_shift, 5'b00000});
  assign tail_dws     = h_dwords[DwW-1:0];
  assign last_beat    = j_q == h_pbeats - NbW'(1);

  always_comb begin
    pay_data_o = shifted_beat;
    if (last_beat && tail_dws != '0) begin
      for (int d = 1; d < D; d++) begin
        if (DwW'(d) >= tail_dws) pay_data_o[32*d +: 32] = '0;
      end
    end
  end

  assign hdr_valid_o    = desc_valid && !active_q && !flushing_q && !flush_i;
  assign hdr_addr_o     = h_addr;
  assign hdr_dwords_o   = h_dwords[9:0];
  assign hdr_first_be_o = h_first_be;
  assign hdr_last_be_o  = h_last_be;
  assign pay_valid_o    = active_q;
  assign pay_last_o     = last_beat;
  assign pay_fire       = pay_valid_o && pay_ready_i;
  assign desc_pop       = pay_fire && last_beat;

  always_comb begin
    active_d   = active_q;
    j_d        = j_q;
    rp_d       = rp_q;
    wp_d       = wp_q + PtrW'(dwrite);
    dcount_d   = dcount_q + CntW'(dwrite);
    flushing_d = flushing_q || (flush_i && active_q);
    if (hdr_valid_o && hdr_ready_i) begin
      active_d = 1'b1;
      j_d      = '0;
    end
    if (pay_fire) begin
      j_d = j_q + NbW'(1);
      if (last_beat) begin
        active_d = 1'b0;
        if (h_release) begin
          rp_d     = rp_q + PtrW'(h_nb);
          dcount_d = dcount_d - CntW'(h_nb);
        end
      end
    end
    if (drop_now) begin
      rp_d       = '0;
      wp_d       = '0;
      dcount_d   = '0;
      flushing_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      open_q       <= 1'b0;
      done_q       <= 1'b0;
      run_addr_q   <= '0;
      run_lo_q     <= '0;
      run_hi_q     <= '0;
      run_nb_q     <= '0;
      idle_q       <= '0;
      split_q      <= '0;
      split_mask_q <= '0;
      split_addr_q <= '0;
      wp_q         <= '0;
      rp_q         <= '0;
      dcount_q     <= '0;
      active_q     <= 1'b0;
      flushing_q   <= 1'b0;
      j_q          <= '0;
    end else begin
      open_q       <= open_d;
      done_q       <= done_d;
      run_addr_q   <= run_addr_d;
      run_lo_q     <= run_lo_d;
      run_hi_q     <= run_hi_d;
      run_nb_q     <= run_nb_d;
      idle_q       <= idle_d;
      split_q      <= split_d;
      split_mask_q <= split_mask_d;
      split_addr_q <= split_addr_d;
      wp_q         <= wp_d;
      rp_q         <= rp_d;
      dcount_q     <= dcount_d;
      active_q     <= active_d;
      flushing_q   <= flushing_d;
      j_q          <= j_d;
    end
  end

  logic unused_desc;
  assign unused_desc = ^{desc_empty, desc_in_ready};

  assign empty_o = !open_q && split_q == '0 && !desc_valid && !active_q && dcount_q == '0;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(TlpWidthLegal, TlpWidth == 128 || TlpWidth == 256 || TlpWidth == 512)
  `TPU_ASSERT_INIT(MaxPayloadLegal, MaxPayload >= B && MaxPayload <= 4096 &&
                                    (MaxPayload & (MaxPayload - 1)) == 0)
  `TPU_ASSERT_INIT(DataDepthLegal, DataDepth > MaxPayload / B &&
                                   (DataDepth & (DataDepth - 1)) == 0)
  `TPU_ASSERT(BeatAligned, !req_valid_i || req_addr_i[BW-1:0] == '0, clk_i, rst_ni)
  `TPU_ASSERT(RunFits, !open_q || (run_nb_q != '0 && run_nb_q <= NbW'(MaxNb)), clk_i, rst_ni)
  `TPU_ASSERT(DataHeld, dcount_q <= CntW'(DataDepth), clk_i, rst_ni)
  `TPU_ASSERT(PayloadBuffered, !active_q || 32'(j_q) < 32'(dcount_q), clk_i, rst_ni)

endmodule
