// The data-set part of `tpu run`'s report (docs/networks.md "Data sets"): the images and
// batches, the folded activations, images per second, and with --labels the top-1 accuracy,
// per-class accuracy and confusion matrix, as text lines or JSON keys.
#ifndef TPU_HOST_DRIVER_CLI_DATASET_REPORT_H_
#define TPU_HOST_DRIVER_CLI_DATASET_REPORT_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "network/accuracy.h"
#include "network/fold.h"

namespace tpu::cli {

struct DatasetInfo {
  int64_t images = 1, batch = 1, batches = 1;
  std::vector<network::FoldedActivation> folded;
  std::string input_float;   // "" or how the float input was quantized
  std::string output_float;  // "" or the dequantized output's file and scale
  std::string labels;        // the --labels file, "" without
  std::optional<network::Accuracy> accuracy;
};

// Images per second of simulated device time (nullopt when the backend measures none) and of
// wall-clock time.
struct ImageRates {
  std::optional<double> simulated, wall;
};
ImageRates RatesOf(int64_t images, const std::optional<double>& simulated_us, double wall_s);

// Adds "images", "batch", "batches", "folded_layers", "input_float", "output_float",
// "images_per_s" {"simulated", "wall"} and, with labels, "labels" and "accuracy" {"top1",
// "correct", "images", "per_class" [{"class", "images", "correct", "accuracy"}], "confusion"
// (rows: true label, columns: predicted)}.
void AddDatasetJson(nlohmann::json& report, const DatasetInfo& info, const ImageRates& rates);

// The same as text lines after the layer table.
void PrintDatasetText(std::ostream& out, const DatasetInfo& info, const ImageRates& rates);

}  // namespace tpu::cli

#endif  // TPU_HOST_DRIVER_CLI_DATASET_REPORT_H_
