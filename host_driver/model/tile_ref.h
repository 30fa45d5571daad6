// A packed weight tile shared by the reference machine's cache of the weight DRAM's tiles, its
// weight FIFO, the MXU's current tile and a pending MATMUL block. A machine is used by one
// thread at a time, so the count is a plain integer: std::shared_ptr's atomic count costs two
// locked instructions per tile pushed, and a 1024^3 dense layer at N = 16 pushes 139,264.
#ifndef TPU_MODEL_TILE_REF_H_
#define TPU_MODEL_TILE_REF_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "model/matmul_kernel.h"

namespace tpu::model {

class TileRef {
 public:
  TileRef() = default;
  // A new tile: `tile` (N x N int8, row k at k * N) packed.
  static TileRef Make(const std::vector<int8_t>& tile, int64_t n) {
    TileRef ref;
    ref.box_ = new Box{PackedTile(tile, n), 1};
    return ref;
  }
  TileRef(const TileRef& other) : box_(other.box_) {
    if (box_ != nullptr) ++box_->refs;
  }
  TileRef(TileRef&& other) noexcept : box_(std::exchange(other.box_, nullptr)) {}
  TileRef& operator=(TileRef other) noexcept {
    std::swap(box_, other.box_);
    return *this;
  }
  ~TileRef() { Release(); }

  void reset() {
    Release();
    box_ = nullptr;
  }
  const PackedTile* get() const { return box_ != nullptr ? &box_->tile : nullptr; }
  const PackedTile& operator*() const { return box_->tile; }
  const PackedTile* operator->() const { return &box_->tile; }
  explicit operator bool() const { return box_ != nullptr; }

 private:
  struct Box {
    PackedTile tile;
    int64_t refs;
  };
  void Release() {
    if (box_ != nullptr && --box_->refs == 0) delete box_;
  }
  Box* box_ = nullptr;
};

}  // namespace tpu::model

#endif  // TPU_MODEL_TILE_REF_H_
