// Loading DeePMD-kit v3 serialized models (deepmd/dpmodel serialize() output written as YAML by
// `dp convert-backend`; layout in deepmd/dpmodel/model/make_model.py, descriptor/se_e2_a.py,
// descriptor/dpa1.py, fitting/general_fitting.py, utils/network.py and utils/type_embed.py of
// github.com/deepmodeling/deepmd-kit).
#include "tessera/md/deepmd/model.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "dp_file.hpp"
#include "network_ops.hpp"
#include "tessera/core/error.hpp"

namespace tessera::md::deepmd {
namespace {

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void format_error(const std::string& where, const std::string& what) const {
    throw FormatError("DeePMD model " + source_ + ": " + where + ": " + what +
                      "; expected a DeePMD-kit v3 model written by `dp convert-backend` as .yaml");
  }
  [[noreturn]] void config_error(const std::string& what) const {
    throw ConfigError("DeePMD model " + source_ + ": " + what);
  }

  YAML::Node child(const YAML::Node& node, const std::string& key, const std::string& where) const {
    if (!node.IsMap()) format_error(where, "is not a mapping");
    YAML::Node c = node[key];
    if (!c) format_error(where, "has no key '" + key + "'");
    return c;
  }
  template <class T>
  T scalar(const YAML::Node& node, const std::string& key, const std::string& where) const {
    YAML::Node c = child(node, key, where);
    try {
      return c.as<T>();
    } catch (const YAML::Exception&) {
      format_error(where + "." + key, "has an unexpected value");
    }
  }
  std::string text(const YAML::Node& node, const std::string& key, const std::string& where) const {
    return scalar<std::string>(node, key, where);
  }
  bool is_null(const YAML::Node& node, const std::string& key) const {
    YAML::Node c = node[key];
    return !c || c.IsNull();
  }

  // An "@class: np.ndarray" node flattened in row-major order, with its shape.
  std::vector<double> array(const YAML::Node& node, const std::string& where,
                            std::vector<std::size_t>& shape) const {
    if (!node.IsMap() || !node["@class"] || !node["@class"].IsScalar() ||
        node["@class"].Scalar() != "np.ndarray")
      format_error(where, "is not an np.ndarray");
    // float32 arrays (a model trained in float32) are read into float64 exactly: their
    // decimal values round back to the same float32 numbers when the networks run in float32.
    const std::string dtype = text(node, "dtype", where);
    if (dtype != "float64" && dtype != "float32")
      config_error(where + " has dtype " + dtype + "; supported are float64 and float32");
    std::vector<double> out;
    shape.clear();
    flatten(child(node, "value", where), where, 0, shape, out);
    return out;
  }
  Matrix matrix(const YAML::Node& node, const std::string& where, std::size_t rows,
                std::size_t cols) const {
    std::vector<std::size_t> shape;
    std::vector<double> v = array(node, where, shape);
    if (v.size() != rows * cols)
      format_error(where, "has " + std::to_string(v.size()) + " values, expected " +
                              std::to_string(rows) + " x " + std::to_string(cols));
    Matrix m(rows, cols);
    std::copy(v.begin(), v.end(), m.data());
    return m;
  }
  RowVector vector(const YAML::Node& node, const std::string& where, std::size_t n) const {
    Matrix m = matrix(node, where, 1, n);
    return m.row(0);
  }

 private:
  void flatten(const YAML::Node& node, const std::string& where, std::size_t depth,
               std::vector<std::size_t>& shape, std::vector<double>& out) const {
    if (node.IsSequence()) {
      if (shape.size() == depth) shape.push_back(node.size());
      if (shape[depth] != node.size()) format_error(where, "is a ragged array");
      for (const auto& item : node) flatten(item, where, depth + 1, shape, out);
      return;
    }
    if (depth != shape.size()) format_error(where, "is a ragged array");
    try {
      out.push_back(node.as<double>());
    } catch (const YAML::Exception&) {
      format_error(where, "holds a value that is not a number");
    }
  }

