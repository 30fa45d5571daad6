`include "tpu_assert.svh"
// TLP receive side of the host interface (docs/host_if.md sections 1 and 3). Parses the TLPs
// the link delivers on rx_* (beats of TlpWidth bits: 128, 256 or 512; the header in the first
// beat, DWs 0..3, the payload from DW 0 of the second beat):
// - MRd / MWr of one DW (3- or 4-DW header, no poisoned data) are BAR0 register accesses while
//   Memory Space Enable is set (mem_enable_i): they go out on reg_req_* (address bits 11:0,
//   first DW byte enables, write data) from a register stage. For each read, the fields its
//   completion echoes (requester ID, tag, lower address, byte count computed from the byte
//   enables, completer ID id_i) are queued on rcpl_* in request order. With Memory Space
//   Enable clear, a BAR0 read is answered UR and a BAR0 write dropped (counted).
// - CfgRd0 / CfgWr0 of one DW to function 0 access the configuration space (tpu_host_cfg) on
//   cfg_*: a read's register value is taken when its header is, a write is applied when its
//   data beat is; the completion (CplD with the value, or Cpl) is queued on rcpl_* like a
//   register read's, in the same order, with the request's target ID as completer ID.
// - Every other non-posted request (an MRd of BAR0 longer than one DW, e.g. a 64-bit read of a
//   register pair, a locked read, I/O requests, configuration requests of type 1, to another
//   function or longer than one DW, atomics) is answered with an
//   Unsupported Request completion: its fields (requester ID, tag, the request's byte count and
//   lower address, rcpl_ur_o set) are queued on rcpl_* in the same order, no register access is
//   made, and a payload is consumed and thrown away. So every read the host sends completes.
// - CplD / Cpl are completions of the read engine's requests: each payload beat leaves on
//   cpl_* (one register stage, never back-pressured) with the header's tag, status, poisoned
//   bit, byte count, lower address and length; a Cpl without data leaves as one beat with
//   cpl_has_data_o low.
// - Everything else is dropped whole (consumed up to its last beat) and counted in
//   drop_count_o: posted TLPs the device does not take (messages, BAR0 writes longer than one
//   DW, poisoned BAR0 writes), TLPs whose beats contradict their header (an MRd or Cpl with a
//   payload beat, an MWr, CplD or non-posted write without one, a beat after the expected last
//   one), and beats that arrive without a start of packet.
// Latency: a register request is offered in the cycle after its last beat was taken; a
// completion beat one cycle after it was taken. rx_ready_o is low only while a register
// request waits for reg_req_ready_i (or, for a read, while the completion queue is full), so
// register accesses take at most one TLP per two cycles and completions one beat per cycle.
module tpu_host_rx #(
  parameter int unsigned InfoDepth = 4,    // register reads whose completion is not yet sent
  parameter int unsigned TlpWidth  = 128,  // TLP stream beat bits: 128, 256 or 512
  localparam int unsigned W = TlpWidth
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  // TLP beats from the link.
  input  logic         rx_valid_i,         // a beat is offered
  output logic         rx_ready_o,         // ... and taken this cycle
  input  logic [W-1:0] rx_data_i,          // DW d at [32d +: 32]
  input  logic         rx_sop_i,           // first beat of a TLP
  input  logic         rx_eop_i,           // last beat of a TLP
  // BAR0 register accesses (tpu_host_regs).
  output logic         reg_req_valid_o,    // a single-DW access is offered
  input  logic         reg_req_ready_i,    // ... and taken this cycle
  output logic         reg_req_write_o,    // 1 write, 0 read
  output logic [11:0]  reg_req_addr_o,     // byte address in BAR0, bits 1:0 zero
  output logic [31:0]  reg_req_wdata_o,    // write data
  output logic [3:0]   reg_req_be_o,       // first DW byte enables
  // Configuration space (tpu_host_cfg).
  output logic         cfg_write_o,        // a CfgWr0 is applied this cycle
  output logic [9:0]   cfg_reg_o,          // register number of the request
  output logic [3:0]   cfg_be_o,           // its first DW byte enables
  output logic [31:0]  cfg_wdata_o,        // write data
  output logic [15:0]  cfg_target_o,       // the write's target ID (bus, device, function)
  input  logic [31:0]  cfg_rdata_i,        // register cfg_reg_o
  input  logic [15:0]  id_i,               // the function's ID (completer ID)
  input  logic         mem_enable_i,       // Command: Memory Space Enable
  // Completion fields of the register reads, in request order (tpu_host_tx).
  output logic         rcpl_valid_o,       // the oldest read's fields are offered
  input  logic         rcpl_ready_i,       // ... and taken this cycle
  output logic [15:0]  rcpl_requester_o,   // requester ID of the MRd
  output logic [7:0]   rcpl_tag_o,         // tag of the MRd
  output logic [6:0]   rcpl_lower_addr_o,  // lower address: first enabled byte (UR of a
                                           // request other than an MRd: 0)
  output logic [11:0]  rcpl_byte_count_o,  // enabled byte span (0 = 4096)
  output logic         rcpl_ur_o,          // answer with an Unsupported Request Cpl
  output logic         rcpl_cfg_o,         // a configuration request's: data from rcpl_data_o
  output logic         rcpl_nodata_o,      // answer with a Cpl (UR, or a configuration write)
  output logic [15:0]  rcpl_completer_o,   // completer ID
  output logic [31:0]  rcpl_data_o,        // a configuration read's value
  // Completion beats for the DMA read engine (always taken).
  output logic         cpl_valid_o,        // a completion beat
  output logic         cpl_first_o,        // ... its TLP's first beat
  output logic         cpl_last_o,         // ... its TLP's last beat
  output logic         cpl_has_data_o,     // 0: a Cpl without data (one beat, no payload)
  output logic [7:0]   cpl_tag_o,          // header: tag
  output logic [2:0]   cpl_status_o,       // header: completion status (0 = SC)
  output logic         cpl_poisoned_o,     // header: EP
  output logic [11:0]  cpl_byte_count_o,   // header: byte count (0 = 4096)
  output logic [6:0]   cpl_lower_addr_o,   // header: lower address
  output logic [9:0]   cpl_dwords_o,       // header: length in DWs (0 = 1024)
  output logic [W-1:0] cpl_data_o,         // payload beat
  // Status.
  output logic [15:0]  drop_count_o        // TLPs dropped (saturates)
);

  // requester, tag, lower address, byte count, unsupported, configuration, no data, completer,
  // configuration read data
  localparam int unsigned InfoW = 16 + 8 + 7 + 12 + 1 + 1 + 1 + 16 + 32;

  typedef enum logic [2:0] {
    StHdr     = 3'd0,  // expecting the first beat of a TLP
    StWrData  = 3'd1,  // a BAR0 write's header was taken, its data beat follows
    StCpl     = 3'd2,  // forwarding the payload beats of a CplD
    StDrop    = 3'd3,  // dropping beats up to the end of the TLP
    StCfgData = 3'd4   // a CfgWr0's header was taken, its data beat follows
  } state_e;

  // ---------------------------------------------------------------------------------------
  // Header decode (first beat)
  // ---------------------------------------------------------------------------------------
  logic [31:0] dw0, dw1, dw2, dw3;
  logic [2:0]  fmt;
  logic [4:0]  typ;
  logic [9:0]  len;
  logic        ep, is_mem, is_cpl, four_dw, with_data;
  logic        bar_read, bar_write, cpl_nodata, cpl_data;
  logic        is_mrd, np_req, np_ur, cfg_read, cfg_write;
  logic [31:0] mem_addr_lo;   // address bits 31:0 of an MRd / MWr
  logic [3:0]  first_be;

  assign dw0 = rx_data_i[31:0];
  assign dw1 = rx_data_i[63:32];
  assign dw2 = rx_data_i[95:64];
  assign dw3 = rx_data_i[127:96];

  assign fmt         = dw0[31:29];
  assign typ         = dw0[28:24];
  assign ep          = dw0[14];
  assign len         = dw0[9:0];
  assign four_dw     = fmt[0];
  assign with_data   = fmt[1];
  assign is_mem      = typ == 5'b00000 && fmt[2] == 1'b0;
  assign is_cpl      = typ == 5'b01010 && (fmt == 3'b000 || fmt == 3'b010);
  assign mem_addr_lo = four_dw ? dw3 : dw2;
  assign first_be    = dw1[3:0];

  // Supported TLPs; each must end where its header says (MRd and Cpl in their header beat).
  // BAR0 only while Memory Space Enable is set.
  assign bar_read   = is_mem && !with_data && len == 10'd1 && rx_eop_i && mem_enable_i;
  assign bar_write  = is_mem && with_data && len == 10'd1 && !ep && !rx_eop_i && mem_enable_i;
  // Configuration type 0 (fmt 000 / 010, type 00100), one DW, function 0 (DW2 bits 18:16).
  assign cfg_read   = fmt == 3'b000 && typ == 5'b00100 && len == 10'd1 && dw2[18:16] == 3'd0 &&
                      rx_eop_i;
  assign cfg_write  = fmt == 3'b010 && typ == 5'b00100 && len == 10'd1 && dw2[18:16] == 3'd0 &&
                      !ep && !rx_eop_i;
  assign cpl_nodata = is_cpl && !with_data && rx_eop_i;
  assign cpl_data   = is_cpl && with_data && !rx_eop_i;

  // Non-posted requests (fmt without a TLP prefix): MRd, MRdLk (type 00001), I/O (00010),
  // configuration type 0 / 1 (0010x), atomics (01100 .. 01110, with data). Those not taken
  // above are answered UR if their beats fit their header (a payload beat iff with data).
  assign is_mrd = is_mem && !with_data;
  assign np_req = !fmt[2] && (is_mrd || (typ == 5'b00001 && !with_data) || typ == 5'b00010 ||
                              typ[4:1] == 4'b0010 ||
                              (with_data && (typ == 5'b01100 || typ == 5'b01101 ||
                                             typ == 5'b01110)));
  assign np_ur  = np_req && !bar_read && !cfg_read && !cfg_write &&
                  (with_data ? !rx_eop_i : rx_eop_i) && !(is_mrd && len == 10'd1 && mem_enable_i);

  // Completion fields of a single-DW read (PCIe byte count and lower address rules).
  logic [1:0] first_byte;
  logic [2:0] byte_count;
  // ... and of an unsupported one: an MRd's enabled byte span over its whole length (from its
  // first enabled byte to the last enabled byte of its last DW), 4 for the other requests.
  logic [3:0]  last_be;
  logic [1:0]  last_missing;    // disabled bytes at the top of the last DW
  logic [11:0] ur_byte_count;
  logic [6:0]  ur_lower_addr;

  always_comb begin
    first_byte = 2'd0;
    byte_count = 3'd1;
    unique casez (first_be)
      4'b0000: begin first_byte = 2'd0; byte_count = 3'd1; end
      4'b1??1: begin first_byte = 2'd0; byte_count = 3'd4; end
      4'b01?1: begin first_byte = 2'd0; byte_count = 3'd3; end
      4'b1?10: begin first_byte = 2'd1; byte_count = 3'd3; end
      4'b0011: begin first_byte = 2'd0; byte_count = 3'd2; end
      4'b0110: begin first_byte = 2'd1; byte_count = 3'd2; end
      4'b1100: begin first_byte = 2'd2; byte_count = 3'd2; end
      4'b0001: begin first_byte = 2'd0; byte_count = 3'd1; end
      4'b0010: begin first_byte = 2'd1; byte_count = 3'd1; end
      4'b0100: begin first_byte = 2'd2; byte_count = 3'd1; end
      4'b1000: begin first_byte = 2'd3; byte_count = 3'd1; end
      default: begin first_byte = 2'd0; byte_count = 3'd1; end
    endcase
  end

  // ---------------------------------------------------------------------------------------
  // Completion fields of register reads: a small FIFO
  // ---------------------------------------------------------------------------------------
  logic             info_push, info_ready;
  logic [InfoW-1:0] info_in, info_out;
  logic [$clog2(InfoDepth + 1)-1:0] info_count;
  logic             info_empty;

  assign last_be = dw1[7:4];

  always_comb begin
    last_missing = 2'd0;
    unique casez (last_be)
      4'b1???: last_missing = 2'd0;
      4'b01??: last_missing = 2'd1;
      4'b001?: last_missing = 2'd2;
      default: last_missing = 2'd3;
    endcase
  end

  always_comb begin
    ur_byte_count = 12'd4;
    ur_lower_addr = '0;
    if (is_mrd || typ == 5'b00001) begin
      ur_lower_addr = {mem_addr_lo[6:2], first_byte};
      ur_byte_count = (len == 10'd1) ? 12'(byte_count) :
                      {len, 2'b00} - 12'(first_byte) - 12'(last_missing);
    end
  end

  // A CfgWr0's fields, kept until its data beat.
  logic [15:0] cw_requester_d, cw_requester_q, cw_target_d, cw_target_q;
  logic [7:0]  cw_tag_d, cw_tag_q;
  logic [9:0]  cw_reg_d, cw_reg_q;
  logic [3:0]  cw_be_d, cw_be_q;

  always_comb begin
    if (state_q == StCfgData) begin
      // The write's completion (Cpl, byte count 4, lower address 0).
      info_in = {cw_requester_q, cw_tag_q, 7'd0, 12'd4, 3'b011, cw_target_q, 32'h0};
    end else if (cfg_read) begin
      info_in = {dw1[31:16], dw1[15:8], 7'd0, 12'd4, 3'b010, dw2[31:16], cfg_rdata_i};
    end else if (np_ur) begin
      info_in = {dw1[31:16], dw1[15:8], ur_lower_addr, ur_byte_count, 3'b101, id_i, 32'h0};
    end else begin
      info_in = {dw1[31:16], dw1[15:8], mem_addr_lo[6:2], first_byte, 12'(byte_count), 3'b000,
                 id_i, 32'h0};
    end
  end

  tpu_fifo #(
    .Width(InfoW),
    .Depth(InfoDepth)
  ) u_info (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .clear_i     (1'b0),
    .in_valid_i  (info_push),
    .in_ready_o  (info_ready),
    .in_data_i   (info_in),
    .out_valid_o (rcpl_valid_o),
    .out_ready_i (rcpl_ready_i),
    .out_data_o  (info_out),
    .count_o     (info_count),
    .empty_o     (info_empty)
  );

  assign {rcpl_requester_o, rcpl_tag_o, rcpl_lower_addr_o, rcpl_byte_count_o, rcpl_ur_o,
          rcpl_cfg_o, rcpl_nodata_o, rcpl_completer_o, rcpl_data_o} = info_out;

  // Configuration space port: a read's register from the header beat, a write's from the
  // fields kept.
  assign cfg_reg_o    = (state_q == StCfgData) ? cw_reg_q : dw2[11:2];
  assign cfg_be_o     = (state_q == StCfgData) ? cw_be_q : first_be;
  assign cfg_wdata_o  = rx_data_i[31:0];
  assign cfg_target_o = cw_target_q;

  // ---------------------------------------------------------------------------------------
  // Beat handling
  // ---------------------------------------------------------------------------------------
  state_e      state_d, state_q;
  logic        req_valid_d, req_valid_q, req_write_d, req_write_q;
  logic [11:0] req_addr_d, req_addr_q;
  logic [31:0] req_wdata_d, req_wdata_q;
  logic [3:0]  req_be_d, req_be_q;
  // A BAR0 write's header fields, kept until its data beat (a request may still be waiting).
  logic [11:0] wr_addr_d, wr_addr_q;
  logic [3:0]  wr_be_d, wr_be_q;
  logic        beat, drop;
  // Completion header fields (held for the payload beats) and the output register.
  logic [7:0]  ch_tag_d, ch_tag_q;
  logic [2:0]  ch_status_d, ch_status_q;
  logic        ch_ep_d, ch_ep_q, ch_first_d, ch_first_q;
  logic [11:0] ch_bc_d, ch_bc_q;
  logic [6:0]  ch_la_d, ch_la_q;
  logic [9:0]  ch_len_d, ch_len_q;
  logic        cpl_valid_d, cpl_valid_q, cpl_first_d, cpl_first_q, cpl_last_d, cpl_last_q;
  logic        cpl_has_data_d, cpl_has_data_q;
  logic [W-1:0] cpl_data_d, cpl_data_q;
  logic [15:0] drop_count_d, drop_count_q;

  // A register request waits in req_*_q until taken; the next BAR0 access waits for it.
  logic req_free;
  assign req_free = !req_valid_q;

  always_comb begin
    rx_ready_o = 1'b1;
    unique case (state_q)
      StHdr:     rx_ready_o = (!(rx_sop_i && bar_read) || (req_free && info_ready)) &&
                              (!(rx_sop_i && (np_ur || cfg_read)) || info_ready);
      StWrData:  rx_ready_o = req_free;
      StCfgData: rx_ready_o = info_ready;
      default:  rx_ready_o = 1'b1;
    endcase
  end

  assign beat = rx_valid_i && rx_ready_o;

  always_comb begin
    state_d        = state_q;
    req_valid_d    = req_valid_q && !reg_req_ready_i;
    req_write_d    = req_write_q;
    req_addr_d     = req_addr_q;
    req_wdata_d    = req_wdata_q;
    req_be_d       = req_be_q;
    wr_addr_d      = wr_addr_q;
    wr_be_d        = wr_be_q;
    info_push      = 1'b0;
    cfg_write_o    = 1'b0;
    cw_requester_d = cw_requester_q;
    cw_target_d    = cw_target_q;
    cw_tag_d       = cw_tag_q;
    cw_reg_d       = cw_reg_q;
    cw_be_d        = cw_be_q;
    drop           = 1'b0;
    ch_tag_d       = ch_tag_q;
    ch_status_d    = ch_status_q;
    ch_ep_d        = ch_ep_q;
    ch_bc_d        = ch_bc_q;
    ch_la_d        = ch_la_q;
    ch_len_d       = ch_len_q;
    ch_first_d     = ch_first_q;
    cpl_valid_d    = 1'b0;
    cpl_first_d    = cpl_first_q;
    cpl_last_d     = cpl_last_q;
    cpl_has_data_d = cpl_has_data_q;
    cpl_data_d     = cpl_data_q;
    if (beat) begin
      unique case (state_q)
        StHdr: begin
          // Header fields a completion carries (used if this is one).
          ch_tag_d    = dw2[15:8];
          ch_status_d = dw1[15:13];
          ch_ep_d     = ep;
          ch_bc_d     = dw1[11:0];
          ch_la_d     = dw2[6:0];
          ch_len_d    = len;
          ch_first_d  = 1'b1;
          if (!rx_sop_i) begin
            drop    = 1'b1;
            state_d = rx_eop_i ? StHdr : StDrop;
          end else if (bar_read) begin
            req_valid_d = 1'b1;
            req_write_d = 1'b0;
            req_addr_d  = {mem_addr_lo[11:2], 2'b00};
            req_be_d    = first_be;
            req_wdata_d = '0;
            info_push   = 1'b1;
          end else if (bar_write) begin
            wr_addr_d = {mem_addr_lo[11:2], 2'b00};
            wr_be_d   = first_be;
            state_d   = StWrData;
          end else if (cpl_data) begin
            state_d = StCpl;
          end else if (cfg_read) begin
            info_push = 1'b1;
          end else if (cfg_write) begin
            cw_requester_d = dw1[31:16];
            cw_tag_d       = dw1[15:8];
            cw_target_d    = dw2[31:16];
            cw_reg_d       = dw2[11:2];
            cw_be_d        = first_be;
            state_d        = StCfgData;
          end else if (np_ur) begin
            info_push = 1'b1;
            state_d   = rx_eop_i ? StHdr : StDrop;  // a payload is thrown away, not counted
          end else if (cpl_nodata) begin
            cpl_valid_d    = 1'b1;
            cpl_first_d    = 1'b1;
            cpl_last_d     = 1'b1;
            cpl_has_data_d = 1'b0;
          end else begin
            drop    = 1'b1;
            state_d = rx_eop_i ? StHdr : StDrop;
          end
        end
        StWrData: begin
          req_valid_d = 1'b1;
          req_write_d = 1'b1;
          req_addr_d  = wr_addr_q;
          req_be_d    = wr_be_q;
          req_wdata_d = rx_data_i[31:0];
          if (!rx_eop_i) begin
            // Longer than its one DW: the write is still done, the rest dropped and counted.
            drop    = 1'b1;
            state_d = StDrop;
          end else begin
            state_d = StHdr;
          end
        end
        StCfgData: begin
          cfg_write_o = 1'b1;
          info_push   = 1'b1;
          if (!rx_eop_i) begin
            // Longer than its one DW (its header said one): done, the rest dropped and counted.
            drop    = 1'b1;
            state_d = StDrop;
          end else begin
            state_d = StHdr;
          end
        end
        StCpl: begin
          cpl_valid_d    = 1'b1;
          cpl_first_d    = ch_first_q;
          cpl_last_d     = rx_eop_i;
          cpl_has_data_d = 1'b1;
          cpl_data_d     = rx_data_i;
          ch_first_d     = 1'b0;
          if (rx_eop_i) state_d = StHdr;
        end
        StDrop: begin
          if (rx_eop_i) state_d = StHdr;
        end
        default: state_d = StHdr;
      endcase
    end
  end

  assign drop_count_d = (drop && drop_count_q != 16'hffff) ? drop_count_q + 16'd1 : drop_count_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q        <= StHdr;
      req_valid_q    <= 1'b0;
      req_write_q    <= 1'b0;
      req_addr_q     <= '0;
      req_wdata_q    <= '0;
      req_be_q       <= '0;
      wr_addr_q      <= '0;
      wr_be_q        <= '0;
      cw_requester_q <= '0;
      cw_target_q    <= '0;
      cw_tag_q       <= '0;
      cw_reg_q       <= '0;
      cw_be_q        <= '0;
      ch_tag_q       <= '0;
      ch_status_q    <= '0;
      ch_ep_q        <= 1'b0;
      ch_bc_q        <= '0;
      ch_la_q        <= '0;
      ch_len_q       <= '0;
      ch_first_q     <= 1'b0;
      cpl_valid_q    <= 1'b0;
      cpl_first_q    <= 1'b0;
      cpl_last_q     <= 1'b0;
      cpl_has_data_q <= 1'b0;
      cpl_data_q     <= '0;
      drop_count_q   <= '0;
    end else begin
      state_q        <= state_d;
      req_valid_q    <= req_valid_d;
      req_write_q    <= req_write_d;
      req_addr_q     <= req_addr_d;
      req_wdata_q    <= req_wdata_d;
      req_be_q       <= req_be_d;
      wr_addr_q      <= wr_addr_d;
      wr_be_q        <= wr_be_d;
      cw_requester_q <= cw_requester_d;
      cw_target_q    <= cw_target_d;
      cw_tag_q       <= cw_tag_d;
      cw_reg_q       <= cw_reg_d;
      cw_be_q        <= cw_be_d;
      ch_tag_q       <= ch_tag_d;
      ch_status_q    <= ch_status_d;
      ch_ep_q        <= ch_ep_d;
      ch_bc_q        <= ch_bc_d;
      ch_la_q        <= ch_la_d;
      ch_len_q       <= ch_len_d;
      ch_first_q     <= ch_first_d;
      cpl_valid_q    <= cpl_valid_d;
      cpl_first_q    <= cpl_first_d;
      cpl_last_q     <= cpl_last_d;
      cpl_has_data_q <= cpl_has_data_d;
      cpl_data_q     <= cpl_data_d;
      drop_count_q   <= drop_count_d;
    end
  end

  assign reg_req_valid_o  = req_valid_q;
  assign reg_req_write_o  = req_write_q;
  assign reg_req_addr_o   = req_addr_q;
  assign reg_req_wdata_o  = req_wdata_q;
  assign reg_req_be_o     = req_be_q;
  assign cpl_valid_o      = cpl_valid_q;
  assign cpl_first_o      = cpl_first_q;
  assign cpl_last_o       = cpl_last_q;
  assign cpl_has_data_o   = cpl_has_data_q;
  assign cpl_tag_o        = ch_tag_q;
  assign cpl_status_o     = ch_status_q;
  assign cpl_poisoned_o   = ch_ep_q;
  assign cpl_byte_count_o = ch_bc_q;
  assign cpl_lower_addr_o = ch_la_q;
  assign cpl_dwords_o     = ch_len_q;
  assign cpl_data_o       = cpl_data_q;
  assign drop_count_o     = drop_count_q;

  // Header fields no supported TLP uses here (traffic class, attributes, TD, address type),
  // the BAR0 offset's upper address bits (the link routes only BAR0 hits here) and the FIFO's
  // status.
  logic unused_bits;
  assign unused_bits = ^{dw0[23:15], dw0[13:10], mem_addr_lo[31:12], mem_addr_lo[1:0],
                         info_count, info_empty};

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(InfoDepthAtLeastTwo, InfoDepth >= 2)
  `TPU_ASSERT_INIT(TlpWidthLegal, TlpWidth == 128 || TlpWidth == 256 || TlpWidth == 512)
  `TPU_ASSERT(InfoPushedWithRoom, !info_push || info_ready, clk_i, rst_ni)
  `TPU_ASSERT(OneRequestAtATime, !(info_push && state_q == StHdr && bar_read && req_valid_q),
              clk_i, rst_ni)

endmodule
