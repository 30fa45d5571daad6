// Options every Verilated harness takes: where to dump an FST trace, and which cycles.
#ifndef TPU_TESTBENCH_COMMON_HARNESS_OPTIONS_H_
#define TPU_TESTBENCH_COMMON_HARNESS_OPTIONS_H_

#include <cstdint>
#include <limits>
#include <string>

namespace tpu::tb {

struct HarnessOptions {
  std::string trace_path;  // FST file to write; empty = no trace (tracing is opt-in)
  uint64_t trace_begin = 0;                                   // first cycle dumped
  uint64_t trace_end = std::numeric_limits<uint64_t>::max();  // first cycle not dumped
  // 0: registers without a reset (datapath) start at zero; otherwise they start random, drawn
  // from this seed, so that a test can show that no result depends on them.
  uint32_t random_init_seed = 0;
};

// Options for a test's harness: traced to $TPU_WAVES_DIR/<name>.fst when the environment
// variable TPU_TRACE is set to 1, untraced otherwise. Test names become file names, so '/'
// (from parameterized tests) is replaced. TPU_RANDOM_INIT_SEED=S (S > 0) starts the registers
// without a reset from random values drawn from S (random_init_seed), so that any test can show
// that its results do not depend on them.
HarnessOptions TestHarnessOptions(const std::string& test_name);

// Where a harness of a coverage build (TPU_COVERAGE, docs/coverage.md) writes its counts: a new
// file in $TPU_COVERAGE_DIR (default: coverage/raw in the build tree), named after the process
// and the harness so that test processes running side by side never share one. The folder is
// created if missing.
std::string CoverageFilePath();

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_COMMON_HARNESS_OPTIONS_H_
