// How a layer command turns int32 accumulators into int8 outputs: one of three requantization
// forms, the zero points and the activation.
//   --scale F                            real multiplier, quantized by golden::QuantizeMultiplier
//   --multiplier M0 --shift S            per tensor, TFLite convention (S > 0 shifts left)
//   --multipliers M.npy --shifts S.npy   per output channel, int32 arrays of N values
//   --input-zero-point Z --output-zero-point Z   int8
//   --activation none|relu|relu6         clamp bounds (golden::QuantizedActivationRange);
//                                        relu6 needs --output-scale F to place 6.0
#ifndef TPU_HOST_DRIVER_CLI_REQUANT_OPTIONS_H_
#define TPU_HOST_DRIVER_CLI_REQUANT_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "golden/requant.h"

namespace tpu::cli {

struct RequantOptions {
  double scale = 0.0;
  int64_t multiplier = 0;
  int shift = 0;
  std::string multipliers_path, shifts_path;
  int input_zero_point = 0;
  int output_zero_point = 0;
  std::string activation = "none";
  double output_scale = 0.0;
  // Set by AddRequantOptions; count() > 0 once the option was given.
  CLI::Option* scale_opt = nullptr;
  CLI::Option* multiplier_opt = nullptr;
  CLI::Option* shift_opt = nullptr;
  CLI::Option* multipliers_opt = nullptr;
  CLI::Option* shifts_opt = nullptr;
  CLI::Option* output_scale_opt = nullptr;
};

void AddRequantOptions(CLI::App& cmd, RequantOptions& options);

// Throws std::invalid_argument unless exactly one requantization form was given, complete
// (--multiplier with --shift, --multipliers with --shifts), and relu6 has --output-scale.
// Reads no file: called before anything is loaded.
void CheckRequantChoice(const RequantOptions& options);

struct ResolvedRequant {
  golden::RequantParams params;  // multipliers (1 or n), output zero point, clamp bounds
  std::string description;  // for the report, e.g. "per tensor: multiplier 1073741824, shift -1"
  std::string warning;      // "" or why the values look wrong (printed on stderr, not fatal)
};

// The warning for a per-tensor --scale above 1 (a left shift of `shift` bits): sums beyond
// 2^(31 - shift) wrap in int32, as in TFLite, turning a large positive sum into -128.
std::string ShiftWarning(double scale, int shift);

// The requantization for a layer with `n` output columns (`columns_of` names where n comes
// from, for messages). Reads the per-channel arrays and checks their values (multipliers in
// [0, 2^31 - 1], shifts in [-31, 30]). Throws std::invalid_argument naming the option and file.
ResolvedRequant ResolveRequant(const RequantOptions& options, int64_t n,
                               const std::string& columns_of);

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_REQUANT_OPTIONS_H_