  std::string source_;
};

Activation activation(const Reader& r, const std::string& name, const std::string& where) {
  std::string lower = name;  // DeePMD-kit reads its names in any case ("Linear")
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "tanh") return Activation::kTanh;
  if (lower == "none" || lower == "linear") return Activation::kLinear;
  r.config_error(where + " uses activation function '" + name +
                 "'; supported are tanh and none (linear)");
}

Network network(const Reader& r, const YAML::Node& node, const std::string& where,
                Eigen::Index in_dim) {
  const YAML::Node layers = r.child(node, "layers", where);
  if (!layers.IsSequence() || layers.size() == 0) r.format_error(where, "has no layers");
  Network net;
  Eigen::Index in = in_dim;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const std::string lw = where + ".layers[" + std::to_string(l) + "]";
    const YAML::Node layer = layers[l];
    const YAML::Node vars = r.child(layer, "@variables", lw);
    std::vector<std::size_t> shape;
    r.array(r.child(vars, "w", lw), lw + ".w", shape);
    if (shape.size() != 2 || static_cast<Eigen::Index>(shape[0]) != in)
      r.format_error(lw + ".w", "does not have " + std::to_string(in) + " input rows");
    Layer out;
    const auto out_dim = shape[1];
    out.w = r.matrix(vars["w"], lw + ".w", shape[0], out_dim);
    if (!r.scalar<bool>(layer, "bias", lw))
      r.config_error(lw + " has no bias; layers without bias are not supported");
    out.b = r.vector(r.child(vars, "b", lw), lw + ".b", out_dim);
    if (!r.is_null(vars, "idt")) out.idt = r.vector(vars["idt"], lw + ".idt", out_dim);
    out.activation = activation(r, r.text(layer, "activation_function", lw), lw);
    out.resnet = r.scalar<bool>(layer, "resnet", lw);
    in = static_cast<Eigen::Index>(out_dim);
    net.layers.push_back(std::move(out));
  }
  return net;
}

// A NetworkCollection of `ndim` 0 (one network for all types), 1 (one per type) or 2 (one per
// pair of types, ntypes^2, DeePMD-kit's index i + j * ntypes), among the `allowed` ones.
std::vector<Network> networks(const Reader& r, const YAML::Node& node, const std::string& where,
                              int ntypes, Eigen::Index in_dim, std::vector<int> allowed = {1}) {
  const int ndim = r.scalar<int>(node, "ndim", where);
  if (std::find(allowed.begin(), allowed.end(), ndim) == allowed.end()) {
    std::string list;
    for (int a : allowed) list += (list.empty() ? "" : " or ") + std::to_string(a);
    r.format_error(where + ".ndim", "must be " + list);
  }
  const int count = ndim == 0 ? 1 : ndim == 1 ? ntypes : ntypes * ntypes;
  const YAML::Node list = r.child(node, "networks", where);
  if (!list.IsSequence() || static_cast<int>(list.size()) != count)
    r.format_error(where + ".networks", ndim == 0   ? "does not hold one network"
                                        : ndim == 1 ? "does not hold one network per type"
                                                    : "does not hold one network per type pair");
  std::vector<Network> out;
  for (int k = 0; k < count; ++k) {
    std::string at = where + ".networks[";
    at += std::to_string(k);
    at += ']';
    out.push_back(network(r, list[k], at, in_dim));
  }
  return out;
}

