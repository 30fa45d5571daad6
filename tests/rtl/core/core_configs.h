// The Verilated core configurations the tests run on (testbench/core/CMakeLists.txt).
#ifndef TPU_TESTS_RTL_CORE_CORE_CONFIGS_H_
#define TPU_TESTS_RTL_CORE_CORE_CONFIGS_H_

#include <memory>
#include <stdexcept>
#include <string>

#include "core/core_harness.h"

namespace tpu::tb {

inline std::unique_ptr<CoreHarness> MakeCore(int config, const HarnessOptions& opts = {}) {
  switch (config) {
    case 0: return MakeCoreHarness<0>(opts);
    case 1: return MakeCoreHarness<1>(opts);
    default: throw std::invalid_argument("no core configuration " + std::to_string(config));
  }
}

// Memory timings the tests use: ideal, and a slow, jittery host and DRAM with back-pressure.
inline CoreTiming IdealTiming() { return CoreTiming{}; }
inline CoreTiming JitteryTiming() {
  CoreTiming t;
  t.host = PortTiming{0.6, 2, 30, 0.7};
  t.dram = PortTiming{0.5, 4, 40, 0.6};
  t.instr_prob = 0.5;
  return t;
}

}  // namespace tpu::tb

#endif  // TPU_TESTS_RTL_CORE_CORE_CONFIGS_H_
