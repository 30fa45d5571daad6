#include "network/accuracy.h"

#include <algorithm>

#include "network/network.h"
#include "npy/header.h"

namespace tpu::network {

double Accuracy::class_accuracy(int64_t c) const {
  const int64_t n = per_class_images[size_t(c)];
  return n ? double(per_class_correct[size_t(c)]) / double(n) : 0.0;
}

void CheckLabels(const golden::Tensor<int64_t>& labels, int64_t images, int64_t classes,
                 const std::string& what) {
  if (labels.shape != std::vector<int64_t>{images}) {
    throw NetworkError(what + ": shape " + npy::ShapeRepr(labels.shape) + ": expected (" +
                       std::to_string(images) + ",), one label per input image");
  }
  for (size_t i = 0; i < labels.data.size(); ++i) {
    if (labels.data[i] < 0 || labels.data[i] >= classes) {
      throw NetworkError(what + ": label[" + std::to_string(i) + "] = " +
                         std::to_string(labels.data[i]) + ": expected a class 0 .. " +
                         std::to_string(classes - 1) + " (the network output has " +
                         std::to_string(classes) + " columns)");
    }
  }
}

Accuracy ScoreTop1(const golden::Tensor<int8_t>& outputs, const golden::Tensor<int64_t>& labels) {
  Accuracy a;
  a.images = outputs.shape[0];
  a.classes = outputs.shape[1];
  const size_t classes = size_t(a.classes);
  a.per_class_images.assign(classes, 0);
  a.per_class_correct.assign(classes, 0);
  a.confusion.assign(classes, std::vector<int64_t>(classes, 0));
  for (int64_t i = 0; i < a.images; ++i) {
    const auto row = outputs.data.begin() + std::ptrdiff_t(size_t(i) * classes);
    const size_t predicted = size_t(std::max_element(row, row + std::ptrdiff_t(classes)) - row);
    const size_t label = size_t(labels.data[size_t(i)]);
    ++a.per_class_images[label];
    ++a.confusion[label][predicted];
    if (predicted == label) {
      ++a.correct;
      ++a.per_class_correct[label];
    }
  }
  return a;
}

}  // namespace tpu::network
