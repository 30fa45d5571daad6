// Top-1 accuracy of a classifier's outputs against integer labels (`tpu run --labels`): overall,
// per class and the confusion matrix.
#ifndef TPU_NETWORK_ACCURACY_H_
#define TPU_NETWORK_ACCURACY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "golden/tensor.h"

namespace tpu::network {

struct Accuracy {
  int64_t images = 0, correct = 0;
  int64_t classes = 0;
  std::vector<int64_t> per_class_images, per_class_correct;  // by true label
  std::vector<std::vector<int64_t>> confusion;  // [true label][predicted class], classes x classes

  double top1() const { return images ? double(correct) / double(images) : 0.0; }
  // per_class_correct / per_class_images; 0 for a class with no images.
  double class_accuracy(int64_t c) const;
};

// Throws NetworkError (naming `what`) unless `labels` has shape (images,) and every value is a
// class of an (images, classes) output: 0 .. classes - 1.
void CheckLabels(const golden::Tensor<int64_t>& labels, int64_t images, int64_t classes,
                 const std::string& what);

// The predicted class of each row of `outputs` (n, classes) is its largest value, the first one
// on ties (numpy's argmax); a positive scale keeps the order, so the int8 codes decide it as the
// dequantized values would. `labels` passed CheckLabels.
Accuracy ScoreTop1(const golden::Tensor<int8_t>& outputs, const golden::Tensor<int64_t>& labels);

}  // namespace tpu::network

#endif  // TPU_NETWORK_ACCURACY_H_
