// The networks' forward and reverse passes shared by the DeePMD kernels (se_a.cpp for se_e2_a and
// se_e2_r, se_atten.cpp for DPA-1): feature-major blocks of samples ("structure of arrays": one
// contiguous column per feature), each net run over blocks of kChunk samples through all its
// layers while the block is in L1 cache, buffers that only grow. Templated on the scalar
// (Model::precision). Internal to the kernels; not thread-safe per object (one per workspace).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <span>
#include <vector>

#include "tessera/md/deepmd/activation.hpp"
#include "tessera/md/deepmd/model.hpp"

namespace tessera::md::deepmd::kernel {

using Index = Eigen::Index;
template <class T>
using Soa = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
template <class T>
using View = Eigen::Map<Soa<T>, 0, Eigen::OuterStride<>>;
template <class T>
using ConstView = Eigen::Map<const Soa<T>, 0, Eigen::OuterStride<>>;
template <class T>
using Rows = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using RowsMap = Eigen::Map<Rows<T>>;

// Samples per pass through a network: 128 rows of a 12-wide layer are 12 KiB in float64.
constexpr Index kChunk = 128;

// A buffer that only grows, to exactly the largest size asked for; get() does not keep the
// contents when it grows.
template <class T>
class Store {
 public:
  T* get(std::size_t n) {
    if (n > v_.size()) {
      std::vector<T> fresh;
      fresh.reserve(n);
      fresh.resize(n);
      v_.swap(fresh);
    }
    return v_.data();
  }
  std::size_t bytes() const { return v_.capacity() * sizeof(T); }

