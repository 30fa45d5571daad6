// Programmable 256-entry int8 lookup table of the activation pipeline (sigmoid, tanh, anything),
// with one write port and Ports registered read ports (one per channel).
// Entry i holds f(i - 128): port p reads lut[x + 128] for its int8 input x, i.e. the index is x
// with its sign bit flipped (the golden reference's LutIndex convention; TFLite's uint8_t(x)
// indexing differs by that one bit). A write takes effect on the next clock edge, so a read in
// the same cycle still sees the old entry. Entries have no reset: load all 256 before use.
// The read is synchronous: y_o is a register that loads lut[x_i + 128] at the clock edge when
// re_i is set and holds otherwise (no reset). That is the read of a block RAM, so synthesis
// for an FPGA maps each read port to one (a table copy per port) rather than to a 256-to-1
// multiplexer of flip-flops per output bit. Inferred as one memory ($mem_v2) with a
// synchronous write port and Ports synchronous read ports.
module tpu_act_lut #(
  parameter int unsigned Ports = tpu_pkg::MxuDim  // read ports (channels)
) (
  input  logic               clk_i,
  input  logic               we_i,     // write wdata_i into entry waddr_i
  input  logic [7:0]         waddr_i,  // entry index = input code + 128
  input  logic [7:0]         wdata_i,  // int8 output for that input code
  input  logic               re_i,     // every port reads at this clock edge
  input  logic [Ports*8-1:0] x_i,      // int8 input of port p at [p*8 +: 8]
  output logic [Ports*8-1:0] y_o       // lut[x + 128] for port p at [p*8 +: 8], registered
);

  logic [7:0] mem [256];

  always_ff @(posedge clk_i) begin
    if (we_i) mem[waddr_i] <= wdata_i;
  end

  for (genvar p = 0; p < Ports; p++) begin : g_port
    logic [7:0] y_q;
    // x + 128 in 8 bits: flip the sign bit.
    always_ff @(posedge clk_i) begin
      if (re_i) y_q <= mem[{~x_i[p*8+7], x_i[p*8 +: 7]}];
    end
    assign y_o[p*8 +: 8] = y_q;
  end

endmodule
