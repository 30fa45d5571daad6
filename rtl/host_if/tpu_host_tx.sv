`include "tpu_assert.svh"
// TLP transmit side of the host interface (docs/host_if.md sections 1 and 6): formats and
// sends, one TLP at a time and never interleaving the beats of two TLPs,
// - CplD for BAR0 register reads (rcpl_*: the read data with the fields the receive side kept:
//   requester ID, tag, lower address, byte count, completer ID; status SC, length 1), for
//   configuration reads likewise with the value the receive side kept (rcpl_cfg_i), a Cpl with
//   status SC for configuration writes, and, for a non-posted request the device does not take
//   (rcpl_ur_i), a Cpl without data with status UR and the request's byte count and lower
//   address,
// - MSI: a 1-DW MWr of msi_data_i (upper half 0) to msi_addr_i, for each msi_request_i pulse
//   (up to three pending), sent only while wr_empty_i says the write engine holds nothing, so
//   the MSI follows every write TLP the device formed before it,
// - MWr TLPs of the write engine (header fields on hdr_*, then its payload beats on pay_*),
// - MRd TLPs of the read engine (mrd_*, one beat).
// Arbitration between TLPs, fixed priority: register completions first (the host waits for
// them and they are rare), then a pending MSI, then MWr and MRd in turn (round robin, so
// neither a long write nor a long read stream starves the other). Requests from the device
// carry requester ID id_i (the function's bus and device numbers from configuration space)
// and a 4-DW header only when the address is 4 GiB or above. While bus_master_i (Command:
// Bus Master Enable) is clear, no request (MSI, MWr, MRd) is started: they wait, and
// completions still leave.
// Beats are TlpWidth bits (128, 256 or 512): a header has the first beat to itself (its four
// DWs in DWs 0..3, zero above) and payload starts at DW 0 of the second beat.
// Output: one register stage (tx_* are registers); one beat per cycle while tx_ready_i.
module tpu_host_tx #(
  parameter int unsigned TlpWidth = 128,            // TLP stream beat bits: 128, 256 or 512
  localparam int unsigned W = TlpWidth
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  // Configuration (tpu_host_cfg).
  input  logic [15:0]  id_i,                // requester ID of the device's requests
  input  logic         bus_master_i,        // requests may be sent
  // TLP beats to the link.
  output logic         tx_valid_o,          // a beat is offered
  input  logic         tx_ready_i,          // ... and taken this cycle
  output logic [W-1:0] tx_data_o,           // DW d at [32d +: 32]
  output logic         tx_sop_o,            // first beat of a TLP
  output logic         tx_eop_o,            // last beat of a TLP
  // Register read completions.
  input  logic         rcpl_valid_i,        // a read's data and completion fields
  output logic         rcpl_ready_o,        // ... taken this cycle
  input  logic [15:0]  rcpl_requester_i,    // requester ID of the MRd
  input  logic [7:0]   rcpl_tag_i,          // its tag
  input  logic [6:0]   rcpl_lower_addr_i,   // lower address
  input  logic [11:0]  rcpl_byte_count_i,   // byte count (0 = 4096)
  input  logic         rcpl_ur_i,           // Cpl with status UR, no data
  input  logic         rcpl_nodata_i,       // Cpl without data (UR, configuration write)
  input  logic         rcpl_cfg_i,          // configuration request: data from rcpl_cfg_data_i
  input  logic [15:0]  rcpl_completer_i,    // completer ID
  input  logic [31:0]  rcpl_cfg_data_i,     // a configuration read's value
  input  logic [31:0]  rcpl_data_i,         // the register's value
  // Read requests of the read engine.
  input  logic         mrd_valid_i,         // an MRd is offered
  output logic         mrd_ready_o,         // ... and sent this cycle
  input  logic [63:0]  mrd_addr_i,          // address (bits 1:0 zero)
  input  logic [9:0]   mrd_dwords_i,        // length in DWs (0 = 1024)
  input  logic [7:0]   mrd_tag_i,           // tag
  // Write requests of the write engine: header, then payload.
  input  logic         hdr_valid_i,         // an MWr is ready
  output logic         hdr_ready_o,         // ... its header is sent this cycle
  input  logic [63:0]  hdr_addr_i,          // address of the first DW (bits 1:0 zero)
  input  logic [9:0]   hdr_dwords_i,        // length in DWs (0 = 1024)
  input  logic [3:0]   hdr_first_be_i,      // first DW byte enables
  input  logic [3:0]   hdr_last_be_i,       // last DW byte enables
  input  logic         pay_valid_i,         // a payload beat of the MWr being sent
  output logic         pay_ready_o,         // ... taken this cycle
  input  logic [W-1:0] pay_data_i,          // payload DW d at [32d +: 32]
  input  logic         pay_last_i,          // its last payload beat
  // MSI.
  input  logic         msi_request_i,       // pulse: send one MSI
  input  logic [63:0]  msi_addr_i,          // MSI address (bits 1:0 zero)
  input  logic [15:0]  msi_data_i,          // MSI data
  input  logic         wr_empty_i,          // the write engine holds nothing
  output logic         msi_sent_o           // pulse: an MSI header was sent
);

  typedef enum logic [1:0] {
    StIdle    = 2'd0,  // next beat starts a TLP
    StCplData = 2'd1,  // the payload beat of a CplD
    StMsiData = 2'd2,  // the payload beat of an MSI
    StMwrData = 2'd3   // the payload beats of a write engine's MWr
  } state_e;

  localparam logic [4:0] TypeMem = 5'b00000;
  localparam logic [4:0] TypeCpl = 5'b01010;
  localparam logic [2:0] StatusUr = 3'b001;

  state_e       state_d, state_q;
  logic         out_valid_d, out_valid_q, out_sop_d, out_sop_q, out_eop_d, out_eop_q;
  logic [W-1:0] out_data_d, out_data_q;
  logic [31:0]  hold_d, hold_q;        // payload DW of a CplD or MSI
  logic [1:0]   msi_pend_d, msi_pend_q;
  logic         rr_d, rr_q;            // 1: the last DMA TLP was an MWr
  logic         load;                  // the output register takes a beat

  assign load = !out_valid_q || tx_ready_i;

  // ---------------------------------------------------------------------------------------
  // Headers
  // ---------------------------------------------------------------------------------------
  logic [127:0] h_cpl, h_mrd, h_mwr, h_msi;
  logic         mrd_4dw, mwr_4dw, msi_4dw;
  logic [3:0]   mrd_last_be;

  assign mrd_4dw     = mrd_addr_i[63:32] != '0;
  assign mwr_4dw     = hdr_addr_i[63:32] != '0;
  assign msi_4dw     = msi_addr_i[63:32] != '0;
  assign mrd_last_be = (mrd_dwords_i == 10'd1) ? 4'b0000 : 4'b1111;

  // DW0 = {fmt, type, 14'b0 (TC, attributes, TD, EP, AT), length}; request DW1 = {requester,
  // tag, last BE, first BE}; address in DW2 (3 DW) or DW2 (bits 63:32) and DW3.
  assign h_cpl = rcpl_nodata_i ?
                 {32'h0,
                  {rcpl_requester_i, rcpl_tag_i, 1'b0, rcpl_lower_addr_i},
                  {rcpl_completer_i, rcpl_ur_i ? StatusUr : 3'b000, 1'b0, rcpl_byte_count_i},
                  {3'b000, TypeCpl, 14'h0, 10'd0}} :
                 {32'h0,
                  {rcpl_requester_i, rcpl_tag_i, 1'b0, rcpl_lower_addr_i},
                  {rcpl_completer_i, 3'b000, 1'b0, rcpl_byte_count_i},
                  {3'b010, TypeCpl, 14'h0, 10'd1}};
  assign h_mrd = mrd_4dw ?
                 {mrd_addr_i[31:2], 2'b00, mrd_addr_i[63:32],
                  {id_i, mrd_tag_i, mrd_last_be, 4'b1111},
                  {3'b001, TypeMem, 14'h0, mrd_dwords_i}} :
                 {32'h0, mrd_addr_i[31:2], 2'b00,
                  {id_i, mrd_tag_i, mrd_last_be, 4'b1111},
                  {3'b000, TypeMem, 14'h0, mrd_dwords_i}};
  assign h_mwr = mwr_4dw ?
                 {hdr_addr_i[31:2], 2'b00, hdr_addr_i[63:32],
                  {id_i, 8'h00, hdr_last_be_i, hdr_first_be_i},
                  {3'b011, TypeMem, 14'h0, hdr_dwords_i}} :
                 {32'h0, hdr_addr_i[31:2], 2'b00,
                  {id_i, 8'h00, hdr_last_be_i, hdr_first_be_i},
                  {3'b010, TypeMem, 14'h0, hdr_dwords_i}};
  assign h_msi = msi_4dw ?
                 {msi_addr_i[31:2], 2'b00, msi_addr_i[63:32],
                  {id_i, 8'h00, 4'b0000, 4'b1111},
                  {3'b011, TypeMem, 14'h0, 10'd1}} :
                 {32'h0, msi_addr_i[31:2], 2'b00,
                  {id_i, 8'h00, 4'b0000, 4'b1111},
                  {3'b010, TypeMem, 14'h0, 10'd1}};

  // ---------------------------------------------------------------------------------------
  // Arbitration and beats
  // ---------------------------------------------------------------------------------------
  logic msi_go, mwr_go, mrd_go;

  assign msi_go = msi_pend_q != '0 && wr_empty_i && bus_master_i;
  assign mwr_go = hdr_valid_i && (!mrd_valid_i || !rr_q) && bus_master_i;
  assign mrd_go = mrd_valid_i && !mwr_go && bus_master_i;

  always_comb begin
    state_d      = state_q;
    out_valid_d  = out_valid_q && !tx_ready_i;
    out_data_d   = out_data_q;
    out_sop_d    = out_sop_q;
    out_eop_d    = out_eop_q;
    hold_d       = hold_q;
    rr_d         = rr_q;
    rcpl_ready_o = 1'b0;
    mrd_ready_o  = 1'b0;
    hdr_ready_o  = 1'b0;
    pay_ready_o  = 1'b0;
    msi_sent_o   = 1'b0;
    if (load) begin
      unique case (state_q)
        StIdle: begin
          if (rcpl_valid_i) begin
            rcpl_ready_o = 1'b1;
            out_valid_d  = 1'b1;
            out_data_d   = W'(h_cpl);
            out_sop_d    = 1'b1;
            out_eop_d    = rcpl_nodata_i;
            hold_d       = rcpl_cfg_i ? rcpl_cfg_data_i : rcpl_data_i;
            state_d      = rcpl_nodata_i ? StIdle : StCplData;
          end else if (msi_go) begin
            msi_sent_o  = 1'b1;
            out_valid_d = 1'b1;
            out_data_d  = W'(h_msi);
            out_sop_d   = 1'b1;
            out_eop_d   = 1'b0;
            hold_d      = {16'h0, msi_data_i};
            state_d     = StMsiData;
          end else if (mwr_go) begin
            hdr_ready_o = 1'b1;
            out_valid_d = 1'b1;
            out_data_d  = W'(h_mwr);
            out_sop_d   = 1'b1;
            out_eop_d   = 1'b0;
            rr_d        = 1'b1;
            state_d     = StMwrData;
          end else if (mrd_go) begin
            mrd_ready_o = 1'b1;
            out_valid_d = 1'b1;
            out_data_d  = W'(h_mrd);
            out_sop_d   = 1'b1;
            out_eop_d   = 1'b1;
            rr_d        = 1'b0;
          end
        end
        StCplData, StMsiData: begin
          out_valid_d = 1'b1;
          out_data_d  = W'(hold_q);
          out_sop_d   = 1'b0;
          out_eop_d   = 1'b1;
          state_d     = StIdle;
        end
        StMwrData: begin
          pay_ready_o = 1'b1;
          if (pay_valid_i) begin
            out_valid_d = 1'b1;
            out_data_d  = pay_data_i;
            out_sop_d   = 1'b0;
            out_eop_d   = pay_last_i;
            if (pay_last_i) state_d = StIdle;
          end
        end
        default: state_d = StIdle;
      endcase
    end
  end

  // Pending MSIs: requests in, sends out (saturating; the register file asks at most twice).
  always_comb begin
    msi_pend_d = msi_pend_q;
    if (msi_request_i && !msi_sent_o && msi_pend_q != 2'd3) msi_pend_d = msi_pend_q + 2'd1;
    if (!msi_request_i && msi_sent_o) msi_pend_d = msi_pend_q - 2'd1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= StIdle;
      out_valid_q <= 1'b0;
      out_data_q  <= '0;
      out_sop_q   <= 1'b0;
      out_eop_q   <= 1'b0;
      hold_q      <= '0;
      msi_pend_q  <= '0;
      rr_q        <= 1'b0;
    end else begin
      state_q     <= state_d;
      out_valid_q <= out_valid_d;
      out_data_q  <= out_data_d;
      out_sop_q   <= out_sop_d;
      out_eop_q   <= out_eop_d;
      hold_q      <= hold_d;
      msi_pend_q  <= msi_pend_d;
      rr_q        <= rr_d;
    end
  end

  assign tx_valid_o = out_valid_q;
  assign tx_data_o  = out_data_q;
  assign tx_sop_o   = out_sop_q;
  assign tx_eop_o   = out_eop_q;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(TlpWidthLegal, TlpWidth == 128 || TlpWidth == 256 || TlpWidth == 512)
  `TPU_ASSERT(AddressesDwAligned, !(mrd_valid_i && mrd_addr_i[1:0] != 2'b00) &&
              !(hdr_valid_i && hdr_addr_i[1:0] != 2'b00) && msi_addr_i[1:0] == 2'b00,
              clk_i, rst_ni)
  `TPU_ASSERT(PayloadOnlyWhenSending, !(pay_valid_i && state_q != StMwrData), clk_i, rst_ni)
  `TPU_ASSERT(UrHasNoData, !(rcpl_valid_i && rcpl_ur_i && !rcpl_nodata_i), clk_i, rst_ni)
  `TPU_ASSERT(OutputHeld, !(tx_valid_o && !tx_ready_i) || out_valid_d, clk_i, rst_ni)

endmodule