// A compressed se_e2_a descriptor's tables (its @version 3 "compress" entry: per embedding
// net its compress_data, intervals x 6 ng, and compress_info, lower, upper, max, stride0,
// stride1 and a check frequency md_ipu does not use; deepmd/dpmodel/descriptor/se_e2_a.py).
std::vector<EmbeddingTable> tables(const Reader& r, const YAML::Node& node, const Model& model) {
  const std::string where = "model.descriptor.compress.@variables";
  const YAML::Node vars = r.child(node, "@variables", "model.descriptor.compress");
  const YAML::Node data = r.child(vars, "compress_data", where);
  const YAML::Node info = r.child(vars, "compress_info", where);
  if (!data.IsSequence() || !info.IsSequence() || data.size() != model.embeddings.size() ||
      info.size() != data.size())
    r.format_error(where, "does not hold one table and its bounds per embedding net");
  const auto ng = static_cast<std::size_t>(model.embedding_width());
  std::vector<EmbeddingTable> out;
  for (std::size_t t = 0; t < data.size(); ++t) {
    std::string at = "[";
    at += std::to_string(t);
    at += ']';
    std::vector<std::size_t> shape;
    const std::vector<double> bounds = r.array(info[t], where + ".compress_info" + at, shape);
    if (bounds.size() != 6) r.format_error(where + ".compress_info" + at, "does not hold 6 values");
    const std::vector<double> values = r.array(data[t], where + ".compress_data" + at, shape);
    if (shape.size() != 2 || shape[0] == 0 || shape[1] != 6 * ng)
      r.format_error(where + ".compress_data" + at,
                     "is not a table of 6 x " + std::to_string(ng) + " coefficients per interval");
    Matrix coefficients(shape[0], shape[1]);
    std::copy(values.begin(), values.end(), coefficients.data());
    try {
      out.emplace_back(bounds[0], bounds[1], bounds[2], bounds[3], bounds[4],
                       std::move(coefficients));
    } catch (const ConfigError& e) {
      r.format_error(where + at, e.what());
    }
  }
  return out;
}

void require_empty(const Reader& r, const YAML::Node& node, const std::string& key,
                   const std::string& where) {
  YAML::Node c = node[key];
  if (c && !c.IsNull() && !(c.IsSequence() && c.size() == 0))
    r.config_error(where + "." + key + " is set; type exclusions are not supported");
}

// A linear layer of the attention (NativeLayer without activation, resnet or idt).
void linear_layer(const Reader& r, const YAML::Node& node, const std::string& where,
                  Eigen::Index in, Eigen::Index out, Matrix& w, RowVector& b) {
  const YAML::Node vars = r.child(node, "@variables", where);
  w = r.matrix(r.child(vars, "w", where), where + ".w", static_cast<std::size_t>(in),
               static_cast<std::size_t>(out));
  if (!r.scalar<bool>(node, "bias", where))
    r.config_error(where + " has no bias; attention layers without bias are not supported");
  b = r.vector(r.child(vars, "b", where), where + ".b", static_cast<std::size_t>(out));
  if (activation(r, r.text(node, "activation_function", where), where) != Activation::kLinear)
    r.format_error(where, "is not a linear layer");
}

// A net evaluated at load on the rows of `input` (samples x its input width).
Matrix evaluated(const Network& net, const kernel::Soa<double>& input) {
  kernel::Tape<double> tape;
  kernel::Scratch<double> scratch;
  return kernel::forward<double>(net,
                                 kernel::ConstView<double>(input.data(), input.rows(), input.cols(),
                                                           Eigen::OuterStride<>(input.rows())),
                                 tape, scratch);
}

