`include "tpu_assert.svh"
// DMA unit sequencer (docs/controller.md, sections 1a and 2): runs READ_HOST and WRITE_HOST,
// one instruction at a time, in queue order.
//
// An instruction is popped into registers (its sizes, offsets and byte masks are computed on
// the way in), then asks for its `wait` tokens (take_*; dropped instead while abort_i is high),
// then runs:
// - READ_HOST requests the host beats covering [host, host + length) on hm_req_* (one per cycle
//   while hm_req_ready_i), takes the responses in order, realigns the bytes from host offset
//   host % N to the destination offset (0 for the UB, dest % N for dram, param and lut) and
//   offers destination rows with byte masks on dst_*. It completes when the last row is taken.
// - WRITE_HOST requests UB rows ub, ub + 1, ... on ub_rd_req_* (one per cycle while
//   ub_rd_req_ready_i), realigns their bytes to the host offset host % N and sends write beats
//   with byte masks on hm_req_*. It completes when the last write beat is taken.
// On completion give_valid_o pulses once with the `signal` mask, in the cycle after the last row
// or beat was taken; the next instruction may be popped in that same cycle.
//
// Realignment: one register holds the previous input beat P; an arriving beat B makes the output
// row ({B, P} >> 8 * delta)[8N-1:0], delta = (source offset - destination offset) mod N. When
// the source offset is at least the destination offset, the first beat only fills P; after the
// last beat, one more row may be flushed from P alone. Every row goes through one output
// register (dst_* for READ_HOST, the hm_req_* write beat for WRITE_HOST), so the unit moves one
// beat per cycle each way when its ports are always ready.
//
// Outstanding reads: the unit itself puts no bound on the host read requests in flight (a
// counter tracks them); the host side bounds them with hm_req_ready_i and the unit
// back-pressures the responses with hm_rsp_ready_o (combinational from dst_ready_i through the
// output register). UB reads are bounded by the UB (its response buffer holds 2 rows and its
// request ready falls while it is full); ub_rd_rsp_ready_o depends on hm_req_ready_i the same way.
//
// DMA_ERROR: a response with hm_rsp_error_i stops the instruction: no request or row is
// started after it (a request or a row already offered when the error arrives stays offered
// until taken, so that valid never falls without a handshake; such a row holds bytes of good
// beats only), the responses of the requests already sent are taken and dropped, error_o
// pulses in the next cycle with the instruction's index, and the unit goes idle without a give.
//
// Latency: pop -> take (1 cycle) -> first request in the cycle after the grant.
module tpu_ctrl_dma #(
  parameter int unsigned N      = tpu_pkg::MxuDim,   // bytes per UB row = host beat bytes
  parameter int unsigned UbRows = tpu_pkg::UbDepth,  // UB rows
  localparam int unsigned RowWidth = 8 * N,                               // bits per row/beat
  localparam int unsigned AwUb     = (UbRows > 1) ? $clog2(UbRows) : 1,   // UB row address bits
  localparam int unsigned HostW    = tpu_isa_pkg::HostAddrBits,           // host address bits
  localparam int unsigned DestW    = tpu_isa_pkg::ReadHostDestWidth       // READ_HOST dest bits
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                abort_i,             // level: drop an instruction not yet started
  // Queue head.
  input  logic                instr_valid_i,       // instr_i / index_i hold the queue head
  output logic                instr_ready_o,       // ... and the unit pops it this cycle
  input  logic [127:0]        instr_i,             // READ_HOST or WRITE_HOST, already checked
  input  logic [31:0]         index_i,             // its instruction index
  // Tokens (tpu_ctrl_tokens port 1).
  output logic                take_valid_o,        // the held instruction asks for its tokens
  output logic [7:0]          take_mask_o,         // ... its `wait` mask
  input  logic                take_grant_i,        // ... and gets them this cycle
  output logic                give_valid_o,        // one-cycle pulse: the instruction completed
  output logic [7:0]          give_mask_o,         // ... its `signal` mask
  // Status.
  output logic                idle_o,              // no instruction held or in flight
  output logic                blocked_o,           // waiting for tokens
  output logic                error_o,             // one-cycle pulse: DMA_ERROR
  output logic [7:0]          error_code_o,        // ... tpu_isa_pkg::ErrDmaError
  output logic [31:0]         error_index_o,       // ... index of the failed instruction
  output logic                stall_dep_o,         // waiting for tokens (perf_stall_dep)
  output logic                stall_o,             // waiting for the host port (perf_stall_dma)
  output logic                row_o,               // one-cycle pulse per row moved
  // Host memory: one beat of N bytes per request, responses in request order.
  output logic                hm_req_valid_o,      // a request is offered
  input  logic                hm_req_ready_i,      // ... and taken this cycle
  output logic                hm_req_write_o,      // 1 write, 0 read
  output logic [HostW-1:0]    hm_req_addr_o,       // host byte address of the beat, multiple of N
  output logic [RowWidth-1:0] hm_req_wdata_o,      // write data, byte b at [8b +: 8]
  output logic [N-1:0]        hm_req_wmask_o,      // bytes written (bit b: byte b)
  input  logic                hm_rsp_valid_i,      // read data of the oldest read request
  output logic                hm_rsp_ready_o,      // ... taken this cycle
  input  logic [RowWidth-1:0] hm_rsp_rdata_i,      // read data, byte b at [8b +: 8]
  input  logic                hm_rsp_error_i,      // this beat failed -> DMA_ERROR
  // Destination rows of READ_HOST.
  output logic                dst_valid_o,         // a row write is offered
  input  logic                dst_ready_i,         // ... and taken this cycle
  output logic [1:0]          dst_target_o,        // tpu_isa_pkg::target_e
  output logic [DestW-1:0]    dst_row_o,           // ub: UB row; else byte address / N
  output logic [RowWidth-1:0] dst_data_o,          // byte b of the row at [8b +: 8]
  output logic [N-1:0]        dst_mask_o,          // bytes written
  // UB read port of WRITE_HOST (tpu_ub dma_rd_*).
  output logic                ub_rd_req_valid_o,   // a UB row read is requested
  input  logic                ub_rd_req_ready_i,   // ... and accepted this cycle
  output logic [AwUb-1:0]     ub_rd_req_addr_o,    // the row
  input  logic                ub_rd_rsp_valid_i,   // ub_rd_rsp_data_i holds the oldest row
  output logic                ub_rd_rsp_ready_o,   // ... taken this cycle
  input  logic [RowWidth-1:0] ub_rd_rsp_data_i     // byte b at [8b +: 8]
);

  localparam int unsigned LenW = tpu_isa_pkg::ReadHostLengthWidth;  // length field bits
  localparam int unsigned CntW = LenW + 1;                           // beats or rows of a transfer
  localparam int unsigned NumW = CntW + 1;                           // ... before the division
  localparam int unsigned OffW = (N > 1) ? $clog2(N) : 1;            // byte offset in a beat
  localparam int unsigned AddrW = HostW;                             // address registers

  typedef enum logic [1:0] {
    StIdle = 2'd0,  // nothing held
    StTake = 2'd1,  // holding an instruction, asking for its tokens
    StRun  = 2'd2   // transferring (or draining after DMA_ERROR)
  } state_e;

  // ---------------------------------------------------------------------------------------
  // Queue head: fields, and the transfer's geometry
  // ---------------------------------------------------------------------------------------
  logic             hd_write;
  logic [1:0]       hd_target;
  logic [DestW-1:0] hd_dest;
  logic [LenW-1:0]  hd_len;
  logic [HostW-1:0] hd_host, hd_host_beat;
  logic [tpu_isa_pkg::WriteHostUbWidth-1:0] hd_ub;
  logic [OffW-1:0]  hd_host_off, hd_dest_off, hd_src_off, hd_dst_off, hd_delta, hd_end_off;
  logic [DestW-1:0] hd_row_base;
  logic [NumW-1:0]  hd_in_num, hd_out_num;
  logic [CntW-1:0]  hd_n_in, hd_n_out;
  logic [N-1:0]     hd_first_mask, hd_last_mask;

  always_comb begin
    hd_write  = instr_i[tpu_isa_pkg::OpcodeLsb +: tpu_isa_pkg::OpcodeWidth] ==
                tpu_isa_pkg::OpWriteHost;
    hd_target = instr_i[tpu_isa_pkg::ReadHostTargetLsb +: tpu_isa_pkg::ReadHostTargetWidth];
    hd_dest   = instr_i[tpu_isa_pkg::ReadHostDestLsb +: tpu_isa_pkg::ReadHostDestWidth];
    hd_len    = instr_i[tpu_isa_pkg::ReadHostLengthLsb +: tpu_isa_pkg::ReadHostLengthWidth];
    hd_host   = instr_i[tpu_isa_pkg::ReadHostHostLsb +: tpu_isa_pkg::ReadHostHostWidth];
    hd_ub     = instr_i[tpu_isa_pkg::WriteHostUbLsb +: tpu_isa_pkg::WriteHostUbWidth];

    hd_host_off  = OffW'(hd_host % HostW'(N));
    hd_host_beat = hd_host - HostW'(hd_host_off);
    hd_dest_off  = (hd_target == tpu_isa_pkg::TargetUb) ? '0 : OffW'(hd_dest % DestW'(N));
    hd_row_base  = hd_write ? DestW'(hd_ub) :
                   (hd_target == tpu_isa_pkg::TargetUb) ? hd_dest : hd_dest / DestW'(N);

    // Source and destination offsets: READ_HOST host -> row, WRITE_HOST row -> host.
    hd_src_off = hd_write ? '0 : hd_host_off;
    hd_dst_off = hd_write ? hd_host_off : hd_dest_off;
    hd_delta   = (hd_src_off >= hd_dst_off) ? hd_src_off - hd_dst_off :
                 OffW'((OffW+1)'(hd_src_off) + (OffW+1)'(N) - (OffW+1)'(hd_dst_off));

    // Beats in (host beats or UB rows) and rows out (destination rows or host beats).
    hd_in_num  = NumW'(hd_src_off) + NumW'(hd_len) + NumW'(N - 1);
    hd_out_num = NumW'(hd_dst_off) + NumW'(hd_len) + NumW'(N - 1);
    hd_n_in    = CntW'(hd_in_num / NumW'(N));
    hd_n_out   = CntW'(hd_out_num / NumW'(N));

    // Byte masks of the first and the last output row (both apply to a single row).
    hd_end_off = OffW'((NumW'(hd_dst_off) + NumW'(hd_len)) % NumW'(N));
    for (int unsigned l = 0; l < N; l++) begin
      hd_first_mask[l] = OffW'(l) >= hd_dst_off;
      hd_last_mask[l]  = (hd_end_off == '0) || (OffW'(l) < hd_end_off);
    end
  end

  // ---------------------------------------------------------------------------------------
  // Control
  // ---------------------------------------------------------------------------------------
  state_e           state_q, state_d;
  logic             write_q, write_d;          // WRITE_HOST (else READ_HOST)
  logic [1:0]       target_q, target_d;
  logic [7:0]       wait_q, wait_d, signal_q, signal_d;
  logic [31:0]      index_q, index_d;
  logic [OffW-1:0]  delta_q, delta_d;          // realignment shift in bytes
  logic             skip_q, skip_d;            // the first input beat only fills P
  logic [N-1:0]     first_mask_q, first_mask_d, last_mask_q, last_mask_d;
  logic [CntW-1:0]  req_rem_q, req_rem_d;      // requests still to send
  logic [CntW-1:0]  in_rem_q, in_rem_d;        // input beats still to take
  logic [CntW-1:0]  out_rem_q, out_rem_d;      // output rows still to make
  logic [CntW-1:0]  pending_q, pending_d;      // host reads sent, response not taken yet
  logic             in_first_q, in_first_d;    // no input beat taken yet
  logic             out_first_q, out_first_d;  // no output row made yet
  logic             err_q, err_d;              // DMA_ERROR: draining
  logic             err_pulse_q, err_pulse_d;  // error_o
  logic             req_held_q, req_held_d;    // a request was offered and not taken
  logic [AddrW-1:0] req_addr_q, req_addr_d;    // READ_HOST host beat address; WRITE_HOST UB row
  logic [AddrW-1:0] out_addr_q, out_addr_d;    // address of the held output row / beat
  logic             out_valid_q, out_valid_d;  // the output register holds a row
  logic [N-1:0]     out_mask_q, out_mask_d;
  logic [RowWidth-1:0] out_data_q, out_data_d;
  logic [RowWidth-1:0] p_q;                    // previous input beat

  logic                  running, pop, finish;
  logic                  req_valid, req_fire, out_ready, out_free;
  logic                  in_valid, in_ready, in_fire, in_bad, in_emits, flush, emit;
  logic [RowWidth-1:0]   in_data;
  logic [RowWidth-1:0]   shifted;
  logic [AddrW-1:0]      req_step, out_step;

  // Request valid from registers only, in its own statement: the UB's ready depends on it,
  // and a shared process would make a (false) combinational loop through the UB's arbiter.
  // After an error, only a request already offered stays offered (until taken: valid never
  // falls without a handshake).
  assign req_valid = state_q == StRun && (!err_q || req_held_q) && req_rem_q != '0;

  always_comb begin
    running = state_q == StRun;

    // Requests: host reads (READ_HOST) or UB row reads (WRITE_HOST).
    req_fire  = req_valid && (write_q ? ub_rd_req_ready_i : hm_req_ready_i);

    // Output register: destination rows (READ_HOST) or host write beats (WRITE_HOST).
    out_ready = write_q ? hm_req_ready_i : dst_ready_i;
    out_free  = !out_valid_q || out_ready;

    // Input beats: host responses (READ_HOST) or UB rows (WRITE_HOST).
    in_valid = write_q ? ub_rd_rsp_valid_i : hm_rsp_valid_i;
    in_data  = write_q ? ub_rd_rsp_data_i : hm_rsp_rdata_i;
    in_emits = !(skip_q && in_first_q);
    if (err_q) begin
      in_ready = pending_q != '0;  // drain and drop
    end else begin
      in_ready = running && in_rem_q != '0 && (!in_emits || out_free);
    end
    in_fire = in_valid && in_ready;
    in_bad  = in_fire && !write_q && hm_rsp_error_i && !err_q;

    // A row is made from an arriving beat, or flushed after the last one.
    flush   = running && !err_q && in_rem_q == '0 && out_rem_q != '0 && out_free;
    emit    = (in_fire && !err_q && !in_bad && in_emits) || flush;
    // (A flushed row takes no byte of in_data: those lanes are past the end and masked.)
    shifted = RowWidth'({in_data, p_q} >> {delta_q, 3'b000});

    // Completion: every row made and taken; after an error, every response drained.
    finish = running && !out_valid_q && (err_q ? pending_q == '0 : out_rem_q == '0);
    pop    = instr_valid_i && (state_q == StIdle || finish) && !abort_i;

    req_step = write_q ? AddrW'(1) : AddrW'(N);
    out_step = write_q ? AddrW'(N) : AddrW'(1);
  end

  always_comb begin
    // Defaults: hold.
    state_d      = state_q;
    write_d      = write_q;
    target_d     = target_q;
    wait_d       = wait_q;
    signal_d     = signal_q;
    index_d      = index_q;
    delta_d      = delta_q;
    skip_d       = skip_q;
    first_mask_d = first_mask_q;
    last_mask_d  = last_mask_q;
    req_rem_d    = req_rem_q;
    in_rem_d     = in_rem_q;
    out_rem_d    = out_rem_q;
    pending_d    = pending_q;
    in_first_d   = in_first_q;
    out_first_d  = out_first_q;
    err_d        = err_q;
    err_pulse_d  = in_bad;
    req_held_d   = req_valid && !req_fire;
    req_addr_d   = req_addr_q;
    out_addr_d   = out_addr_q;
    out_valid_d  = out_valid_q && !out_ready;
    out_mask_d   = out_mask_q;
    out_data_d   = out_data_q;

    unique case (state_q)
      StIdle: if (pop) state_d = StTake;
      StTake: begin
        if (abort_i) state_d = StIdle;
        else if (take_grant_i) state_d = StRun;
      end
      StRun: if (finish) state_d = pop ? StTake : StIdle;
      default: state_d = StIdle;
    endcase

    // Transfer.
    if (req_fire) begin
      req_rem_d  = req_rem_q - 1'b1;
      req_addr_d = req_addr_q + req_step;
    end
    // Reads in flight: one more per read request sent, one less per response taken. The
    // handshakes arrive late (through the host's and the unit's ready logic), so they select
    // among the count and its neighbours, computed from the register alone, instead of being
    // added into it (a carry chain behind them; docs/fpga.md, the logic-depth budget).
    if (!write_q && req_fire && !in_fire)      pending_d = pending_q + CntW'(1);
    else if (!write_q && in_fire && !req_fire) pending_d = pending_q - CntW'(1);
    if (in_fire && !err_q) begin
      in_rem_d   = in_rem_q - 1'b1;
      in_first_d = 1'b0;
    end
    if (in_bad) err_d = 1'b1;
    if (emit) begin
      out_valid_d = 1'b1;
      out_data_d  = shifted;
      out_mask_d  = (out_first_q ? first_mask_q : {N{1'b1}}) &
                    ((out_rem_q == CntW'(1)) ? last_mask_q : {N{1'b1}});
      out_addr_d  = out_addr_q + out_step;
      out_rem_d   = out_rem_q - 1'b1;
      out_first_d = 1'b0;
    end

    // A new instruction (possibly in the cycle the previous one finishes).
    if (pop) begin
      write_d      = hd_write;
      target_d     = hd_write ? tpu_isa_pkg::TargetUb : hd_target;
      wait_d       = instr_i[tpu_isa_pkg::ReadHostWaitLsb +: tpu_isa_pkg::ReadHostWaitWidth];
      signal_d     = instr_i[tpu_isa_pkg::ReadHostSignalLsb +: tpu_isa_pkg::ReadHostSignalWidth];
      index_d      = index_i;
      delta_d      = hd_delta;
      skip_d       = hd_src_off >= hd_dst_off;
      first_mask_d = hd_first_mask;
      last_mask_d  = hd_last_mask;
      req_rem_d    = hd_n_in;
      in_rem_d     = hd_n_in;
      out_rem_d    = hd_n_out;
      in_first_d   = 1'b1;
      out_first_d  = 1'b1;
      err_d        = 1'b0;
      req_addr_d   = hd_write ? AddrW'(hd_ub) : hd_host_beat;
      // The held row's address; the first row loads base, so start one step below it.
      out_addr_d   = hd_write ? hd_host_beat - AddrW'(N) : AddrW'(hd_row_base) - AddrW'(1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q      <= StIdle;
      write_q      <= 1'b0;
      target_q     <= '0;
      wait_q       <= '0;
      signal_q     <= '0;
      index_q      <= '0;
      delta_q      <= '0;
      skip_q       <= 1'b0;
      first_mask_q <= '0;
      last_mask_q  <= '0;
      req_rem_q    <= '0;
      in_rem_q     <= '0;
      out_rem_q    <= '0;
      pending_q    <= '0;
      in_first_q   <= 1'b0;
      out_first_q  <= 1'b0;
      err_q        <= 1'b0;
      err_pulse_q  <= 1'b0;
      req_held_q   <= 1'b0;
      req_addr_q   <= '0;
      out_addr_q   <= '0;
      out_valid_q  <= 1'b0;
      out_mask_q   <= '0;
    end else begin
      state_q      <= state_d;
      write_q      <= write_d;
      target_q     <= target_d;
      wait_q       <= wait_d;
      signal_q     <= signal_d;
      index_q      <= index_d;
      delta_q      <= delta_d;
      skip_q       <= skip_d;
      first_mask_q <= first_mask_d;
      last_mask_q  <= last_mask_d;
      req_rem_q    <= req_rem_d;
      in_rem_q     <= in_rem_d;
      out_rem_q    <= out_rem_d;
      pending_q    <= pending_d;
      in_first_q   <= in_first_d;
      out_first_q  <= out_first_d;
      err_q        <= err_d;
      err_pulse_q  <= err_pulse_d;
      req_held_q   <= req_held_d;
      req_addr_q   <= req_addr_d;
      out_addr_q   <= out_addr_d;
      out_valid_q  <= out_valid_d;
      out_mask_q   <= out_mask_d;
    end
  end

  // Data registers need no reset: out_valid_q guards the row, in_emits / skip_q the previous beat.
  always_ff @(posedge clk_i) begin
    if (emit) out_data_q <= out_data_d;
    if (in_fire && !err_q) p_q <= in_data;
  end

  // ---------------------------------------------------------------------------------------
  // Outputs
  // ---------------------------------------------------------------------------------------
  assign instr_ready_o = (state_q == StIdle || finish) && !abort_i;
  assign take_valid_o  = state_q == StTake && !abort_i;
  assign take_mask_o   = wait_q;
  assign give_valid_o  = finish && !err_q;
  assign give_mask_o   = signal_q;
  assign idle_o        = state_q == StIdle;
  assign blocked_o     = take_valid_o && !take_grant_i;
  assign stall_dep_o   = take_valid_o && !take_grant_i;
  assign error_o       = err_pulse_q;
  assign error_code_o  = tpu_isa_pkg::ErrDmaError;
  assign error_index_o = index_q;

  assign hm_req_valid_o = write_q ? (running && out_valid_q) : req_valid;
  assign hm_req_write_o = write_q;
  assign hm_req_addr_o  = write_q ? out_addr_q : req_addr_q;
  assign hm_req_wdata_o = out_data_q;
  assign hm_req_wmask_o = out_mask_q;
  assign hm_rsp_ready_o = !write_q && in_ready;

  assign dst_valid_o  = !write_q && out_valid_q;
  assign dst_target_o = target_q;
  assign dst_row_o    = out_addr_q[DestW-1:0];
  assign dst_data_o   = out_data_q;
  assign dst_mask_o   = out_mask_q;

  assign ub_rd_req_valid_o = write_q && req_valid;
  assign ub_rd_req_addr_o  = req_addr_q[AwUb-1:0];
  assign ub_rd_rsp_ready_o = write_q && in_ready;

  assign stall_o = running && ((hm_req_valid_o && !hm_req_ready_i) ||
                               (hm_rsp_ready_o && !hm_rsp_valid_i));
  assign row_o   = (dst_valid_o && dst_ready_i) || (ub_rd_rsp_valid_i && ub_rd_rsp_ready_o);

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(NAtLeastTwo, N >= 2)
  `TPU_ASSERT_INIT(AddressesFit, DestW <= HostW && AwUb <= tpu_isa_pkg::WriteHostUbWidth)
  // The queue holds only this unit's instructions.
  `TPU_ASSERT(OnlyDmaInstructions, !instr_valid_i ||
      instr_i[tpu_isa_pkg::OpcodeLsb +: tpu_isa_pkg::OpcodeWidth] == tpu_isa_pkg::OpReadHost ||
      instr_i[tpu_isa_pkg::OpcodeLsb +: tpu_isa_pkg::OpcodeWidth] == tpu_isa_pkg::OpWriteHost,
      clk_i, rst_ni)
  // Host read responses answer requests.
  `TPU_ASSERT(HostRspOnlyWhenPending, !(hm_rsp_valid_i && hm_rsp_ready_o) || pending_q != '0,
      clk_i, rst_ni)
  // A completed transfer consumed every beat it requested.
  `TPU_ASSERT(DoneMeansDrained, !(finish && !err_q) ||
      (req_rem_q == '0 && in_rem_q == '0 && pending_q == '0), clk_i, rst_ni)
  // Rows and beats leave with at least one byte.
  `TPU_ASSERT(RowHasBytes, !out_valid_q || out_mask_q != '0, clk_i, rst_ni)
  `TPU_ASSERT(GiveNotWithError, !(give_valid_o && error_o), clk_i, rst_ni)

endmodule
