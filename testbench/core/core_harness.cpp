#include "core/core_harness.h"

#include <sstream>

#include "isa/codec.h"

namespace tpu::tb {

const char* CorePerf::Name(int i) {
  static const char* const kNames[kCount] = {
      "cycles",         "mxu_busy",  "stall_weights", "stall_act_in", "stall_dma",
      "stall_dep",      "rows_dma",  "rows_weights",  "rows_matrix",  "rows_act"};
  return (i >= 0 && i < kCount) ? kNames[i] : "?";
}

std::string CoreRunResult::Describe() const {
  std::ostringstream s;
  s << (finished ? "" : "NOT FINISHED ") << (done ? "done" : "") << (error ? "error" : "")
    << " code=" << static_cast<int>(error_code) << " index=" << error_index
    << " cycles=" << cycles << " instructions=" << instructions << " irq=" << irq_pulses;
  for (int i = 0; i < CorePerf::kCount; ++i) s << ' ' << CorePerf::Name(i) << '=' << perf.v[i];
  return s.str();
}

std::vector<isa::Words> EncodeProgram(const std::vector<isa::Instr>& program) {
  std::vector<isa::Words> words;
  words.reserve(program.size());
  for (const auto& instr : program) words.push_back(isa::Encode(instr));
  return words;
}

}  // namespace tpu::tb