 private:
  std::vector<T> v_;
};

template <class T>
View<T> view(T* data, Index rows, Index cols) {
  return View<T>(data, rows, cols, Eigen::OuterStride<>(rows));
}
template <class T>
View<T> view(Store<T>& store, Index rows, Index cols) {
  return view(store.get(static_cast<std::size_t>(rows * cols)), rows, cols);
}
template <class T>
ConstView<T> cview(const View<T>& v) {
  return ConstView<T>(v.data(), v.rows(), v.cols(), Eigen::OuterStride<>(v.outerStride()));
}

// A network layer at scalar T (the float32 copy of a Layer).
template <class T>
struct LayerT {
  Rows<T> w;
  Eigen::Matrix<T, 1, Eigen::Dynamic> b, idt;
  Activation activation = Activation::kTanh;
  bool resnet = false;
};
template <class T>
struct NetworkT {
  std::vector<LayerT<T>> layers;
};

template <class T>
NetworkT<T> converted(const Network& net) {
  NetworkT<T> out;
  for (const Layer& l : net.layers)
    out.layers.push_back({l.w.cast<T>(), l.b.cast<T>(), l.idt.cast<T>(), l.activation, l.resnet});
  return out;
}

// A layer's product is an Eigen GEMM from this inner dimension on; narrower ones (the test
// model's embedding nets are 1 -> 3 -> 6 -> 12) run as axpy loops over the feature columns,
// which beat GEMM's packing overhead there.
constexpr Index kGemmInner = 16;

// One layer on a block of samples: a = act(x W + b), y = a [* idt] [+ skip(x)], where skip is x
// when out == in and concat(x, x) when out == 2 in (DeePMD-kit NativeLayer.call).
template <class T, class L>
void layer_forward(const L& layer, const ConstView<T>& x, View<T> a, View<T> y) {
  const Index in = layer.w.rows(), out = layer.w.cols();
  const bool gemm = in >= kGemmInner;
  if (gemm) a.noalias() = x * layer.w;
  for (Index j = 0; j < out; ++j) {
    auto aj = a.col(j).array();
    if (!gemm) {
      aj = x.col(0).array() * layer.w(0, j);
      for (Index i = 1; i < in; ++i) aj += x.col(i).array() * layer.w(i, j);
    }
    aj += layer.b(j);
    if (layer.activation == Activation::kTanh)
      tanh_inplace(std::span<T>(a.col(j).data(), static_cast<std::size_t>(a.rows())));
    auto yj = y.col(j).array();
    if (layer.idt.size() > 0)
      yj = aj * layer.idt(j);
    else
      yj = aj;
    if (layer.resnet && (out == in || out == 2 * in)) yj += x.col(j % in).array();
  }
}

// Its reverse: dz = dy [* idt] [* (1 - a^2)], dx = dz W^T + skip^T(dy).
template <class T, class L>
void layer_backward(const L& layer, const ConstView<T>& a, const ConstView<T>& dy, View<T> dz,
                    View<T> dx) {
  const Index in = layer.w.rows(), out = layer.w.cols();
  for (Index j = 0; j < out; ++j) {
    auto dzj = dz.col(j).array();
    dzj = dy.col(j).array();
    if (layer.idt.size() > 0) dzj *= layer.idt(j);
    if (layer.activation == Activation::kTanh) dzj *= T(1) - a.col(j).array().square();
  }
  const bool gemm = out >= kGemmInner;
  if (gemm) dx.noalias() = dz * layer.w.transpose();
  for (Index i = 0; i < in; ++i) {
    auto dxi = dx.col(i).array();
    if (!gemm) {
      dxi = dz.col(0).array() * layer.w(i, 0);
      for (Index j = 1; j < out; ++j) dxi += dz.col(j).array() * layer.w(i, j);
    }
    if (layer.resnet && out == in) {
      dxi += dy.col(i).array();
    } else if (layer.resnet && out == 2 * in) {
      dxi += dy.col(i).array() + dy.col(i + in).array();
    }
  }
}

// One network evaluation over `rows` samples: each layer's activation a (kept for the backward
// pass) and the output. Intermediate outputs and gradients only live per block, in Scratch.
template <class T>
struct Tape {
  std::vector<Store<T>> act;
  Store<T> out;
  Index rows = 0;
  std::size_t bytes() const {
    std::size_t b = out.bytes();
    for (const auto& s : act) b += s.bytes();
    return b;
  }
};
template <class T>
struct Scratch {
  Store<T> buf[2], dz;
  std::size_t bytes() const { return buf[0].bytes() + buf[1].bytes() + dz.bytes(); }
};

template <class Net>
Index widest_layer(const Net& net) {
  Index w = 0;
  for (const auto& l : net.layers) w = std::max({w, static_cast<Index>(l.w.cols())});
  return w;
}

// Forward pass over the rows of x (rows x in, feature-major); returns the output (rows x out).
template <class T, class Net>
View<T> forward(const Net& net, const ConstView<T>& x, Tape<T>& tape, Scratch<T>& s) {
  const Index rows = x.rows(), nl = static_cast<Index>(net.layers.size());
  const Index wide = widest_layer(net);
  tape.rows = rows;
  // Shared tapes (padding, fitting) serve nets of any depth: grow, never shrink.
  if (tape.act.size() < static_cast<std::size_t>(nl)) tape.act.resize(static_cast<std::size_t>(nl));
  T* buf[2] = {s.buf[0].get(static_cast<std::size_t>(kChunk * wide)),
               s.buf[1].get(static_cast<std::size_t>(kChunk * wide))};
  const Index out_dim = net.layers.back().w.cols();
  T* out = tape.out.get(static_cast<std::size_t>(rows * out_dim));
  for (Index l = 0; l < nl; ++l)
    tape.act[l].get(static_cast<std::size_t>(rows * net.layers[l].w.cols()));
  for (Index r0 = 0; r0 < rows; r0 += kChunk) {
    const Index len = std::min(kChunk, rows - r0);
    const T* in = x.data() + r0;
    Index ld = x.outerStride();
    for (Index l = 0; l < nl; ++l) {
      const auto& layer = net.layers[l];
      const Index ni = layer.w.rows(), no = layer.w.cols();
      T* y = l + 1 == nl ? out + r0 : buf[l % 2];
      const Index ldy = l + 1 == nl ? rows : len;
      layer_forward<T>(layer, ConstView<T>(in, len, ni, Eigen::OuterStride<>(ld)),
                       View<T>(tape.act[l].get(0) + r0, len, no, Eigen::OuterStride<>(rows)),
                       View<T>(y, len, no, Eigen::OuterStride<>(ldy)));
      in = y;
      ld = ldy;
    }
  }
  return view(out, rows, out_dim);
}

// Gradient with respect to the network input of the tape's rows r0 .. r0 + dy.rows() (at most
// kChunk): dx (rows x in) from dy (rows x out), the gradient of the output.
template <class T, class Net>
void backward_block(const Net& net, Tape<T>& tape, Index r0, const ConstView<T>& dy, View<T> dx,
                    Scratch<T>& s) {
  const Index rows = tape.rows, nl = static_cast<Index>(net.layers.size()), len = dy.rows();
  const Index wide = widest_layer(net);
  T* buf[2] = {s.buf[0].get(static_cast<std::size_t>(kChunk * wide)),
               s.buf[1].get(static_cast<std::size_t>(kChunk * wide))};
  T* dz = s.dz.get(static_cast<std::size_t>(kChunk * wide));
  const T* g = dy.data();
  Index ld = dy.outerStride();
  for (Index l = nl - 1; l >= 0; --l) {
    const auto& layer = net.layers[l];
    const Index ni = layer.w.rows(), no = layer.w.cols();
    T* d = l == 0 ? dx.data() : buf[l % 2];
    const Index ldd = l == 0 ? dx.outerStride() : len;
    layer_backward<T>(layer,
                      ConstView<T>(tape.act[l].get(0) + r0, len, no, Eigen::OuterStride<>(rows)),
                      ConstView<T>(g, len, no, Eigen::OuterStride<>(ld)),
                      View<T>(dz, len, no, Eigen::OuterStride<>(len)),
                      View<T>(d, len, ni, Eigen::OuterStride<>(ldd)));
    g = d;
    ld = ldd;
  }
}

// The same over all the tape's rows: dx (rows x in) from dy (rows x out).
template <class T, class Net>
void backward(const Net& net, Tape<T>& tape, const ConstView<T>& dy, View<T> dx, Scratch<T>& s) {
  for (Index r0 = 0; r0 < tape.rows; r0 += kChunk) {
    const Index len = std::min(kChunk, tape.rows - r0);
    backward_block<T>(
        net, tape, r0,
        ConstView<T>(dy.data() + r0, len, dy.cols(), Eigen::OuterStride<>(dy.outerStride())),
        View<T>(dx.data() + r0, len, dx.cols(), Eigen::OuterStride<>(dx.outerStride())), s);
  }
}

}  // namespace tessera::md::deepmd::kernel
