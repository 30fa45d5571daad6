// How a GEMM C (m x ncols) = A (m x k) x W (k x ncols) is streamed through an N x N MXU, shared
// by every streamer (weights from C++ or through the weight FIFO): tile t = kt * n_tiles + nt
// covers K rows kt*N.. and output columns nt*N.. (zero padded), and is followed by all m
// activation rows; each row's result is added into C, as the accumulators will.
#ifndef TPU_TESTBENCH_MXU_GEMM_TILES_H_
#define TPU_TESTBENCH_MXU_GEMM_TILES_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace tpu::tb {

class GemmTiles {
 public:
  // Throws std::invalid_argument (prefixed with `who`) on an empty or inconsistent shape.
  GemmTiles(const std::vector<int8_t>& a, const std::vector<int8_t>& w, int m, int k, int ncols,
            int n, const std::string& who);

  int tiles() const { return k_tiles_ * n_tiles_; }
  uint64_t total_rows() const { return uint64_t(tiles()) * m_; }
  int column_tile(int t) const { return t % n_tiles_; }

  void WeightRow(int t, int r, int8_t* out) const;  // row r of tile t: n values
  void ActRow(int t, int row, int8_t* out) const;   // A's row `row`, K slice of tile t

 private:
  const std::vector<int8_t>& a_;
  const std::vector<int8_t>& w_;
  int m_, k_, ncols_, n_, k_tiles_, n_tiles_;
};

// Results leave the MXU in the order their rows went in: remembers where each row's result
// belongs and checks its tag, then adds it into C (int32 wraparound, as the accumulators).
class GemmResults {
 public:
  GemmResults(int m, int ncols, int n) : c_(size_t(m) * ncols, 0), ncols_(ncols), n_(n) {}

  void Expect(int row, int column_tile, uint32_t tag) { pending_.push_back({row, column_tile, tag}); }
  // Throws std::runtime_error if no row is in flight or the tag is not the next one expected.
  void Receive(uint32_t tag, const int32_t* out);

  bool empty() const { return pending_.empty(); }
  std::vector<int32_t>& c() { return c_; }

 private:
  struct Pending {
    int row, column_tile;
    uint32_t tag;
  };
  std::vector<int32_t> c_;
  std::deque<Pending> pending_;
  int ncols_, n_;
};

}  // namespace tpu::tb

#endif  // TPU_TESTBENCH_MXU_GEMM_TILES_H_
