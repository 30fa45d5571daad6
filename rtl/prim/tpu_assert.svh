// Assertion macros. TPU_ASSERT (a property checked every cycle) expands to nothing under
// SYNTHESIS (Yosys 0.23 reads no concurrent assertions) and to a concurrent assertion otherwise
// (Verilator runs it with --assert). TPU_ASSERT_INIT (a check of the parameters) never vanishes:
// under SYNTHESIS it is a generate-time `$error`, so Yosys fails elaboration with the check's
// name and condition ("ERROR: parameter check <name> failed: <cond>"); for Verilator it stays an
// `initial` `$fatal` that stops the simulation at time 0 with the same words.
`ifndef TPU_ASSERT_SVH
`define TPU_ASSERT_SVH

`ifdef SYNTHESIS
  `define TPU_ASSERT(name, cond, clk, rst_n)
  // Fails elaboration when `cond` is false (Yosys 0.23 prints the literal, so it is one string).
  `define TPU_ASSERT_INIT(name, cond)                                     \
    if (!(cond)) begin : name                                              \
      $error(`"parameter check name failed: cond`");                       \
    end
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
