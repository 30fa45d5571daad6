// Shared constants and types of the TPU. Use as tpu_pkg::Name (Yosys 0.23 cannot read
// `import tpu_pkg::*`).
package tpu_pkg;

  // MXU datapath widths: int8 activations and weights, int32 partial sums (TPU v1).
  parameter int unsigned MxuInWidth  = 8;
  parameter int unsigned MxuAccWidth = 32;

  // Default array size of the system; unit tests also build 8, benchmarks 32 and up.
  parameter int unsigned MxuDim = 16;

  // Width of the user tag that rides along with each activation row through the MXU
  // (the controller puts the accumulator address and mode in it).
  parameter int unsigned MxuTagWidth = 16;

endpackage
