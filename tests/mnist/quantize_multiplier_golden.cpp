// Prints golden::QuantizeMultiplier of every real number read from stdin (one per line, written
// with enough digits to round-trip a double) as "multiplier shift" lines, so that
// test_quantize_multiplier.py can compare the Python quantizer (examples/mnist/quant.py) with
// the C++ reference on many values in one process.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "golden/requant.h"

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    char* end = nullptr;
    const double real = std::strtod(line.c_str(), &end);
    if (end == line.c_str()) {
      std::cerr << "quantize_multiplier_golden: '" << line << "' is not a number\n";
      return 2;
    }
    const tpu::golden::QuantizedMultiplier q = tpu::golden::QuantizeMultiplier(real);
    std::printf("%d %d\n", q.multiplier, q.shift);
  }
  return 0;
}
