// Tabulated embedding nets: DeePMD-kit's model compression (deepmd/utils/tabulate.py builds the
// table, source/lib/src/tabulate.cc evaluates it); the polynomial coefficients are those of
// DeePMD-kit's doc/freeze/compress.md (quintic Hermite interpolation).
#include "tessera/md/deepmd/compress.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "smooth_weight.hpp"
#include "tessera/core/error.hpp"

namespace tessera::md::deepmd {
namespace {
std::string shortest(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}
}  // namespace

EmbeddingTable::EmbeddingTable(double lower, double upper, double max, double stride0,
                               double stride1, Matrix coefficients)
    : lower_(lower),
      upper_(upper),
      max_(max),
      stride0_(stride0),
      stride1_(stride1),
      first_intervals_(0),
      coefficients_(std::move(coefficients)) {
  const auto fail = [](const std::string& what) {
    throw ConfigError("compressed embedding table: " + what);
  };
  if (!(stride0 > 0 && stride1 > 0 && std::isfinite(stride0) && std::isfinite(stride1)))
    fail("its strides must be positive");
  if (!(lower < upper && upper <= max && std::isfinite(lower) && std::isfinite(max)))
    fail("its bounds must satisfy lower < upper <= max");
  if (coefficients_.cols() == 0 || coefficients_.cols() % 6 != 0)
    fail("each row must hold six coefficients per output");
  const double fine = (upper - lower) / stride0;
  if (fine > 1e8 || (max - upper) / stride1 > 1e8) fail("it has too many intervals");
  first_intervals_ = static_cast<int>(fine);
  // The interval the high tail reads (tabulate.cc, locate_high_tail_xx) must exist.
  const int last =
      first_intervals_ + static_cast<int>((std::nextafter(max, lower) - upper) / stride1);
  if (last >= coefficients_.rows())
    fail(std::to_string(coefficients_.rows()) + " intervals do not reach its upper bound " +
         shortest(max));
  const int ng = width();
  by_power64_.resize(static_cast<std::size_t>(coefficients_.size()));
  for (int l = 0; l < intervals(); ++l)
    for (int j = 0; j < ng; ++j)
      for (int k = 0; k < 6; ++k)
        by_power64_[static_cast<std::size_t>((6 * l + k) * ng + j)] = coefficients_(l, 6 * j + k);
  by_power32_.assign(by_power64_.begin(), by_power64_.end());
}

void EmbeddingTable::locate(double x, int& interval, double& dx, double& beyond) const {
  beyond = 0.0;
  if (x < lower_) {
    interval = 0;
    dx = 0.0;
    beyond = x - lower_;
  } else if (x < upper_) {
    interval = static_cast<int>((x - lower_) / stride0_);
    dx = x - (interval * stride0_ + lower_);
  } else if (x < max_) {
    interval = first_intervals_ + static_cast<int>((x - upper_) / stride1_);
    dx = x - ((interval - first_intervals_) * stride1_ + upper_);
  } else {
    interval =
        first_intervals_ + static_cast<int>((std::nextafter(max_, lower_) - upper_) / stride1_);
    dx = max_ - ((interval - first_intervals_) * stride1_ + upper_);
    beyond = x - max_;
  }
  interval = std::clamp(interval, 0, intervals() - 1);
}

void EmbeddingTable::evaluate(double x, double* g, double* dg) const {
  int l = 0;
  double dx = 0.0, beyond = 0.0;
  locate(x, l, dx, beyond);
  const int ng = width();
  const double* a = row64(l);
  for (int j = 0; j < ng; ++j) {
    const double* c = a + j;
    const double p =
        c[0] +
        (c[ng] + (c[2 * ng] + (c[3 * ng] + (c[4 * ng] + c[5 * ng] * dx) * dx) * dx) * dx) * dx;
    const double dp =
        c[ng] +
        (2 * c[2 * ng] + (3 * c[3 * ng] + (4 * c[4 * ng] + 5 * c[5 * ng] * dx) * dx) * dx) * dx;
    g[j] = p + dp * beyond;
    dg[j] = dp;
  }
}

namespace {

// The net's output and its first and second derivatives with respect to its scalar input x,
// carried forward through the layers (y' = dy/dx, y'' = d2y/dx2), in float64 with libm's tanh.
struct Jet {
  RowVector y, d1, d2;
};

Jet net_jet(const Network& net, double x) {
  Jet in{RowVector::Constant(1, x), RowVector::Constant(1, 1.0), RowVector::Zero(1)};
  for (const Layer& layer : net.layers) {
    const auto nin = layer.w.rows(), nout = layer.w.cols();
    Jet z{in.y * layer.w + layer.b, in.d1 * layer.w, in.d2 * layer.w};
    if (layer.activation == Activation::kTanh)
      for (Eigen::Index j = 0; j < nout; ++j) {
        const double a = std::tanh(z.y(j)), da = 1.0 - a * a;
        z.d2(j) = da * z.d2(j) - 2.0 * a * da * z.d1(j) * z.d1(j);
        z.d1(j) = da * z.d1(j);
        z.y(j) = a;
      }
    if (layer.idt.size() > 0) {
      z.y.array() *= layer.idt.array();
      z.d1.array() *= layer.idt.array();
      z.d2.array() *= layer.idt.array();
    }
    if (layer.resnet && (nout == nin || nout == 2 * nin))
      for (Eigen::Index j = 0; j < nout; ++j) {
        z.y(j) += in.y(j % nin);
        z.d1(j) += in.d1(j % nin);
        z.d2(j) += in.d2(j % nin);
      }
    in = std::move(z);
  }
  return in;
}

EmbeddingTable tabulate(const Network& net, double lower, double upper, double extrapolate,
                        double stride0) {
  const double stride1 = 10 * stride0, max = extrapolate * upper;
  const int fine = static_cast<int>((upper - lower) / stride0);
  const int coarse = static_cast<int>(std::ceil((max - upper) / stride1 - 1e-9));
  const int intervals = fine + coarse;
  auto start = [&](int l) { return l < fine ? lower + l * stride0 : upper + (l - fine) * stride1; };
  const int ng = static_cast<int>(net.out_dim());
  Matrix coefficients(intervals, 6 * ng);
  Jet left = net_jet(net, start(0));
  for (int l = 0; l < intervals; ++l) {
    const double x0 = start(l), x1 = l + 1 < intervals ? start(l + 1) : x0 + stride1;
    const double h = x1 - x0;
    Jet right = net_jet(net, x1);
    for (int j = 0; j < ng; ++j) {
      const double rise = right.y(j) - left.y(j);
      const double d0 = left.d1(j), d1 = right.d1(j), s0 = left.d2(j), s1 = right.d2(j);
      double* c = &coefficients(l, 6 * j);
      c[0] = left.y(j);
      c[1] = d0;
      c[2] = 0.5 * s0;
      c[3] = (20 * rise - (8 * d1 + 12 * d0) * h - (3 * s0 - s1) * h * h) / (2 * std::pow(h, 3));
      c[4] =
          (-30 * rise + (14 * d1 + 16 * d0) * h + (3 * s0 - 2 * s1) * h * h) / (2 * std::pow(h, 4));
      c[5] = (12 * rise - 6 * (d1 + d0) * h + (s1 - s0) * h * h) / (2 * std::pow(h, 5));
    }
    left = std::move(right);
  }
  return EmbeddingTable(lower, upper, max, stride0, stride1, std::move(coefficients));
}

}  // namespace

void compress(Model& model, const CompressionSettings& settings) {
  if (model.descriptor == DescriptorType::kSeAtten)
    throw ConfigError(
        "DeePMD model compression of the dpa1 (se_atten) descriptor is not supported; run it "
        "uncompressed (compress no)");
  const double rmin = settings.min_nbor_dist > 0 ? settings.min_nbor_dist : model.min_nbor_dist;
  if (!(rmin > 0))
    throw ConfigError(
        "DeePMD model compression needs the smallest neighbor distance of the training data, "
        "which the model does not record; give it (min_nbor_dist, in Angstrom), as `dp compress "
        "-t input.json` computes it");
  if (!(rmin < model.rcut))
    throw ConfigError("DeePMD model compression: min_nbor_dist " + shortest(rmin) +
                      " must lie below the cutoff " + shortest(model.rcut));
  const double n = 1.0 / settings.stride;
  if (!(settings.stride > 0 && settings.stride <= 1 && std::abs(n - std::round(n)) <= 1e-9 * n))
    throw ConfigError(
        "DeePMD model compression: the stride must be 1/N for an integer N (0.01, "
        "0.02, 0.05, 0.1, ...), not " +
        shortest(settings.stride));
  if (!(settings.extrapolate >= 1 && settings.extrapolate <= 1000))
    throw ConfigError("DeePMD model compression: extrapolate must lie in 1..1000, not " +
                      shortest(settings.extrapolate));
  const double stride = 1.0 / std::round(n);
  double sw = 0.0, unused_slope = 0.0;
  smooth_weight(rmin, model.rcut_smth, model.rcut, sw, unused_slope);
  std::vector<int> first(model.sel.size() + 1, 0);
  for (std::size_t t = 0; t < model.sel.size(); ++t) first[t + 1] = first[t] + model.sel[t];
  std::vector<EmbeddingTable> tables;
  const int ntypes = model.ntypes();
  for (std::size_t net = 0; net < model.embeddings.size(); ++net) {
    // The net's neighbor type, and the centre types whose slots it serves.
    const int t = model.type_one_side ? static_cast<int>(net) : static_cast<int>(net) / ntypes;
    const int c0 = model.type_one_side ? 0 : static_cast<int>(net) % ntypes;
    const int c1 = model.type_one_side ? ntypes : c0 + 1;
    double lo = INFINITY, hi = -INFINITY;
    for (int c = c0; c < c1; ++c)
      for (int k = first[t]; k < first[t + 1]; ++k) {
        const double avg = model.davg(c, model.env_columns() * k),
                     std = model.dstd(c, model.env_columns() * k);
        lo = std::min(lo, -avg / std);
        hi = std::max(hi, (sw / rmin - avg) / std);
      }
    if (first[t + 1] == first[t]) lo = -1.0, hi = 1.0;  // sel 0: a net that is never used
    const double lower = std::floor(lo), upper = std::ceil(hi);
    if (!(upper > 0 && upper > lower))
      throw ConfigError("DeePMD model compression: the embedding input of type " +
                        model.type_map[t] + " spans " + shortest(lower) + ".." + shortest(upper) +
                        ", which the table cannot hold (check davg, dstd)");
    tables.push_back(tabulate(model.embeddings[net], lower, upper, settings.extrapolate, stride));
  }
  model.tables = std::move(tables);
  model.min_nbor_dist = rmin;
}

}  // namespace tessera::md::deepmd
