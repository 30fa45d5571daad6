#include "requant_options.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "golden/activation.h"
#include "golden/format.h"
#include "tensor_files.h"

namespace tpu::cli {
namespace {

bool Given(const CLI::Option* opt) { return opt != nullptr && opt->count() > 0; }

constexpr const char* kForms =
    "--scale F, --multiplier M0 --shift S, or --multipliers M.npy --shifts S.npy";

// The text of --scale must be a finite number: an empty string would otherwise read as 0 and
// "1e999" as infinity.
CLI::Validator RealNumberText() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
          return "'" + text + "' is not a number: expected a real multiplier such as 0.0023";
        }
        return "";
      },
      "NUMBER");
}

// Real multipliers of 2^30 or more cannot be represented (M0 < 2^31 and shift <= 30): TFLite
// saturates them, which turns every nonzero accumulator into -128 or 127.
constexpr double kMaxRealMultiplier = 1073741824.0;

}  // namespace

void AddRequantOptions(CLI::App& cmd, RequantOptions& o) {
  o.scale_opt = cmd.add_option("--scale", o.scale,
                               "real requantization multiplier (input scale * weight scale / "
                               "output scale), quantized like TFLite")
                    ->type_name("F")
                    ->check(RealNumberText());
  o.multiplier_opt = cmd.add_option("--multiplier", o.multiplier,
                                    "fixed-point multiplier M0 (Q0.31) for every column")
                         ->type_name("M0")
                         ->check(CLI::Range(int64_t{0}, int64_t{2147483647}));
  o.shift_opt = cmd.add_option("--shift", o.shift,
                               "power-of-two exponent with --multiplier (TFLite: > 0 shifts left)")
                    ->type_name("S")
                    ->check(CLI::Range(-31, 30));
  o.multipliers_opt = cmd.add_option("--multipliers", o.multipliers_path,
                                     "per-channel multipliers: int32 .npy of N values")
                          ->type_name("M.npy");
  o.shifts_opt = cmd.add_option("--shifts", o.shifts_path,
                                "per-channel shifts: int32 .npy of N values in [-31, 30]")
                     ->type_name("S.npy");
  cmd.add_option("--input-zero-point", o.input_zero_point, "zero point of the int8 input")
      ->type_name("Z")
      ->check(CLI::Range(-128, 127))
      ->capture_default_str();
  cmd.add_option("--output-zero-point", o.output_zero_point, "zero point of the int8 output")
      ->type_name("Z")
      ->check(CLI::Range(-128, 127))
      ->capture_default_str();
  cmd.add_option("--activation", o.activation, "fused activation, applied as a clamp")
      ->check(CLI::IsMember({"none", "relu", "relu6"}))
      ->capture_default_str();
  o.output_scale_opt = cmd.add_option("--output-scale", o.output_scale,
                                      "real value of one output step; places 6.0 for relu6")
                           ->type_name("F")
                           ->check(CLI::PositiveNumber);
}

void CheckRequantChoice(const RequantOptions& o) {
  const bool scale = Given(o.scale_opt);
  const bool single = Given(o.multiplier_opt) || Given(o.shift_opt);
  const bool channel = Given(o.multipliers_opt) || Given(o.shifts_opt);
  if (int(scale) + int(single) + int(channel) > 1) {
    std::string given;
    if (scale) given += "--scale";
    if (single) given += std::string(given.empty() ? "" : " and ") + "--multiplier/--shift";
    if (channel) given += std::string(given.empty() ? "" : " and ") + "--multipliers/--shifts";
    throw std::invalid_argument("requantization given twice (" + given + "): give one of " +
                                kForms);
  }
  if (!scale && !single && !channel) {
    throw std::invalid_argument(std::string("no requantization: give one of ") + kForms);
  }
  if (single && !(Given(o.multiplier_opt) && Given(o.shift_opt))) {
    throw std::invalid_argument(Given(o.shift_opt) ? "--shift S needs --multiplier M0"
                                                   : "--multiplier M0 needs --shift S");
  }
  if (channel && !(Given(o.multipliers_opt) && Given(o.shifts_opt))) {
    throw std::invalid_argument(Given(o.shifts_opt) ? "--shifts S.npy needs --multipliers M.npy"
                                                    : "--multipliers M.npy needs --shifts S.npy");
  }
  if (o.activation == "relu6" && !Given(o.output_scale_opt)) {
    throw std::invalid_argument(
        "--activation relu6 needs --output-scale F (the real value of one output step) to "
        "place 6.0 on the int8 scale");
  }
}

