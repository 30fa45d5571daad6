#include "dataset_report.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace tpu::cli {
namespace {

using nlohmann::json;

std::string Fixed(double v, int precision) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << v;
  return s.str();
}

std::string Percent(double fraction) { return Fixed(100.0 * fraction, 2) + "%"; }

std::string Rate(const std::optional<double>& v) { return v ? Fixed(*v, 1) : "n/a"; }

}  // namespace

ImageRates RatesOf(int64_t images, const std::optional<double>& simulated_us, double wall_s) {
  ImageRates r;
  if (simulated_us && *simulated_us > 0) r.simulated = double(images) / (*simulated_us * 1e-6);
  if (wall_s > 0) r.wall = double(images) / wall_s;
  return r;
}

void AddDatasetJson(json& report, const DatasetInfo& info, const ImageRates& rates) {
  report["images"] = info.images;
  report["batch"] = info.batch;
  report["batches"] = info.batches;
  json folded = json::array();
  for (const auto& f : info.folded) {
    folded.push_back({{"name", f.name}, {"index", f.index}, {"into", f.into}});
  }
  report["folded_layers"] = folded;
  report["input_float"] = info.input_float.empty() ? json(nullptr) : json(info.input_float);
  report["output_float"] = info.output_float.empty() ? json(nullptr) : json(info.output_float);
  report["images_per_s"] = {{"simulated", rates.simulated ? json(*rates.simulated) : json(nullptr)},
                            {"wall", rates.wall ? json(*rates.wall) : json(nullptr)}};
  report["labels"] = info.labels.empty() ? json(nullptr) : json(info.labels);
  if (!info.accuracy) {
    report["accuracy"] = nullptr;
    return;
  }
  const network::Accuracy& a = *info.accuracy;
  json per_class = json::array();
  for (int64_t c = 0; c < a.classes; ++c) {
    per_class.push_back({{"class", c},
                         {"images", a.per_class_images[size_t(c)]},
                         {"correct", a.per_class_correct[size_t(c)]},
                         {"accuracy", a.per_class_images[size_t(c)]
                                          ? json(a.class_accuracy(c))
                                          : json(nullptr)}});
  }
  report["accuracy"] = {{"top1", a.top1()},
                        {"correct", a.correct},
                        {"images", a.images},
                        {"per_class", per_class},
                        {"confusion", a.confusion}};
}

void PrintDatasetText(std::ostream& out, const DatasetInfo& info, const ImageRates& rates) {
  out << std::right;  // the layer table before may have left std::left set
  out << "  images: " << info.images << " in " << info.batches << " batch"
      << (info.batches == 1 ? "" : "es") << " of " << info.batch;
  if (info.images % info.batch != 0 && info.batches > 1) {
    out << " (the last of " << info.images % info.batch << ")";
  }
  out << "; images/s: " << Rate(rates.simulated) << " simulated, " << Rate(rates.wall)
      << " wall clock\n";
  if (!info.input_float.empty()) out << "  float input: " << info.input_float << "\n";
  if (!info.output_float.empty()) out << "  float output: " << info.output_float << "\n";
  if (!info.folded.empty()) {
    out << "  folded (run as part of the layer before, bit-exact): ";
    for (size_t i = 0; i < info.folded.size(); ++i) {
      out << (i ? ", " : "") << info.folded[i].name << " into " << info.folded[i].into;
    }
    out << "\n";
  }
  if (!info.accuracy) return;
  const network::Accuracy& a = *info.accuracy;
  out << "\n  top-1 accuracy: " << Percent(a.top1()) << " (" << a.correct << " of " << a.images
      << " images, labels " << info.labels << ")\n";
  // Per class, then the confusion matrix: rows the true label, columns the predicted class.
  const int width = int(std::max<size_t>(5, std::to_string(a.images).size() + 1));
  out << "\n  per class, and the confusion matrix (rows: true label, columns: predicted)\n  "
      << std::setw(6) << "class" << std::setw(8) << "images" << std::setw(8) << "correct"
      << std::setw(10) << "accuracy" << "  ";
  for (int64_t p = 0; p < a.classes; ++p) out << std::setw(width) << p;
  out << "\n";
  for (int64_t c = 0; c < a.classes; ++c) {
    out << "  " << std::setw(6) << c << std::setw(8) << a.per_class_images[size_t(c)]
        << std::setw(8) << a.per_class_correct[size_t(c)] << std::setw(10)
        << (a.per_class_images[size_t(c)] ? Percent(a.class_accuracy(c)) : "-") << "  ";
    for (int64_t p = 0; p < a.classes; ++p) {
      out << std::setw(width) << a.confusion[size_t(c)][size_t(p)];
    }
    out << "\n";
  }
}

}  // namespace tpu::cli
