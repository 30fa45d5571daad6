// Clock, reset, opt-in FST tracing and (in a coverage build) coverage counts around one Verilated top with ports clk_i and rst_ni.
//
// Include this only from sources compiled into the Verilated model's own library: the VM_*
// defines that say whether FST tracing is compiled in are private to that target.
#ifndef TPU_TESTBENCH_COMMON_VERILATED_HARNESS_H_
#define TPU_TESTBENCH_COMMON_VERILATED_HARNESS_H_

#include <verilated.h>
#if VM_COVERAGE
#include <verilated_cov.h>
#endif
#if VM_TRACE_FST
#include <verilated_fst_c.h>
#endif

#include <cstdint>
#include <memory>
#include <stdexcept>

#include "common/harness_options.h"

namespace tpu::tb {

// One clock period is 1000 time units (1 ns at Verilator's default 1 ps precision), so
// GTKWave shows cycle n at n ns.
inline constexpr uint64_t kHalfPeriod = 500;

template <typename Vtop>
class VerilatedHarness {
 public:
  explicit VerilatedHarness(const HarnessOptions& opts) : opts_(opts) {
    ctx_ = std::make_unique<VerilatedContext>();
    const char* argv[] = {"harness"};
    ctx_->commandArgs(1, argv);
    // Initial values of registers without reset (the models are built with --x-initial
    // unique): zero, or random when the options ask for it.
    ctx_->randReset(opts.random_init_seed != 0 ? 2 : 0);
    if (opts.random_init_seed != 0) ctx_->randSeed(int(opts.random_init_seed));
    ctx_->traceEverOn(!opts.trace_path.empty());
    // Verilator 5.006 registers and erases a model's scopes in the calling thread's current
    // context, not the model's: keep ours current around construction and destruction, or a
    // second harness in the same process deadlocks on a destroyed context's mutex.
    Verilated::threadContextp(ctx_.get());
    top_ = std::make_unique<Vtop>(ctx_.get(), "TOP");
    if (!opts.trace_path.empty()) OpenTrace();
    top_->clk_i = 0;
    top_->rst_ni = 1;
    top_->eval();
  }
  ~VerilatedHarness() {
    top_->final();
#if VM_COVERAGE
    // A coverage build (TPU_COVERAGE): each harness has its own context and so its own counts;
    // `make coverage` merges the files (docs/coverage.md).
    ctx_->coveragep()->write(CoverageFilePath().c_str());
#endif
#if VM_TRACE_FST
    if (trace_) trace_->close();
#endif
    Verilated::threadContextp(ctx_.get());  // see the constructor
    top_.reset();
  }
  VerilatedHarness(const VerilatedHarness&) = delete;
  VerilatedHarness& operator=(const VerilatedHarness&) = delete;

  Vtop& dut() { return *top_; }
  VerilatedContext& context() { return *ctx_; }  // e.g. to count assertion failures
  uint64_t cycle() const { return cycle_; }
  bool tracing() const { return traced_; }

  // Asynchronous reset held for `cycles` clock edges, released between edges.
  // The first clock edge of the first reset runs with the assertions off. Verilator models an
  // asynchronous reset as an edge: a flip-flop of a reset tree (tpu_host_regs' core_rst_nq,
  // tpu_core's blocks_rst_nq) that starts at 0 under a random initial state
  // (random_init_seed) sees no falling edge when rst_ni falls, so the flip-flop it drives
  // keeps its random 1 and the blocks below count as out of reset until the first clock edge
  // resets it. In silicon the reset is a level and holds them; only the assertions, sampled
  // at that edge on random state, would see the difference.
  void Reset(int cycles = 2) {
    falling_pending_ = false;
    top_->rst_ni = 0;
    top_->eval();
    for (int i = 0; i < cycles; ++i) {
      const bool asserts_on = ctx_->assertOn();
      if (!powered_up_) ctx_->assertOn(false);
      Tick();
      ctx_->assertOn(asserts_on);
      powered_up_ = true;
    }
    top_->rst_ni = 1;
    top_->eval();
  }

  // Settles combinational logic after inputs changed (to read ready signals).
  void Eval() {
    falling_pending_ = false;
    top_->eval();
  }

  // One clock cycle: rising edge, then falling edge. Inputs change between calls.
  void Tick() {
    falling_pending_ = false;
    top_->clk_i = 1;
    top_->eval();
    Dump(ctx_->time());
    ctx_->timeInc(kHalfPeriod);
    top_->clk_i = 0;
    top_->eval();
    Dump(ctx_->time());
    ctx_->timeInc(kHalfPeriod);
    ++cycle_;
  }

  // Tick() for a bench that sets inputs and calls Eval() before every rising edge anyway: the
  // rising edge is evaluated here and the falling edge is left to that next Eval(), which then
  // sees clk_i low and the new inputs at once. Nothing in the RTL is clocked on the falling
  // edge, so every value is the same as with Tick(), at one evaluation of the model per cycle
  // less (of three). Outputs are valid after the next Eval() only. While tracing, both edges
  // are evaluated and dumped, as Tick() does.
  void TickRising() {
    if (traced_) {
      Tick();
      return;
    }
    top_->clk_i = 1;
    top_->eval();
    ctx_->timeInc(2 * kHalfPeriod);
    top_->clk_i = 0;
    falling_pending_ = true;
    ++cycle_;
  }

  // After TickRising(): the falling edge waits for the next Eval() (clk_i low, not evaluated).
  bool falling_edge_pending() const { return falling_pending_; }
  // The caller took that falling edge without an evaluation, having recorded it in the model's
  // own edge detection (TopModelImpl::Eval: only when the inputs are those of the rising
  // edge's evaluation, so that the evaluation would compute nothing new).
  void FallingEdgeTaken() { falling_pending_ = false; }

 private:
  void OpenTrace() {
#if VM_TRACE_FST
    trace_ = std::make_unique<VerilatedFstC>();
    top_->trace(trace_.get(), 99);
    trace_->open(opts_.trace_path.c_str());
    // Verilator reports a file it cannot create only on stderr; without this check a run would
    // go on and its report name a waveform that does not exist.
    if (!trace_->isOpen()) {
      throw std::runtime_error("--trace " + opts_.trace_path +
                               ": cannot create the waveform file (is its folder there and "
                               "writable?)");
    }
    traced_ = true;
#else
    throw std::runtime_error("tracing requested but this model was built without FST tracing");
#endif
  }
  void Dump(uint64_t time) {
#if VM_TRACE_FST
    if (trace_ && cycle_ >= opts_.trace_begin && cycle_ < opts_.trace_end) trace_->dump(time);
#else
    (void)time;
#endif
  }

  HarnessOptions opts_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtop> top_;
#if VM_TRACE_FST
  std::unique_ptr<VerilatedFstC> trace_;
#endif
  uint64_t cycle_ = 0;
  bool traced_ = false;
  bool powered_up_ = false;       // a clock edge in reset has passed (Reset)
  bool falling_pending_ = false;  // TickRising() left the falling edge to the next Eval()
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_COMMON_VERILATED_HARNESS_H_
