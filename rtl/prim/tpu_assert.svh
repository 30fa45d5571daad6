// Assertion macros. TPU_ASSERT (a property checked every cycle) expands to nothing under
// SYNTHESIS (Yosys 0.23 reads no concurrent assertions) and to a concurrent assertion otherwise
// (Verilator runs it with --assert). TPU_ASSERT_INIT (a check of the parameters) never vanishes:
// under SYNTHESIS it is a generate-time `$error`, so Yosys fails elaboration with the check's
// name and condition ("ERROR: parameter check <name> failed: <cond>"); for Verilator it stays an
// `initial` `$fatal` that stops the simulation at time 0 with the same words.
// TPU_STABLE (a helper for TPU_ASSERT) declares a 1-bit signal that an assertion reads where it
// would write `$stable(value)` of a value too wide to sample; under SYNTHESIS it is nothing.
`ifndef TPU_ASSERT_SVH
`define TPU_ASSERT_SVH

`ifdef SYNTHESIS
  `define TPU_ASSERT(name, cond, clk, rst_n)
  `define TPU_STABLE(name, value, clk)
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
  // Declares `name`: at a rising edge of `clk` an assertion reads it as `$stable(value)`, i.e.
  // the value equals the one it had at the previous edge. Why not `$stable` itself: an
  // assertion samples every variable it reads, and Verilator 5.006 copies a sampled value of
  // 64 words or more (a row at N = 256) in a loop whose variable it does not declare, so the
  // model does not compile. Here the copy of the previous value is an ordinary register and
  // the assertion samples one bit; `public_flat_rd` keeps Verilator from substituting the
  // comparison (and with it the wide operands) into the assertion.
  `define TPU_STABLE(name, value, clk)                                    \
    logic [$bits(value)-1:0] name``_prev_q;                                \
    always_ff @(posedge clk) name``_prev_q <= (value);                     \
    logic name /* verilator public_flat_rd */;                             \
    assign name = ((value) == name``_prev_q);
  // Checks an elaboration-time condition (parameters) once at start.
  `define TPU_ASSERT_INIT(name, cond)                                     \
    initial begin : name                                                   \
      if (!(cond)) $fatal(1, "parameter check %s failed: %s", `"name`", `"cond`"); \
    end
`endif

`endif
