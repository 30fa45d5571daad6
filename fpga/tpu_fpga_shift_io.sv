// Serial access to a block's ports for place and route on a small FPGA package: a block with
// hundreds of port bits does not fit the pins of an iCE40 (the MXU at N = 4 needs 233), so the
// wrappers under fpga/ reach its inputs and outputs through two shift registers and six pins.
//
// While shift_i is high, sdi_i enters the input register at bit 0 and every bit moves up one
// (InBits cycles fill it; in_o is the register, so the block sees stable inputs otherwise).
// capture_i loads out_i into the output register; shift_i then moves it down, bit 0 on sdo_o.
// Every port of the block is reached, so synthesis keeps all of its logic. What is measured is
// the block's fabric (cells, register-to-register timing), not how it would be wired in a system.
module tpu_fpga_shift_io #(
  parameter int unsigned InBits  = 8,  // the block's input bits (at least 1)
  parameter int unsigned OutBits = 8   // the block's output bits (at least 1)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               shift_i,    // move both registers one bit this cycle
  input  logic               sdi_i,      // next input bit, taken while shift_i
  input  logic               capture_i,  // load out_i into the output register
  output logic               sdo_o,      // output register bit 0
  output logic [InBits-1:0]  in_o,       // to the block's inputs
  input  logic [OutBits-1:0] out_i       // from the block's outputs
);

  logic [InBits-1:0]  in_q;
  logic [OutBits-1:0] out_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_q <= '0;
    end else if (shift_i) begin
      in_q <= (InBits > 1) ? {in_q[InBits-2:0], sdi_i} : InBits'(sdi_i);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_q <= '0;
    end else if (capture_i) begin
      out_q <= out_i;
    end else if (shift_i) begin
      out_q <= out_q >> 1;
    end
  end

  assign in_o  = in_q;
  assign sdo_o = out_q[0];

endmodule