// DPA-1's type embedding and attention layers (DescrptDPA1.serialize(), @version 1 or 2).
Attention attention_parts(const Reader& r, const YAML::Node& d, const Model& model) {
  const std::string w = "model.descriptor";
  const int version = r.scalar<int>(d, "@version", w);
  if (version > 3 || (!r.is_null(d, "lmax") && r.scalar<int>(d, "lmax", w) != 1))
    r.config_error(w + " (dpa1) has @version " + std::to_string(version) +
                   ": its higher-moment (lmax > 1) form is not supported");
  const std::string mode = r.text(d, "tebd_input_mode", w);
  if (mode != "concat" && mode != "strip")
    r.format_error(w + ".tebd_input_mode", "must be concat or strip, not '" + mode + "'");
  if (r.scalar<bool>(d, "attn_mask", w)) r.config_error("dpa1 with attn_mask is not supported");
  if (r.scalar<bool>(d, "use_econf_tebd", w))
    r.config_error(
        "dpa1 with use_econf_tebd (electronic-configuration type embedding) is not "
        "supported");
  Attention a;
  a.strip = mode == "strip";
  a.hidden = r.scalar<int>(d, "attn", w);
  a.dotr = r.scalar<bool>(d, "attn_dotr", w);
  a.normalize = r.scalar<bool>(d, "normalize", w);
  a.smooth = r.scalar<bool>(d, "smooth_type_embedding", w);
  a.concat_output_tebd = r.scalar<bool>(d, "concat_output_tebd", w);
  if (a.hidden < 1) r.format_error(w + ".attn", "must be positive");
  // GatedAttentionLayer: the temperature when given, else (head_dim * scaling_factor)^-1/2.
  a.scaling = r.is_null(d, "temperature")
                  ? 1.0 / std::sqrt(a.hidden * r.scalar<double>(d, "scaling_factor", w))
                  : r.scalar<double>(d, "temperature", w);

  // The type embedding: its net on the one-hot vectors of the types.
  const YAML::Node te = r.child(d, "type_embedding", w);
  const int ntypes = model.ntypes();
  if (r.scalar<int>(te, "ntypes", w + ".type_embedding") != ntypes)
    r.format_error(w + ".type_embedding.ntypes", "differs from the type map's");
  const Network net = network(r, r.child(te, "embedding", w + ".type_embedding"),
                              w + ".type_embedding.embedding", ntypes);
  a.type_embedding = evaluated(net, kernel::Soa<double>::Identity(ntypes, ntypes));
  if (a.strip) {  // the strip net on every pair of types' embeddings
    const Eigen::Index tebd = a.type_embedding.cols();
    const int rows = model.type_one_side ? ntypes : ntypes * ntypes;
    const Eigen::Index in = model.type_one_side ? tebd : 2 * tebd;
    kernel::Soa<double> pairs(rows, in);
    for (int c = 0; c < (model.type_one_side ? 1 : ntypes); ++c)
      for (int n = 0; n < ntypes; ++n) {
        const int row = model.type_one_side ? n : c * ntypes + n;
        pairs.row(row).head(tebd) = a.type_embedding.row(n);
        if (!model.type_one_side) pairs.row(row).tail(tebd) = a.type_embedding.row(c);
      }
    const std::vector<Network> strip =
        networks(r, r.child(d, "embeddings_strip", w), w + ".embeddings_strip", ntypes, in, {0});
    a.strip_table = evaluated(strip.front(), pairs);
  }

  const std::string lw = w + ".attention_layers";
  const YAML::Node al = r.child(r.child(d, "attention_layers", w), "attention_layers", lw);
  if (!al.IsSequence() || static_cast<int>(al.size()) != r.scalar<int>(d, "attn_layer", w))
    r.format_error(lw, "does not hold attn_layer layers");
  const Eigen::Index ng = model.embeddings.empty() ? 0 : model.embedding_width();
  for (std::size_t k = 0; k < al.size(); ++k) {
    const std::string at = lw + "[" + std::to_string(k) + "]";
    const YAML::Node gated = r.child(al[k], "attention_layer", at);
    if (!r.is_null(gated, "num_heads") && r.scalar<int>(gated, "num_heads", at) != 1)
      r.config_error(at + " has more than one head; DPA-1 has one");
    AttentionLayer layer;
    const YAML::Node in = r.child(gated, "in_proj", at);
    std::vector<std::size_t> shape;
    r.array(r.child(r.child(in, "@variables", at + ".in_proj"), "w", at + ".in_proj"),
            at + ".in_proj.w", shape);
    if (shape.size() != 2 || shape[1] != static_cast<std::size_t>(3 * a.hidden) ||
        (ng > 0 && shape[0] != static_cast<std::size_t>(ng)))
      r.format_error(at + ".in_proj.w", "is not embedding width x 3 attn");
    const auto embed = static_cast<Eigen::Index>(shape[0]);
    linear_layer(r, in, at + ".in_proj", embed, 3 * a.hidden, layer.in_w, layer.in_b);
    linear_layer(r, r.child(gated, "out_proj", at), at + ".out_proj", a.hidden, embed, layer.out_w,
                 layer.out_b);
    const YAML::Node norm = r.child(al[k], "attn_layer_norm", at);
    const YAML::Node nv = r.child(norm, "@variables", at + ".attn_layer_norm");
    layer.norm_w =
        r.vector(r.child(nv, "w", at), at + ".attn_layer_norm.w", static_cast<std::size_t>(embed));
    layer.norm_b =
        r.vector(r.child(nv, "b", at), at + ".attn_layer_norm.b", static_cast<std::size_t>(embed));
    layer.norm_eps = r.scalar<double>(norm, "eps", at + ".attn_layer_norm");
    a.layers.push_back(std::move(layer));
  }
  return a;
}

}  // namespace

