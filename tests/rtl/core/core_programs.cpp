#include "core_programs.h"

#include <stdexcept>

#include "golden/dense.h"
#include "golden/requant.h"

namespace tpu::tb {
namespace {

void PutLe32(std::vector<uint8_t>& out, size_t at, int32_t v) {
  for (int b = 0; b < 4; ++b) out[at + b] = static_cast<uint8_t>(static_cast<uint32_t>(v) >> (8 * b));
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Layout {
  int64_t n, kt, nt;
};

Layout LayoutOf(const isa::DeviceLimits& limits, const DenseCase& c) {
  return {limits.n, CeilDiv(c.k, limits.n), CeilDiv(c.n_out, limits.n)};
}

// Host images of the case (weights in tiles, parameter sets, x in K slices).
struct Images {
  std::vector<uint8_t> w, params, x;
};

Images BuildImages(const DenseCase& c, const Layout& l, const golden::RequantParams& rq) {
  const int64_t n = l.n;
  Images img;
  img.w.assign(l.kt * l.nt * n * n, 0);
  for (int64_t j = 0; j < l.nt; ++j) {
    for (int64_t kk = 0; kk < l.kt; ++kk) {
      const int64_t tile = j * l.kt + kk;
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t col = 0; col < n; ++col) {
          const int64_t k = kk * n + r, oc = j * n + col;
          if (k < c.k && oc < c.n_out) {
            img.w[(tile * n + r) * n + col] = static_cast<uint8_t>(c.w.data[k * c.n_out + oc]);
          }
        }
      }
    }
  }
  img.params.assign(l.nt * 9 * n, 0);
  for (int64_t j = 0; j < l.nt; ++j) {
    const size_t set = j * 9 * n;
    for (int64_t col = 0; col < n; ++col) {
      const int64_t oc = j * n + col;
      int32_t bias = 0, mult = 0;
      int shift = 0;
      if (oc < c.n_out) {
        // The input zero point folds into the bias: sum (x - zp) w = sum x w - zp sum w.
        int64_t wsum = 0;
        for (int64_t k = 0; k < c.k; ++k) wsum += c.w.data[k * c.n_out + oc];
        bias = static_cast<int32_t>(static_cast<uint32_t>(c.bias[oc]) -
                                    static_cast<uint32_t>(c.input_zero_point * wsum));
        mult = rq.multipliers[oc].multiplier;
        shift = rq.multipliers[oc].shift;
      }
      PutLe32(img.params, set + 4 * col, bias);
      PutLe32(img.params, set + 4 * n + 4 * col, mult);
      img.params[set + 8 * n + col] = static_cast<uint8_t>(static_cast<int8_t>(shift));
    }
  }
  img.x.assign(l.kt * c.m * n, 0);
  for (int64_t kk = 0; kk < l.kt; ++kk) {
    for (int64_t r = 0; r < c.m; ++r) {
      for (int64_t col = 0; col < n; ++col) {
        const int64_t k = kk * n + col;
        img.x[(kk * c.m + r) * n + col] =
            static_cast<uint8_t>(k < c.k ? c.x.data[r * c.k + k] : c.input_zero_point);
      }
    }
  }
  return img;
}

golden::RequantParams RandomRequant(const DenseCase& c, std::mt19937_64& rng) {
  golden::RequantParams rq;
  std::uniform_real_distribution<double> scale(0.2, 4.0);
  for (int64_t oc = 0; oc < c.n_out; ++oc) {
    rq.multipliers.push_back(golden::QuantizeMultiplier(scale(rng) / (64.0 * (c.k + 1))));
  }
  rq.out_zero_point = std::uniform_int_distribution<int>(-20, 20)(rng);
  rq.act_min = (rng() % 2) ? rq.out_zero_point : -128;  // ReLU or none
  rq.act_max = 127;
  return rq;
}

}  // namespace

