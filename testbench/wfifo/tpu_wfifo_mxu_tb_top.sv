// Test-bench top (not product RTL): weight-DRAM beats -> tpu_wfifo -> tpu_mxu's weight port,
// with the MXU's activation and result ports passed through. Lets the tests stream a GEMM whose
// weights come from the DRAM side and watch the link between the two blocks.
module tpu_wfifo_mxu_tb_top #(
  parameter int unsigned N          = tpu_pkg::MxuDim,           // MXU and FIFO size
  parameter int unsigned DramWidth  = N * tpu_pkg::MxuInWidth,   // DRAM beat bits
  parameter int unsigned DepthTiles = tpu_pkg::WfifoDepthTiles,  // FIFO depth in tiles
  parameter int unsigned TagWidth   = tpu_pkg::MxuTagWidth,      // user bits per row
  // Derived widths of the FIFO's status counts; do not override.
  parameter int unsigned RowCntWidth  = $clog2((DepthTiles + 1) * N + 1),
  parameter int unsigned TileCntWidth = $clog2(DepthTiles + 2)
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       flush_i,         // clears the FIFO
  // Weight-DRAM read data.
  input  logic                       dram_valid_i,    // dram_data_i holds a beat
  output logic                       dram_ready_o,    // ... and is taken this cycle
  input  logic [DramWidth-1:0]       dram_data_i,     // byte b at b*8
  // Activation rows.
  input  logic                       act_valid_i,     // act_row_i holds a row
  output logic                       act_ready_o,     // ... and is taken this cycle
  input  logic                       act_new_tile_i,  // row starts using the loaded tile
  input  logic [N*8-1:0]             act_row_i,       // int8 per input column k
  input  logic [TagWidth-1:0]        act_tag_i,       // returned with the row's result
  // Results.
  output logic                       out_valid_o,     // out_row_o holds a result row
  output logic [N*32-1:0]            out_row_o,       // int32 per output column c
  output logic [TagWidth-1:0]        out_tag_o,       // the row's act_tag_i
  // Observation of the FIFO -> MXU link and of the FIFO.
  output logic                       tile_loaded_o,   // MXU: a loaded tile waits
  output logic                       weight_valid_o,  // FIFO offers a weight row
  output logic                       weight_ready_o,  // MXU takes it
  output logic [RowCntWidth-1:0]     fifo_rows_o,     // FIFO: complete rows held
  output logic [TileCntWidth-1:0]    fifo_tiles_o,    // FIFO: whole unstarted tiles held
  output logic                       fifo_empty_o,    // FIFO: no complete row held
  output logic                       fifo_full_o      // FIFO: memory full
);

  logic [N*8-1:0] weight_row;

  tpu_wfifo #(
    .N         (N),
    .DepthTiles(DepthTiles),
    .DramWidth (DramWidth)
  ) u_wfifo (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .flush_i       (flush_i),
    .dram_valid_i  (dram_valid_i),
    .dram_ready_o  (dram_ready_o),
    .dram_data_i   (dram_data_i),
    .weight_valid_o(weight_valid_o),
    .weight_ready_i(weight_ready_o),
    .weight_row_o  (weight_row),
    .rows_o        (fifo_rows_o),
    .tiles_o       (fifo_tiles_o),
    .empty_o       (fifo_empty_o),
    .full_o        (fifo_full_o)
  );

  tpu_mxu #(
    .N       (N),
    .TagWidth(TagWidth)
  ) u_mxu (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .weight_valid_i(weight_valid_o),
    .weight_ready_o(weight_ready_o),
    .weight_row_i  (weight_row),
    .act_valid_i   (act_valid_i),
    .act_ready_o   (act_ready_o),
    .act_new_tile_i(act_new_tile_i),
    .act_row_i     (act_row_i),
    .act_tag_i     (act_tag_i),
    .out_valid_o   (out_valid_o),
    .out_row_o     (out_row_o),
    .out_tag_o     (out_tag_o),
    .tile_loaded_o (tile_loaded_o)
  );

endmodule