int Model::nnei() const { return std::accumulate(sel.begin(), sel.end(), 0); }

std::string precision_name(Precision precision) {
  return precision == Precision::kFloat32 ? "float32" : "float64";
}

std::optional<Precision> precision_named(const std::string& name) {
  if (name == "float64") return Precision::kFloat64;
  if (name == "float32") return Precision::kFloat32;
  return std::nullopt;
}

std::size_t Model::weight_bytes() const {
  std::size_t net_values = 0;
  for (const auto* nets : {&embeddings, &fittings}) {
    if (nets == &embeddings && compressed()) continue;
    for (const Network& net : *nets)
      for (const Layer& layer : net.layers)
        net_values += static_cast<std::size_t>(layer.w.size() + layer.b.size() + layer.idt.size());
  }
  for (const EmbeddingTable& table : tables)
    net_values += static_cast<std::size_t>(table.coefficients().size());
  net_values +=
      static_cast<std::size_t>(attention.type_embedding.size() + attention.strip_table.size());
  for (const AttentionLayer& l : attention.layers)
    net_values += static_cast<std::size_t>(l.in_w.size() + l.in_b.size() + l.out_w.size() +
                                           l.out_b.size() + l.norm_w.size() + l.norm_b.size());
  const std::size_t scalar = precision == Precision::kFloat32 ? sizeof(float) : sizeof(double);
  return net_values * scalar +
         static_cast<std::size_t>(davg.size() + dstd.size()) * sizeof(double) +
         energy_bias.size() * sizeof(double) + sel.size() * sizeof(int);
}

// The model from its tree, the YAML form's or a .dp file's (dp_file.hpp).
Model parse_model_tree(const YAML::Node& root, const std::string& source);

Model parse_model(const std::string& yaml_text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    Reader(source).format_error("YAML", e.what());
  }
  return parse_model_tree(root, source);
}

