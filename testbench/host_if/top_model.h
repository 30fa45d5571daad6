// The Verilated device (rtl/tpu_top.sv), one library per configuration K: MakeTopModel<K>
// builds the pin-level interface of sc_models/system/top_model.h (sys::TopModel) over
// Vtpu_top_<K> (top_model_impl.h). The interface's names are imported into tpu::tb for the
// benches and tests here.
#ifndef TPU_TESTBENCH_HOST_IF_TOP_MODEL_H_
#define TPU_TESTBENCH_HOST_IF_TOP_MODEL_H_

#include <memory>

#include "common/harness_options.h"
#include "sc_models/system/top_model.h"

namespace tpu::tb {

using sys::TopConfig;
using sys::TopInputs;
using sys::TopModel;
using sys::TopOutputs;

// One per built configuration K (testbench/host_if/CMakeLists.txt).
template <int K>
std::unique_ptr<TopModel> MakeTopModel(const HarnessOptions& opts = {});

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_HOST_IF_TOP_MODEL_H_
