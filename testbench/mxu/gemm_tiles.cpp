#include "mxu/gemm_tiles.h"

#include <sstream>
#include <stdexcept>

namespace tpu::tb {

GemmTiles::GemmTiles(const std::vector<int8_t>& a, const std::vector<int8_t>& w, int m, int k,
                     int ncols, int n, const std::string& who)
    : a_(a), w_(w), m_(m), k_(k), ncols_(ncols), n_(n) {
  if (m <= 0 || k <= 0 || ncols <= 0) throw std::invalid_argument(who + ": empty shape");
  if (a.size() != size_t(m) * k || w.size() != size_t(k) * ncols) {
    throw std::invalid_argument(who + ": A must be m x k and W k x ncols");
  }
  k_tiles_ = (k + n - 1) / n;
  n_tiles_ = (ncols + n - 1) / n;
}

void GemmTiles::WeightRow(int t, int r, int8_t* out) const {
  const int kt = t / n_tiles_, nt = t % n_tiles_, kk = kt * n_ + r;
  for (int c = 0; c < n_; ++c) {
    const int col = nt * n_ + c;
    out[c] = (kk < k_ && col < ncols_) ? w_[size_t(kk) * ncols_ + col] : 0;
  }
}

void GemmTiles::ActRow(int t, int row, int8_t* out) const {
  const int kt = t / n_tiles_;
  for (int i = 0; i < n_; ++i) {
    const int kk = kt * n_ + i;
    out[i] = kk < k_ ? a_[size_t(row) * k_ + kk] : 0;
  }
}

void GemmResults::Receive(uint32_t tag, const int32_t* out) {
  if (pending_.empty()) throw std::runtime_error("MXU produced a result with no row in flight");
  const Pending p = pending_.front();
  pending_.pop_front();
  if (tag != p.tag) {
    std::ostringstream msg;
    msg << "MXU result out of order: tag " << tag << ", expected " << p.tag;
    throw std::runtime_error(msg.str());
  }
  for (int i = 0; i < n_; ++i) {
    const int col = p.column_tile * n_ + i;
    if (col < ncols_) {
      int32_t& dst = c_[size_t(p.row) * ncols_ + col];
      dst = int32_t(uint32_t(dst) + uint32_t(out[i]));  // int32 wraparound
    }
  }
}

}  // namespace tpu::tb