Model parse_model_tree(const YAML::Node& root, const std::string& source) {
  Reader r(source);
  const YAML::Node m = r.child(root, "model", "top level");
  const std::string model_type = r.text(m, "type", "model");
  if (model_type != "standard")
    r.config_error("model type '" + model_type +
                   "' is not supported; only standard energy models (se_e2_a + ener) are");
  require_empty(r, m, "atom_exclude_types", "model");
  require_empty(r, m, "pair_exclude_types", "model");

  Model model;
  const YAML::Node type_map = r.child(m, "type_map", "model");
  if (!type_map.IsSequence() || type_map.size() == 0) r.format_error("model.type_map", "is empty");
  for (const auto& t : type_map) {
    if (!t.IsScalar())
      r.format_error("model.type_map", "holds an entry that is not an element name");
    model.type_map.push_back(t.Scalar());
  }
  const int ntypes = model.ntypes();

  const YAML::Node d = r.child(m, "descriptor", "model");
  const std::string dtype = r.text(d, "type", "model.descriptor");
  if (dtype == "se_e2_r" || dtype == "se_r")
    model.descriptor = DescriptorType::kSeR;
  else if (dtype == "dpa1" || dtype == "se_atten")
    model.descriptor = DescriptorType::kSeAtten;
  else if (dtype != "se_e2_a" && dtype != "se_a")
    r.config_error("descriptor type '" + dtype +
                   "' is not supported; supported are se_e2_a (se_a), se_e2_r (se_r) and dpa1 "
                   "(se_atten)");
  const bool attention = model.descriptor == DescriptorType::kSeAtten;
  model.type_one_side = r.scalar<bool>(d, "type_one_side", "model.descriptor");
  require_empty(r, d, "exclude_types", "model.descriptor");
  if (!r.is_null(d, "spin")) r.config_error("spin models are not supported");
  if (r.scalar<double>(d, "env_protection", "model.descriptor") != 0.0)
    r.config_error("descriptor env_protection != 0 is not supported");
  // The layers carry their own activation; the network-level setting is checked so that an
  // unsupported one is named where the user set it.
  activation(r, r.text(d, "activation_function", "model.descriptor"), "model.descriptor");
  model.rcut = r.scalar<double>(d, "rcut", "model.descriptor");
  model.rcut_smth = r.scalar<double>(d, "rcut_smth", "model.descriptor");
  if (!(model.rcut_smth < model.rcut))
    r.format_error("model.descriptor", "rcut_smth must be below rcut");
  // DPA-1 keeps one list of the nearest neighbors of every type: sel is its length.
  if (attention && d["sel"] && d["sel"].IsScalar())
    model.sel = {r.scalar<int>(d, "sel", "model.descriptor")};
  else
    model.sel = r.scalar<std::vector<int>>(d, "sel", "model.descriptor");
  if (attention && model.sel.size() != 1)
    model.sel = {std::accumulate(model.sel.begin(), model.sel.end(), 0)};
  if (!attention && static_cast<int>(model.sel.size()) != ntypes)
    r.format_error("model.descriptor.sel", "does not have one entry per type");
  if (model.descriptor != DescriptorType::kSeR)
    model.axis_neuron = r.scalar<int>(d, "axis_neuron", "model.descriptor");
  const std::string precision = r.text(d, "precision", "model.descriptor");
  const YAML::Node dvars = r.child(d, "@variables", "model.descriptor");
  const auto slots = static_cast<std::size_t>(model.nnei() * model.env_columns());
  model.davg = r.matrix(r.child(dvars, "davg", "model.descriptor.@variables"),
                        "model.descriptor.davg", ntypes, slots);
  model.dstd = r.matrix(r.child(dvars, "dstd", "model.descriptor.@variables"),
                        "model.descriptor.dstd", ntypes, slots);
  if (attention) {
    model.attention = attention_parts(r, d, model);
    const int tebd = model.attention.strip ? 0 : model.attention.tebd_dim();
    model.embeddings =
        networks(r, r.child(d, "embeddings", "model.descriptor"), "model.descriptor.embeddings",
                 ntypes, 1 + (model.type_one_side ? tebd : 2 * tebd), {0});
    if (model.attention.strip && model.attention.strip_table.cols() != model.embedding_width())
      r.format_error("model.descriptor.embeddings_strip", "is not as wide as the embedding net");
  } else {
    model.embeddings = networks(r, r.child(d, "embeddings", "model.descriptor"),
                                "model.descriptor.embeddings", ntypes, 1, {1, 2});
  }
  if (!attention && model.embeddings.size() !=
                        static_cast<std::size_t>(model.type_one_side ? ntypes : ntypes * ntypes))
    r.format_error("model.descriptor.embeddings",
                   "ndim does not match type_one_side (1 for true, 2 for false)");
  // One architecture for every net (DeePMD-kit builds them from one neuron list), which the
  // kernel's buffers and costs rely on.
  for (const auto& net : model.embeddings) {
    bool same = net.layers.size() == model.embeddings.front().layers.size();
    for (std::size_t l = 0; same && l < net.layers.size(); ++l)
      same = net.layers[l].w.cols() == model.embeddings.front().layers[l].w.cols();
    if (!same) r.format_error("model.descriptor.embeddings", "networks differ in their layers");
  }
  if (model.descriptor != DescriptorType::kSeR &&
      (model.axis_neuron < 1 || model.axis_neuron > model.embedding_width()))
    r.format_error("model.descriptor.axis_neuron", "must lie in 1..embedding width");
  if (attention) {
    if (!model.attention.layers.empty() &&
        model.attention.layers.front().in_w.rows() != model.embedding_width())
      r.format_error("model.descriptor.attention_layers", "do not take the embedding net's width");
    // `dp compress` of a DPA-1 model with attention layers tabulates only the strip net's output
    // per type pair (type_embd_data), which the file's nets give again; with none it also
    // tabulates the embedding net (geo_compress), which md_ipu does not read.
    if (!r.is_null(d, "compress") && !r.is_null(d["compress"], "geo_compress") &&
        r.scalar<bool>(d["compress"], "geo_compress", "model.descriptor.compress"))
      r.config_error(
          "DPA-1 models whose embedding net `dp compress` tabulated (geo_compress) are not "
          "supported; give the model before `dp compress`");
  } else if (!r.is_null(d, "compress")) {
    model.tables = tables(r, d["compress"], model);
  }

  const YAML::Node f = r.child(m, "fitting", "model");
  const std::string ftype = r.text(f, "type", "model.fitting");
  if (ftype != "ener")
    r.config_error("fitting type '" + ftype + "' is not supported; only ener is");
  model.numb_fparam = r.scalar<int>(f, "numb_fparam", "model.fitting");
  model.numb_aparam = r.scalar<int>(f, "numb_aparam", "model.fitting");
  if (model.numb_fparam < 0 || model.numb_fparam > 1 << 16)
    r.format_error("model.fitting.numb_fparam", "must lie in 0..65536");
  if (model.numb_aparam < 0 || model.numb_aparam > 1 << 16)
    r.format_error("model.fitting.numb_aparam", "must lie in 0..65536");
  if (!r.is_null(f, "use_aparam_as_mask") &&
      r.scalar<bool>(f, "use_aparam_as_mask", "model.fitting"))
    r.config_error("fitting with use_aparam_as_mask: true is not supported");
  activation(r, r.text(f, "activation_function", "model.fitting"), "model.fitting");
  // The networks run at the precision the model was trained in; one for descriptor and fitting.
  if (r.text(f, "precision", "model.fitting") != precision)
    r.config_error("a descriptor in " + precision + " with a fitting net in " +
                   r.text(f, "precision", "model.fitting") +
                   " is not supported; convert the model to one precision");
  if (const auto p = precision_named(precision))
    model.precision = *p;
  else
    r.config_error("precision " + precision +
                   " is not supported; supported are float64 and float32");
  // One fitting net for every type where the descriptor carries the type (DeePMD-kit sets
  // mixed_types from the descriptor's).
  model.mixed_fitting = r.scalar<bool>(f, "mixed_types", "model.fitting");
  if (model.mixed_fitting && !attention)
    r.config_error("fitting with mixed_types: true is supported with the dpa1 descriptor only");
  require_empty(r, f, "exclude_types", "model.fitting");
  if (r.scalar<int>(f, "dim_descrpt", "model.fitting") != model.descriptor_dim())
    r.format_error("model.fitting.dim_descrpt", "does not match the descriptor");
  model.fittings = networks(r, r.child(f, "nets", "model.fitting"), "model.fitting.nets", ntypes,
                            model.fitting_input_dim(), {model.mixed_fitting ? 0 : 1});
  for (const auto& net : model.fittings)
    if (net.out_dim() != 1) r.format_error("model.fitting.nets", "networks must have one output");
  const YAML::Node fvars = r.child(f, "@variables", "model.fitting");
  // The parameters' statistics (null in a model without parameters).
  const auto statistics = [&](const char* key, int n) {
    const std::string where = std::string("model.fitting.@variables.") + key;
    if (n == 0) return std::vector<double>{};
    const RowVector v = r.vector(r.child(fvars, key, "model.fitting.@variables"), where,
                                 static_cast<std::size_t>(n));
    return std::vector<double>(v.data(), v.data() + v.size());
  };
  model.fparam_avg = statistics("fparam_avg", model.numb_fparam);
  model.fparam_inv_std = statistics("fparam_inv_std", model.numb_fparam);
  model.aparam_avg = statistics("aparam_avg", model.numb_aparam);
  model.aparam_inv_std = statistics("aparam_inv_std", model.numb_aparam);
  if (!r.is_null(f, "default_fparam")) {
    model.default_fparam = r.scalar<std::vector<double>>(f, "default_fparam", "model.fitting");
    if (static_cast<int>(model.default_fparam.size()) != model.numb_fparam)
      r.format_error("model.fitting.default_fparam", "does not have numb_fparam values");
  }
  Matrix bias = r.matrix(r.child(fvars, "bias_atom_e", "model.fitting.@variables"),
                         "model.fitting.bias_atom_e", ntypes, 1);
  // The energy model adds out_bias per atom type (BaseAtomicModel.apply_out_stat); out_std is
  // not applied to energies. Models of @version 1 (DeePMD-kit 3.0 alphas) predate the output
  // statistics: no out_bias, as zeros.
  Matrix out_bias = Matrix::Zero(ntypes, 1);
  if (!(r.is_null(m, "@variables") && r.scalar<int>(m, "@version", "model") == 1))
    out_bias = r.matrix(r.child(r.child(m, "@variables", "model"), "out_bias", "model.@variables"),
                        "model.out_bias", ntypes, 1);
  for (int t = 0; t < ntypes; ++t) model.energy_bias.push_back(bias(t, 0) + out_bias(t, 0));
  // `dp compress` records the training data's smallest neighbor distance at the top level.
  if (!r.is_null(root, "min_nbor_dist")) {
    model.min_nbor_dist = r.scalar<double>(root, "min_nbor_dist", "top level");
    if (!(model.min_nbor_dist > 0 && model.min_nbor_dist < model.rcut))
      r.format_error("min_nbor_dist", "must lie between 0 and the cutoff");
  }
  return model;
}

