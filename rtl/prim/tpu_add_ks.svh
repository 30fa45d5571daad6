// add_ks(a, b, cin) = a + b + cin, 35 bits (the carry out of bit 34 is dropped): a function
// included in the body of a module that adds (`include "tpu_add_ks.svh"), so that it can be
// called where registers load (for the simulator, see tpu_act_requant_lane).
//
// Written with Kogge-Stone prefix carries, log2(35) + 2 levels of gates, for the logic-depth
// budget (docs/fpga.md): generic synthesis maps a plain `+` to a ripple chain 70 gates deep.
// The carry in joins at the last level (every carry is G + P cin over the bits below it), so a
// late cin adds one level instead of a whole prefix.
//
// With TPU_FPGA_CARRY_CHAIN defined (the FPGA flow, cmake/TpuFpga.cmake) it is a plain `+`:
// an FPGA's carry chain adds faster than prefix logic in its lookup tables (on the iCE40 the
// activation pipeline went from 45.2 to 52.8 MHz). synth.add_ks proves the prefix version
// equal to a + b + cin for every input.
function automatic logic [34:0] add_ks(logic [34:0] a, logic [34:0] b, logic cin);
`ifdef TPU_FPGA_CARRY_CHAIN
  add_ks = a + b + 35'(cin);
`else
  logic [34:0] g, p;
  logic [33:0] carry;
  g = a & b;
  p = a ^ b;
  for (int span = 1; span < 35; span = 2 * span) begin
    g = g | (p & (g << span));
    p = p & ~(~p << span);  // ones shift in: p[i] ends as the propagate of bits i..0
  end
  carry  = 34'(g | (p & {35{cin}}));  // carry out of bit i (the top bit's is not needed)
  add_ks = a ^ b ^ {carry[33:0], cin};
`endif
endfunction
