`include "tpu_assert.svh"

// Weight FIFO: buffers N x N int8 weight tiles between the weight-DRAM read port and the MXU's
// weight port (tpu_mxu weight_valid_i / weight_ready_o / weight_row_i), as TPU v1 does.
//
// The DRAM side is a little-endian stream of weights (bytes): weight b of a beat is
// dram_data_i[b*InWidth +: InWidth], and the stream is cut into rows of N weights, weight c of a
// row being the one for output column c. Either a row is a whole number of beats
// (DramWidth < N*InWidth: the first beat fills weights 0.. of the row) or a beat is a whole
// number of rows (DramWidth >= N*InWidth: the first row in the low bits); a tile is N
// consecutive rows and always a whole number of beats. Rows leave on the weight port one per
// beat, in order, tile row 0 first.
//
// Storage: one memory of DepthTiles*N rows (one word per DRAM beat when a beat holds several
// rows, else one word per row) and the memory's registered read port as the output register,
// so the FIFO holds up to DepthTiles*N rows in the memory plus the rest of one word in the
// output register. Latency: a row whose last beat is taken at clock edge t is offered right
// after edge t+1 (it can leave at edge t+2) when nothing is held before it. Throughput: one row
// per cycle out while rows are held, one beat per cycle in while the memory has room; no bubble
// at the empty or the full boundary. Ready and valid depend only on registers and flush_i.
//
// Status (all registered): rows_o counts the complete rows held (memory and output register,
// not a partly received row); tiles_o counts the whole tiles held of which no row has left yet
// (a tile counts from the edge its last row is taken until the edge its first row leaves), so
// tiles_o > 0 means a whole tile is ready to stream into the MXU; empty_o is rows_o == 0;
// full_o says the memory is full, so a beat that would complete a row waits (beats that only
// fill the start of a row are still taken).
module tpu_wfifo #(
  parameter int unsigned N          = tpu_pkg::MxuDim,           // weights per row, rows per tile
  parameter int unsigned DepthTiles = tpu_pkg::WfifoDepthTiles,  // memory depth in N x N tiles
  parameter int unsigned InWidth    = tpu_pkg::MxuInWidth,       // weight bits (int8)
  parameter int unsigned DramWidth  = N * InWidth,               // DRAM beat bits, see above
  // Derived widths of the status counts; do not override.
  parameter int unsigned RowCntWidth  = $clog2((DepthTiles + 1) * N + 1),
  parameter int unsigned TileCntWidth = $clog2(DepthTiles + 2)
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  // Synchronous clear: drops every row held and a partly received row. While it is high no beat
  // is taken and no row offered.
  input  logic                    flush_i,
  // Weight-DRAM read data.
  input  logic                    dram_valid_i,    // dram_data_i holds a beat
  output logic                    dram_ready_o,    // ... and is taken this cycle
  input  logic [DramWidth-1:0]    dram_data_i,     // weight b at b*InWidth, b = 0 first
  // Weight rows to the MXU.
  output logic                    weight_valid_o,  // weight_row_o holds a tile row
  input  logic                    weight_ready_i,  // ... and is taken this cycle
  output logic [N*InWidth-1:0]    weight_row_o,    // int8 per output column c, at c*InWidth
  // Status for the controller.
  output logic [RowCntWidth-1:0]  rows_o,          // complete rows held
  output logic [TileCntWidth-1:0] tiles_o,         // whole tiles held, none of their rows sent
  output logic                    empty_o,         // no complete row held
  output logic                    full_o           // memory full: a row-completing beat waits
);

  localparam int unsigned RowWidth    = N * InWidth;
  localparam bit          Wide        = DramWidth >= RowWidth;  // a beat holds >= 1 row
  localparam int unsigned Beats       = Wide ? 1 : RowWidth / DramWidth;  // beats per word
  localparam int unsigned RowsPerWord = Wide ? DramWidth / RowWidth : 1;
  localparam int unsigned WordWidth   = Wide ? DramWidth : RowWidth;
  localparam int unsigned Words       = DepthTiles * N / RowsPerWord;  // memory depth
  localparam int unsigned PtrWidth    = (Words > 1) ? $clog2(Words) : 1;
  localparam int unsigned WordCntW    = $clog2(Words + 1);
  localparam int unsigned IdxWidth    = (RowsPerWord > 1) ? $clog2(RowsPerWord) : 1;
  localparam int unsigned TileRowW    = (N > 1) ? $clog2(N) : 1;
  localparam int unsigned TileDiffW   = TileCntWidth + 1;  // signed: tiles in - tiles started

  // ---------------------------------------------------------------------------------------
  // Input: beats assemble into memory words
  // ---------------------------------------------------------------------------------------
  logic                 last_beat;   // the offered beat completes a word
  logic                 dram_fire;   // a beat is taken
  logic                 mem_we;      // ... and completes a word
  logic [WordWidth-1:0] mem_wdata;

  if (Beats > 1) begin : g_assemble
    localparam int unsigned BeatWidth = $clog2(Beats);

    logic [BeatWidth-1:0] beat_q, beat_d;       // next beat's position within its row
    logic [DramWidth-1:0] part_q [Beats-1];     // the row's earlier beats

    assign last_beat = beat_q == BeatWidth'(Beats - 1);

    always_comb begin
      beat_d = beat_q;
      if (dram_fire) beat_d = last_beat ? '0 : beat_q + 1'b1;
      if (flush_i)   beat_d = '0;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) beat_q <= '0;
      else         beat_q <= beat_d;
    end

    // One register per earlier beat (Yosys 0.23 cannot assign a whole unpacked array).
    for (genvar b = 0; b < Beats - 1; b++) begin : g_part
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni)                                  part_q[b] <= '0;
        else if (dram_fire && beat_q == BeatWidth'(b)) part_q[b] <= dram_data_i;
      end
      assign mem_wdata[b*DramWidth +: DramWidth] = part_q[b];
    end
    assign mem_wdata[(Beats-1)*DramWidth +: DramWidth] = dram_data_i;
  end else begin : g_direct
    assign last_beat = 1'b1;
    assign mem_wdata = dram_data_i;
  end

  // ---------------------------------------------------------------------------------------
  // Storage: a plain memory, written once per word, read into the output register
  // ---------------------------------------------------------------------------------------
  logic                 mem_re;     // move the oldest word into the output register
  logic [PtrWidth-1:0]  wr_ptr_q, wr_ptr_d, rd_ptr_q, rd_ptr_d;
  logic [WordWidth-1:0] mem [Words];
  logic [WordWidth-1:0] rdata_q;    // output register: the read port's data

  // No reset on the memory or its read data (so that Yosys infers a memory); rdata_q is only
  // looked at while out_valid_q says it was loaded.
  always_ff @(posedge clk_i) begin
    if (mem_we) mem[wr_ptr_q] <= mem_wdata;
  end

  always_ff @(posedge clk_i) begin
    if (mem_re) rdata_q <= mem[rd_ptr_q];
  end

  // ---------------------------------------------------------------------------------------
  // Control and status
  // ---------------------------------------------------------------------------------------
  logic [WordCntW-1:0]    words_q, words_d;       // words in the memory
  logic                   out_valid_q, out_valid_d;  // the output register holds rows
  logic [IdxWidth-1:0]    out_idx_q, out_idx_d;   // next row within the output word
  logic [RowCntWidth-1:0] rows_q, rows_d;         // complete rows held (memory + output)
  logic [TileRowW-1:0]    wr_trow_q, wr_trow_d;   // tile row of the next word's first row
  logic [TileRowW-1:0]    rd_trow_q, rd_trow_d;   // tile row of the next row to leave
  logic [TileDiffW-1:0]   tdiff_q, tdiff_d;       // tiles completed - tiles started, >= -1

  logic room, out_fire, out_last, tile_in, tile_out;

  // The handshake outputs on their own (not in the block below that reads the other side's
  // handshake inputs), so that simulators see no combinational loop through a consumer whose
  // ready is computed next to its own valid input.
  assign room           = words_q != WordCntW'(Words);
  assign dram_ready_o   = !flush_i && (!last_beat || room);
  assign weight_valid_o = out_valid_q && !flush_i;

  always_comb begin
    dram_fire      = dram_valid_i && dram_ready_o;
    mem_we         = dram_fire && last_beat;

    out_fire       = weight_valid_o && weight_ready_i;
    out_last       = (RowsPerWord == 1) || (out_idx_q == IdxWidth'(RowsPerWord - 1));
    // Refill the output register when it is empty or its last row leaves now.
    mem_re         = !flush_i && (words_q != '0) && (!out_valid_q || (out_fire && out_last));

    // A tile is counted in when the word holding its last row is written, and counted out
    // when its first row leaves.
    tile_in        = mem_we && (wr_trow_q == TileRowW'(N - RowsPerWord));
    tile_out       = out_fire && (rd_trow_q == '0);

    wr_ptr_d = wr_ptr_q;
    if (mem_we) wr_ptr_d = (wr_ptr_q == PtrWidth'(Words - 1)) ? '0 : wr_ptr_q + 1'b1;
    rd_ptr_d = rd_ptr_q;
    if (mem_re) rd_ptr_d = (rd_ptr_q == PtrWidth'(Words - 1)) ? '0 : rd_ptr_q + 1'b1;

    words_d = words_q + WordCntW'(mem_we) - WordCntW'(mem_re);

    out_valid_d = out_valid_q;
    if (out_fire && out_last) out_valid_d = 1'b0;
    if (mem_re)               out_valid_d = 1'b1;
    out_idx_d = out_idx_q;
    if (out_fire) out_idx_d = out_last ? '0 : out_idx_q + 1'b1;

    rows_d = rows_q + (mem_we ? RowCntWidth'(RowsPerWord) : '0) - RowCntWidth'(out_fire);

    wr_trow_d = wr_trow_q;
    if (mem_we) wr_trow_d = tile_in ? '0 : wr_trow_q + TileRowW'(RowsPerWord);
    rd_trow_d = rd_trow_q;
    if (out_fire) rd_trow_d = (rd_trow_q == TileRowW'(N - 1)) ? '0 : rd_trow_q + 1'b1;
    tdiff_d = tdiff_q + TileDiffW'(tile_in) - TileDiffW'(tile_out);

    if (flush_i) begin
      wr_ptr_d    = '0;
      rd_ptr_d    = '0;
      words_d     = '0;
      out_valid_d = 1'b0;
      out_idx_d   = '0;
      rows_d      = '0;
      wr_trow_d   = '0;
      rd_trow_d   = '0;
      tdiff_d     = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q    <= '0;
      rd_ptr_q    <= '0;
      words_q     <= '0;
      out_valid_q <= 1'b0;
      out_idx_q   <= '0;
      rows_q      <= '0;
      wr_trow_q   <= '0;
      rd_trow_q   <= '0;
      tdiff_q     <= '0;
    end else begin
      wr_ptr_q    <= wr_ptr_d;
      rd_ptr_q    <= rd_ptr_d;
      words_q     <= words_d;
      out_valid_q <= out_valid_d;
      out_idx_q   <= out_idx_d;
      rows_q      <= rows_d;
      wr_trow_q   <= wr_trow_d;
      rd_trow_q   <= rd_trow_d;
      tdiff_q     <= tdiff_d;
    end
  end

  // The output row: the whole word, or its row out_idx_q (row 0 in the low bits).
  if (RowsPerWord > 1) begin : g_row_select
    assign weight_row_o = rdata_q[out_idx_q*RowWidth +: RowWidth];
  end else begin : g_row_whole
    assign weight_row_o = rdata_q;
  end

  assign rows_o  = rows_q;
  // A tile whose first row left before its last row arrived makes the difference -1.
  assign tiles_o = tdiff_q[TileDiffW-1] ? '0 : tdiff_q[TileCntWidth-1:0];
  assign empty_o = rows_q == '0;
  assign full_o  = !room;

  // ---------------------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------------------
  `TPU_ASSERT_INIT(DramWidthIsBytes, DramWidth > 0 && DramWidth % InWidth == 0)
  `TPU_ASSERT_INIT(DramWidthMatchesRow,
      (Wide && DramWidth % RowWidth == 0) || (!Wide && RowWidth % DramWidth == 0))
  `TPU_ASSERT_INIT(TileIsWholeBeats, N >= 2 && N % RowsPerWord == 0)
  `TPU_ASSERT_INIT(DepthAtLeastOneTile, DepthTiles >= 1)
  `TPU_ASSERT_INIT(CountWidthsFit,
      RowCntWidth >= $clog2((DepthTiles + 1) * N + 1) && TileCntWidth >= $clog2(DepthTiles + 2))
  `TPU_ASSERT(NoXOnHandshake,
      !$isunknown(dram_valid_i) && !$isunknown(weight_ready_i) && !$isunknown(flush_i),
      clk_i, rst_ni)
  `TPU_ASSERT(WordsInRange, words_q <= WordCntW'(Words), clk_i, rst_ni)
  // The row count agrees with the words in the memory and the rows left in the output word.
  `TPU_ASSERT(RowsMatchWords, rows_q == RowCntWidth'(words_q) * RowCntWidth'(RowsPerWord) +
      (out_valid_q ? RowCntWidth'(RowsPerWord) - RowCntWidth'(out_idx_q) : '0), clk_i, rst_ni)
  `TPU_ASSERT(OutputRegisterRefills, !(words_q != '0 && !out_valid_q && !flush_i) || mem_re,
      clk_i, rst_ni)
  `TPU_ASSERT(TilesNeverBelowMinusOne,
      !tdiff_q[TileDiffW-1] || tdiff_q == {TileDiffW{1'b1}}, clk_i, rst_ni)

endmodule
