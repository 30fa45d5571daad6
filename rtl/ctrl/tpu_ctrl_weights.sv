`include "tpu_assert.svh"

// Weight unit of the controller (docs/controller.md section 2): runs READ_WEIGHTS. After its
// wait tokens are granted it requests the instruction's tiles from the weight DRAM, one
// request per N x N tile at byte address tile * N * N, and the DRAM's beats go straight into
// the weight FIFO (tpu_wfifo, outside this unit). A tile is requested only while the FIFO has
// room for it and for every row still on its way (rows held + rows in flight + N <=
// FifoTiles * N), so the DRAM response stream never waits on a full FIFO; waiting for that
// room is `blocked_o` (the matrix unit must drain the FIFO first). The instruction completes,
// and gives its signal tokens, when the last beat of its last tile has entered the FIFO.
// One instruction at a time; the next one is popped in the cycle after the give.
module tpu_ctrl_weights #(
  parameter int unsigned N         = tpu_pkg::MxuDim,           // MXU size
  parameter int unsigned DramWidth = N * 8,                     // DRAM beat bits
  parameter int unsigned FifoTiles = tpu_pkg::WfifoDepthTiles,  // tiles the FIFO holds
  parameter int unsigned RowCntW   = $clog2((FifoTiles + 1) * N + 1),  // tpu_wfifo rows_o bits
  // Derived; do not override.
  localparam int unsigned RowsPerBeat = (DramWidth >= 8 * N) ? DramWidth / (8 * N) : 1,
  localparam int unsigned BeatsPerRow = (DramWidth >= 8 * N) ? 1 : (8 * N) / DramWidth,
  localparam int unsigned TileBeats   = N * BeatsPerRow / RowsPerBeat,
  localparam int unsigned RowIncW     = $clog2(RowsPerBeat + 1),
  localparam int unsigned DramAw      = tpu_isa_pkg::ReadHostDestWidth  // DRAM byte address bits
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               abort_i,        // drop a held instruction, request no more tiles
  // Instruction from the unit's queue.
  input  logic               instr_valid_i,  // instr_i / index_i hold the queue head
  output logic               instr_ready_o,  // ... and it is popped this cycle
  input  logic [127:0]       instr_i,        // a READ_WEIGHTS, checked
  input  logic [31:0]        index_i,        // its index in the program
  // Tokens (port 2).
  output logic               take_valid_o,   // the held instruction asks for its wait tokens
  output logic [7:0]         take_mask_o,    // ... these
  input  logic               take_grant_i,   // ... and gets them this cycle
  output logic               give_valid_o,   // the instruction completed
  output logic [7:0]         give_mask_o,    // ... and signals these tokens
  output logic [31:0]        give_index_o,   // ... it has this index
  // Weight DRAM requests and the beats entering the weight FIFO.
  output logic               wd_req_valid_o, // a tile read is offered
  input  logic               wd_req_ready_i, // ... and taken this cycle
  output logic [DramAw-1:0]  wd_req_addr_o,  // byte address of the tile
  input  logic               wd_rsp_fire_i,  // a beat enters the FIFO this cycle
  input  logic [RowCntW-1:0] wf_rows_i,      // complete rows the FIFO holds
  // Status.
  output logic               idle_o,         // nothing held, nothing in flight
  output logic               blocked_o,      // waiting for tokens or for FIFO room
  output logic               stall_dep_o,    // waiting for tokens
  output logic [RowIncW-1:0] rows_o          // weight rows completed this cycle
);

  localparam int unsigned TileCntW = 17;  // tiles field is 16 bits
  localparam int unsigned FlightW  = $clog2((FifoTiles + 1) * TileBeats + 1);
  localparam int unsigned SubW     = (BeatsPerRow > 1) ? $clog2(BeatsPerRow) : 1;

  typedef enum logic [1:0] {
    StIdle = 2'd0,  // no instruction held
    StTake = 2'd1,  // waiting for the wait tokens
    StRun  = 2'd2,  // requesting tiles / waiting for their beats
    StGive = 2'd3   // every beat in: signal
  } state_e;

  state_e              state_d, state_q;
  logic [31:0]         tile_d, tile_q;          // next tile to request
  logic [TileCntW-1:0] left_d, left_q;          // tiles still to request
  logic [FlightW-1:0]  flight_d, flight_q;      // beats requested, not yet in the FIFO
  logic [7:0]          wait_q, signal_q;
  logic [7:0]          wait_d, signal_d;
  logic [31:0]         index_d, index_q;
  logic [SubW-1:0]     sub_d, sub_q;            // beats of the current row (narrow DRAM)
  logic                room, req_fire;
  logic [31:0]         rows_needed;

  // Rows the FIFO will hold once every requested beat has arrived, plus the next tile (a row
  // half received from a narrow DRAM counts as one more).
  assign rows_needed = 32'(wf_rows_i) + (32'(flight_q) + BeatsPerRow - 1) / BeatsPerRow *
      RowsPerBeat + N + ((BeatsPerRow > 1) ? 1 : 0);
  assign room        = rows_needed <= FifoTiles * N;
  assign req_fire    = wd_req_valid_o && wd_req_ready_i;

  always_comb begin
    state_d       = state_q;
    tile_d        = tile_q;
    left_d        = left_q;
    wait_d        = wait_q;
    signal_d      = signal_q;
    index_d       = index_q;
    instr_ready_o = 1'b0;
    take_valid_o  = 1'b0;
    give_valid_o  = 1'b0;
    wd_req_valid_o = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (instr_valid_i && !abort_i) begin
          instr_ready_o = 1'b1;
          tile_d   = instr_i[tpu_isa_pkg::ReadWeightsDramTileLsb +: 32];
          left_d   = TileCntW'(instr_i[tpu_isa_pkg::ReadWeightsTilesLsb +: 16]);
          wait_d   = instr_i[tpu_isa_pkg::ReadWeightsWaitLsb +: 8];
          signal_d = instr_i[tpu_isa_pkg::ReadWeightsSignalLsb +: 8];
          index_d  = index_i;
          state_d  = StTake;
        end
      end
      StTake: begin
        if (abort_i) begin
          state_d = StIdle;
        end else begin
          take_valid_o = 1'b1;
          if (take_grant_i) state_d = StRun;
        end
      end
      StRun: begin
        wd_req_valid_o = left_q != '0 && room && !abort_i;
        if (req_fire) begin
          tile_d = tile_q + 32'd1;
          left_d = left_q - TileCntW'(1);
        end
        if ((left_q == '0 || abort_i) && flight_d == '0) begin
          state_d = abort_i ? StIdle : StGive;
        end
      end
      StGive: begin
        give_valid_o = 1'b1;
        state_d      = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  always_comb begin
    flight_d = flight_q;
    if (req_fire) flight_d = flight_d + FlightW'(TileBeats);
    if (wd_rsp_fire_i) flight_d = flight_d - FlightW'(1);
  end

  // Rows completed: every beat of a wide DRAM, every BeatsPerRow-th beat of a narrow one.
  always_comb begin
    sub_d  = sub_q;
    rows_o = '0;
    if (wd_rsp_fire_i) begin
      if (BeatsPerRow == 1) begin
        rows_o = RowIncW'(RowsPerBeat);
      end else if (sub_q == SubW'(BeatsPerRow - 1)) begin
        sub_d  = '0;
        rows_o = RowIncW'(1);
      end else begin
        sub_d = sub_q + SubW'(1);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= StIdle;
      tile_q   <= '0;
      left_q   <= '0;
      flight_q <= '0;
      wait_q   <= '0;
      signal_q <= '0;
      index_q  <= '0;
      sub_q    <= '0;
    end else begin
      state_q  <= state_d;
      tile_q   <= tile_d;
      left_q   <= left_d;
      flight_q <= flight_d;
      wait_q   <= wait_d;
      signal_q <= signal_d;
      index_q  <= index_d;
      sub_q    <= sub_d;
    end
  end

  // A tile index is 32 bits; DRAM_BYTES <= 2^DramAw keeps the tiles the decoder lets through
  // below 2^DramAw bytes, so the product is taken at 64 bits and truncated without loss.
  assign wd_req_addr_o = DramAw'(64'(tile_q) * 64'(N * N));
  assign take_mask_o   = wait_q;
  assign give_mask_o   = signal_q;
  assign give_index_o  = index_q;
  assign idle_o        = state_q == StIdle && flight_q == '0;
  assign stall_dep_o   = take_valid_o && !take_grant_i;
  // Waiting for room counts only once every requested beat has arrived (those beats may be
  // what the matrix unit waits for).
  assign blocked_o     = stall_dep_o ||
                         (state_q == StRun && left_q != '0 && !room && flight_q == '0);

  // The other fields of READ_WEIGHTS were checked by the decoder; the opcode chose this unit.
  logic unused_fields;
  assign unused_fields = ^{instr_i[127:80], instr_i[31:24], instr_i[7:0]};

  `TPU_ASSERT_INIT(DramWidthFitsRows, (DramWidth % (8 * N) == 0) || ((8 * N) % DramWidth == 0))
  `TPU_ASSERT(NoBeatWithoutRequest, !wd_rsp_fire_i || flight_q != '0, clk_i, rst_ni)

endmodule