DenseCase MakeDenseCase(const isa::DeviceLimits& limits, int64_t m, int64_t k, int64_t n_out,
                        std::mt19937_64& rng) {
  DenseCase c;
  c.m = m;
  c.k = k;
  c.n_out = n_out;
  const Layout l = LayoutOf(limits, c);
  if (m > limits.acc_rows / 2 || (l.kt + l.nt) * m > limits.ub_rows ||
      l.nt > limits.param_sets || l.kt * l.nt * l.n * l.n > limits.dram_bytes) {
    throw std::invalid_argument("dense case does not fit the device");
  }
  std::uniform_int_distribution<int> byte(-128, 127);
  c.input_zero_point = std::uniform_int_distribution<int>(-10, 10)(rng);
  c.x = golden::Tensor<int8_t>({m, k});
  c.w = golden::Tensor<int8_t>({k, n_out});
  for (auto& v : c.x.data) v = static_cast<int8_t>(byte(rng));
  for (auto& v : c.w.data) v = static_cast<int8_t>(byte(rng));
  c.bias.resize(n_out);
  for (auto& v : c.bias) v = std::uniform_int_distribution<int32_t>(-5000, 5000)(rng);
  const golden::RequantParams rq = RandomRequant(c, rng);
  c.expected = golden::Dense(c.x, c.w, c.bias, c.input_zero_point, rq);

  const Images img = BuildImages(c, l, rq);
  c.w_image = img.w;
  c.param_image = img.params;
  c.x_image = img.x;
  using namespace isa;
  const uint32_t n = static_cast<uint32_t>(l.n);
  const uint32_t mr = static_cast<uint32_t>(m);
  const uint32_t out_ub = static_cast<uint32_t>(l.kt * m);
  auto& p = c.program;
  p.push_back(ReadHost{Target::kDram, c.w_host, 0, static_cast<uint32_t>(img.w.size()), 0,
                       kTokensT1});
  p.push_back(ReadHost{Target::kParam, c.param_host, 0,
                       static_cast<uint32_t>(img.params.size()), 0, kTokensT2});
  p.push_back(ReadHost{Target::kUb, c.x_host, 0, static_cast<uint32_t>(img.x.size()), 0,
                       kTokensT0});
  p.push_back(ReadWeights{0, static_cast<uint32_t>(l.kt * l.nt), kTokensT1, 0});
  for (int64_t j = 0; j < l.nt; ++j) {
    for (int64_t kk = 0; kk < l.kt; ++kk) {
      Matmul mm;
      mm.ub = static_cast<uint32_t>(kk * m);
      mm.acc = 0;
      mm.rows = mr;
      mm.acc_mode = kk == 0 ? AccMode::kOverwrite : AccMode::kAccumulate;
      mm.new_tile = true;
      if (kk == 0) mm.wait = j == 0 ? kTokensT0 : kTokensT4;
      if (kk == l.kt - 1) mm.signal = kTokensT3;
      p.push_back(mm);
    }
    Activate a;
    a.acc = 0;
    a.ub = out_ub + static_cast<uint32_t>(j) * mr;
    a.rows = mr;
    a.param_set = static_cast<uint32_t>(j);
    a.zero_point = rq.out_zero_point;
    a.clamp_min = rq.act_min;
    a.clamp_max = rq.act_max;
    a.wait = kTokensT3 | (j == 0 ? kTokensT2 : 0);
    a.signal = kTokensT5 | (j + 1 < l.nt ? kTokensT4 : 0);
    p.push_back(a);
    p.push_back(WriteHost{a.ub, c.y_host + j * m * n, mr * n, kTokensT5, 0});
  }
  p.push_back(Halt{});
  return c;
}

void LoadDenseCase(const DenseCase& c, CoreHarness& h) {
  h.host().Write(c.w_host, c.w_image);
  h.host().Write(c.param_host, c.param_image);
  h.host().Write(c.x_host, c.x_image);
  const int64_t n = h.config().limits.n;
  h.host().Write(c.y_host, std::vector<uint8_t>((c.n_out + n - 1) / n * n * c.m, 0xa5));
}

golden::Tensor<int8_t> ReadDenseResult(const DenseCase& c, CoreHarness& h) {
  const int64_t n = h.config().limits.n;
  golden::Tensor<int8_t> y({c.m, c.n_out});
  for (int64_t r = 0; r < c.m; ++r) {
    for (int64_t oc = 0; oc < c.n_out; ++oc) {
      const int64_t j = oc / n, col = oc % n;
      uint8_t b;
      h.host().Read(c.y_host + (j * c.m + r) * n + col, &b, 1);
      y.data[r * c.n_out + oc] = static_cast<int8_t>(b);
    }
  }
  return y;
}

}  // namespace tpu::tb
