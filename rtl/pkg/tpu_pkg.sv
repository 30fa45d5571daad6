// Shared constants and types of the TPU. Use as tpu_pkg::Name (Yosys 0.23 cannot read
// `import tpu_pkg::*`).
// Every module uses only some of these constants; without this waiver Verilator -Wall reports
// each constant a module does not use as soon as the module names tpu_pkg:: in its body.
/* verilator lint_off UNUSEDPARAM */
package tpu_pkg;

  // MXU datapath widths: int8 activations and weights, int32 partial sums (TPU v1).
  parameter int unsigned MxuInWidth  = 8;
  parameter int unsigned MxuAccWidth = 32;

  // Default array size of the system; unit tests also build 8, benchmarks 32 and up.
  parameter int unsigned MxuDim = 16;

  // Width of the user tag that rides along with each activation row through the MXU
  // (the controller puts the accumulator address and mode in it).
  parameter int unsigned MxuTagWidth = 16;

  // ---- Activation pipeline: requantization (rtl/act/tpu_act_requant*.sv) ----
  // Bits of a per-channel shift: signed, TFLite convention (> 0 shifts left), range [-31, 30].
  parameter int unsigned ActShiftWidth = 6;
  // Width of the user tag that rides along with each row through the activation pipeline
  // (the controller puts the unified-buffer address and flags in it).
  parameter int unsigned ActTagWidth = 16;
  // ---- end of requantization constants ----

  // ---- Weight FIFO (rtl/wfifo/tpu_wfifo.sv) ----
  // Depth of the weight FIFO's memory in N x N weight tiles (TPU v1 holds four).
  parameter int unsigned WfifoDepthTiles = 4;
  // ---- end of weight FIFO constants ----

  // ---- Unified buffer and accumulators (rtl/ub, rtl/acc) -----------------------------------
  // Default depths: UbDepth rows of N int8 in the unified buffer; AccDepth rows of N int32 in
  // the accumulators, split into two regions of AccDepth / 2 rows (double buffering).
  parameter int unsigned UbDepth  = 4096;
  parameter int unsigned AccDepth = 1024;
  // ---- end of unified buffer and accumulator constants ----

  // ---- Activation pipeline: pooling (rtl/act/tpu_act_pool*.sv) ----
  // cfg_mode_i of tpu_act_pool.
  parameter logic [1:0] PoolModeBypass = 2'd0;  // every input row leaves unchanged
  parameter logic [1:0] PoolModeMax    = 2'd1;  // max pooling
  parameter logic [1:0] PoolModeAvg    = 2'd2;  // average pooling (TFLite rounding)
  // Widths of the configuration fields: image sizes, and window sizes and strides.
  parameter int unsigned PoolDimWidth = 16;
  parameter int unsigned PoolWinWidth = 4;
  // Default limits: image width (line-buffer depth), image height, window and stride sizes.
  parameter int unsigned PoolMaxWidth  = 64;
  parameter int unsigned PoolMaxHeight = 1024;
  parameter int unsigned PoolMaxWindow = 4;
  parameter int unsigned PoolMaxStride = 4;
  // ---- end of pooling constants ----

endpackage
/* verilator lint_on UNUSEDPARAM */