std::string ShiftWarning(double scale, int shift) {
  return "--scale " + golden::FormatReal(scale) + " is above 1: the accumulator is shifted left " +
         "by " + std::to_string(shift) + " bits before the multiply and wraps in int32 (as " +
         "TFLite's kernels do) once |sum| >= 2^" + std::to_string(31 - shift) +
         ", giving a wrong sign; such scales usually mean a mistaken output scale";
}

ResolvedRequant ResolveRequant(const RequantOptions& o, int64_t n, const std::string& columns_of) {
  CheckRequantChoice(o);
  ResolvedRequant r;
  golden::RequantParams& p = r.params;
  if (Given(o.scale_opt)) {
    if (o.scale >= kMaxRealMultiplier) {
      throw std::invalid_argument("--scale " + golden::FormatReal(o.scale) +
                                  ": too large: a real multiplier must be below 2^30 (the "
                                  "device's M0 x 2^shift with shift <= 30); check the scales it "
                                  "was computed from");
    }
    try {
      p.multipliers = {golden::QuantizeMultiplier(o.scale)};
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--scale " + golden::FormatReal(o.scale) + ": " + e.what());
    }
    r.description = "per tensor: --scale " + golden::FormatReal(o.scale) + " -> multiplier " +
                    std::to_string(p.multipliers[0].multiplier) + ", shift " +
                    std::to_string(p.multipliers[0].shift);
    if (o.scale > 1.0) r.warning = ShiftWarning(o.scale, p.multipliers[0].shift);
  } else if (Given(o.multiplier_opt)) {
    p.multipliers = {{static_cast<int32_t>(o.multiplier), o.shift}};
    r.description = "per tensor: multiplier " + std::to_string(o.multiplier) + ", shift " +
                    std::to_string(o.shift);
  } else {
    const std::string meaning =
        "one per output column (N = " + std::to_string(n) + ", the columns of " + columns_of + ")";
    const std::vector<int32_t> m = LoadInt32Vector("--multipliers", o.multipliers_path, n, meaning);
    const std::vector<int32_t> s = LoadInt32Vector("--shifts", o.shifts_path, n, meaning);
    for (int64_t c = 0; c < n; ++c) {
      const int32_t mc = m[size_t(c)], sc = s[size_t(c)];
      if (mc < 0) {
        throw std::invalid_argument("--multipliers: " + o.multipliers_path + ": multiplier[" +
                                    std::to_string(c) + "] = " + std::to_string(mc) +
                                    ": expected 0 .. 2147483647 (Q0.31)");
      }
      if (sc < -31 || sc > 30) {
        throw std::invalid_argument("--shifts: " + o.shifts_path + ": shift[" + std::to_string(c) +
                                    "] = " + std::to_string(sc) +
                                    ": expected -31 .. 30 (TFLite: > 0 shifts left)");
      }
      p.multipliers.push_back({mc, sc});
    }
    r.description = "per channel: " + std::to_string(n) + " multipliers from " +
                    o.multipliers_path + ", shifts from " + o.shifts_path;
  }

  p.out_zero_point = o.output_zero_point;
  golden::Activation act = golden::Activation::kNone;
  if (o.activation == "relu") act = golden::Activation::kRelu;
  if (o.activation == "relu6") act = golden::Activation::kRelu6;
  // Only relu6 depends on the output scale; the others take any valid one.
  const float output_scale = Given(o.output_scale_opt) ? float(o.output_scale) : 1.0f;
  try {
    const golden::ActivationRange range =
        golden::QuantizedActivationRange(act, output_scale, o.output_zero_point);
    p.act_min = range.min;
    p.act_max = range.max;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--activation " + o.activation + ": " + e.what());
  }
  return r;
}

}  // namespace tpu::cli
