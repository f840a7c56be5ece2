// BlockView: a tile's block of a grid field, with its halo.
//
// A block is row-major (width + 2 halo) x (height + 2 halo) doubles;
// view(i, j) addresses local cell (i, j) with -halo <= i < width + halo and
// -halo <= j < height + halo (j = 0 is the southernmost interior row).
#pragma once

#include <cstddef>
#include <type_traits>

namespace tessera::weather {

struct BlockLayout {
  int width = 0, height = 0, halo = 0;
  std::size_t stride() const { return static_cast<std::size_t>(width + 2 * halo); }
  std::size_t size() const { return stride() * static_cast<std::size_t>(height + 2 * halo); }
  std::size_t index(int i, int j) const {
    return static_cast<std::size_t>(j + halo) * stride() + static_cast<std::size_t>(i + halo);
  }
};

template <class T>
class BlockView {
 public:
  BlockView(T* data, BlockLayout layout) : data_(data), layout_(layout) {}
  // A read-only view of a writable block.
  template <class U>
  requires std::is_same_v<T, const U> BlockView(const BlockView<U>& other)
      : data_(other.data()), layout_(other.layout()) {}
  T& operator()(int i, int j) const { return data_[layout_.index(i, j)]; }
  T* data() const { return data_; }
  T* row(int j) const { return data_ + layout_.index(0, j); }
  const BlockLayout& layout() const { return layout_; }
  int width() const { return layout_.width; }
  int height() const { return layout_.height; }
  int halo() const { return layout_.halo; }

 private:
  T* data_;
  BlockLayout layout_;
};
using FieldView = BlockView<double>;
using ConstFieldView = BlockView<const double>;

}  // namespace tessera::weather
