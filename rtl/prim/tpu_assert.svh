// Assertion macros. They expand to nothing under SYNTHESIS (Yosys 0.23 reads no concurrent
// assertions), and to concurrent assertions otherwise (Verilator runs them with --assert).
`ifndef TPU_ASSERT_SVH
`define TPU_ASSERT_SVH

`ifdef SYNTHESIS
  `define TPU_ASSERT(name, cond, clk, rst_n)
  `define TPU_ASSERT_INIT(name, cond)
`else
  // Checks `cond` at every rising edge of `clk` while not in reset.
  `define TPU_ASSERT(name, cond, clk, rst_n)                              \
    name: assert property (@(posedge clk) disable iff (!(rst_n)) (cond))   \
      else $error("assertion %s failed: %s", `"name`", `"cond`");
  // Checks an elaboration-time condition (parameters) once at start.
  `define TPU_ASSERT_INIT(name, cond)                                     \
    initial begin : name                                                   \
      if (!(cond)) $fatal(1, "parameter check %s failed: %s", `"name`", `"cond`"); \
    end
`endif

`endif