Model parse_model_file(const std::string& text, const std::string& path) {
  // DeePMD-kit's model formats by their suffixes (deepmd/backend/*.py: suffixes of each backend).
  const auto dot = path.rfind('.');
  const std::string suffix = dot == std::string::npos ? "" : path.substr(dot);
  if (suffix == ".dp") return parse_model_tree(dp_model_tree(text, path), "'" + path + "'");
  const char* format = suffix == ".pb"                        ? "a TensorFlow model (.pb)"
                       : suffix == ".pth" || suffix == ".pt"  ? "a PyTorch model (.pth/.pt)"
                       : suffix == ".hlo"                     ? "a JAX model (.hlo)"
                       : text.find('\0') != std::string::npos ? "a binary file"
                                                              : nullptr;
  if (format) {
    const std::string stem = path.substr(0, dot == std::string::npos ? path.size() : dot);
    throw ConfigError("DeePMD model '" + path + "' is " + format +
                      ", which md_ipu does not read: convert it with DeePMD-kit v3, `dp "
                      "convert-backend " +
                      path + " " + stem + ".yaml`, and give the .yaml file");
  }
  return parse_model(text, "'" + path + "'");
}

Model load_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ConfigError("cannot open DeePMD model file '" + path +
                      "'; give the path of a .yaml or .dp model written by `dp convert-backend`");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_model_file(buffer.str(), path);
}

}  // namespace tessera::md::deepmd
