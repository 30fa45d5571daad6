// --check in a command's report: the comparison (runtime/compare.h) as a report line and the
// message for stderr.
#ifndef TPU_HOST_DRIVER_CLI_COMPARE_H_
#define TPU_HOST_DRIVER_CLI_COMPARE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "golden/format.h"
#include "golden/tensor.h"
#include "report.h"
#include "runtime/compare.h"

namespace tpu::cli {

using runtime::Compare;
using runtime::Comparison;

// Adds the "check" line to the report and returns "" if `got` equals `want`, else the message
// for stderr: the first differing (row, col) of the (rows, cols) result `name` and both values.
template <typename T>
std::string ReportCheck(Report& report, const std::string& backend, const std::string& name,
                        const golden::Tensor<T>& got, const golden::Tensor<T>& want) {
  const Comparison c = Compare(got, want);
  const char* type = sizeof(T) == 1 ? "int8" : "int32";
  if (!c.same_shape) {
    report.Add("check", "check vs golden", "FAIL (shape differs)");
    return "--check: " + backend + " result has shape " + golden::ShapeToString(got.shape) +
           ", golden " + golden::ShapeToString(want.shape);
  }
  if (c.ok()) {
    report.Add("check", "check vs golden",
               "PASS (" + std::to_string(c.total) + " " + type + " results bit-exact)");
    return "";
  }
  report.Add("check", "check vs golden",
             "FAIL (" + std::to_string(c.mismatches) + " of " + std::to_string(c.total) +
                 " results differ)");
  const std::string values = backend + " " + std::to_string(c.got) + ", golden " +
                             std::to_string(c.want) + " (" + std::to_string(c.mismatches) +
                             " of " + std::to_string(c.total) + " differ)";
  if (want.shape.size() != 2) {
    // Any other rank (NHWC layer outputs): the full index, e.g. output[0][2][1][5].
    std::string index;
    int64_t rest = int64_t(c.first);
    for (auto axis = want.shape.size(); axis-- > 0;) {
      index = "[" + std::to_string(rest % want.shape[axis]) + "]" + index;
      rest /= want.shape[axis];
    }
    return "--check: first mismatch at " + name + index + ": " + values;
  }
  const int64_t cols = want.shape[1];
  const int64_t row = int64_t(c.first) / cols, col = int64_t(c.first) % cols;
  return "--check: first mismatch at " + name + "[" + std::to_string(row) + "][" +
         std::to_string(col) + "] (row " + std::to_string(row) + ", column " + std::to_string(col) +
         "): " + values;
}

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_COMPARE_H_
