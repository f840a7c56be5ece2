#include "tessera/md/expression.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "group_functions.hpp"
#include "tessera/md/compute.hpp"

namespace tessera::md {

struct Formula::Node {
  enum class Op {
    number,
    name,
    negate,
    logical_not,
    logical_or,
    logical_and,
    equal,
    not_equal,
    less,
    less_equal,
    greater,
    greater_equal,
    add,
    subtract,
    multiply,
    divide,
    power,
    call,
    special,
    random  // random(lo, hi, seed) or normal(mu, sigma, seed), by name
  };
  Op op = Op::number;
  double value = 0;
  std::string name;               // a name's or a function's
  std::size_t at = 0;             // where it starts in the text, for messages
  std::vector<std::size_t> args;  // operands (indices of earlier nodes)
};

namespace {

using Node = Formula::Node;
using Op = Node::Op;

[[noreturn]] void fail(const std::string& text, const std::string& what, std::size_t at) {
  throw ConfigError("cannot evaluate '" + text + "': " + what + " at character " +
                    std::to_string(at + 1));
}

// Recursive descent, lowest precedence first: || , && , == != , < <= > >= , + - , * / , ^ , unary.
class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  std::vector<Node> parse() {
    logical_or();
    skip();
    if (i_ != s_.size()) fail(s_, "unexpected '" + std::string(1, s_[i_]) + "'", i_);
    return std::move(nodes_);
  }

 private:
  std::size_t add(Node n) {
    nodes_.push_back(std::move(n));
    return nodes_.size() - 1;
  }
  std::size_t binary(Op op, std::size_t a, std::size_t b, std::size_t at) {
    Node n;
    n.op = op;
    n.at = at;
    n.args = {a, b};
    return add(std::move(n));
  }
  std::size_t unary(Op op, std::size_t a, std::size_t at) {
    Node n;
    n.op = op;
    n.at = at;
    n.args = {a};
    return add(std::move(n));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool take(const char* op) {
    skip();
    const std::size_t n = std::char_traits<char>::length(op);
    if (s_.compare(i_, n, op) != 0) return false;
    i_ += n;
    return true;
  }
  // One precedence level of left-associative operators.
  template <typename Next>
  std::size_t level(std::initializer_list<std::pair<const char*, Op>> ops, Next next) {
    std::size_t v = (this->*next)();
    for (;;) {
      bool found = false;
      for (const auto& [text, op] : ops) {
        const std::size_t at = i_;
        if (take(text)) {
          v = binary(op, v, (this->*next)(), at);
          found = true;
          break;
        }
      }
      if (!found) return v;
    }
  }
  std::size_t logical_or() { return level({{"||", Op::logical_or}}, &Parser::logical_and); }
  std::size_t logical_and() { return level({{"&&", Op::logical_and}}, &Parser::equality); }
  std::size_t equality() {
    return level({{"==", Op::equal}, {"!=", Op::not_equal}}, &Parser::relation);
  }
  std::size_t relation() {
    return level(
        {{"<=", Op::less_equal}, {">=", Op::greater_equal}, {"<", Op::less}, {">", Op::greater}},
        &Parser::sum);
  }
  std::size_t sum() { return level({{"+", Op::add}, {"-", Op::subtract}}, &Parser::product); }
  std::size_t product() { return level({{"*", Op::multiply}, {"/", Op::divide}}, &Parser::power); }
  std::size_t power() {
    const std::size_t base = prefix();
    const std::size_t at = i_;
    if (take("^")) return binary(Op::power, base, power(), at);  // right associative
    return base;
  }
  std::size_t prefix() {
    const std::size_t at = i_;
    if (take("-")) return unary(Op::negate, prefix(), at);
    if (take("+")) return prefix();
    if (take("!")) return unary(Op::logical_not, prefix(), at);
    return primary();
  }
  std::size_t primary() {
    skip();
    if (i_ >= s_.size()) fail(s_, "the formula ends too early", i_);
    if (take("(")) {
      const std::size_t v = logical_or();
      if (!take(")")) fail(s_, "missing ')'", i_);
      return v;
    }
    const char c = s_[i_];
    Node n;
    n.at = i_;
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      char* end = nullptr;
      n.value = std::strtod(s_.c_str() + i_, &end);
      i_ = static_cast<std::size_t>(end - s_.c_str());
      return add(std::move(n));
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
        ++i_;
      // c_ID[N], f_ID[N] and f_ID[I][J], and atom values such as x[N] or x[v_i]: the element
      // is part of the name.
      const bool output =
          i_ - start > 2 && s_[start + 1] == '_' && (s_[start] == 'c' || s_[start] == 'f');
      const int most = output ? 2 : atom_value(s_.substr(start, i_ - start)) ? 1 : 0;
      for (int brackets = 0; brackets < most && i_ < s_.size() && s_[i_] == '['; ++brackets) {
        const auto close = s_.find(']', i_);
        if (close == std::string::npos) fail(s_, "missing ']'", i_);
        i_ = close + 1;
      }
      n.name = s_.substr(start, i_ - start);
      if ((is_group_function(n.name) || is_mask_function(n.name)) && i_ < s_.size() &&
          s_[i_] == '(') {
        // LAMMPS's group functions take names (a group, a dimension, a region): the call is
        // kept whole, as one name its caller evaluates (group_functions.hpp).
        const auto close = s_.find(')', i_);
        if (close == std::string::npos) fail(s_, "missing ')' after " + n.name + "(", i_);
        for (std::size_t k = i_; k <= close; ++k)
          if (s_[k] != ' ' && s_[k] != '\t') n.name += s_[k];
        i_ = close + 1;
        n.op = Op::name;
        return add(std::move(n));
      }
      if (take("(")) {
        n.op = Op::call;
        if (special_function(n.name)) {
          // LAMMPS's special functions of a global vector: sum(c_ID), slope(f_ID[2]), ...
          const std::size_t at = i_, mark = nodes_.size();
          const std::size_t v = primary();
          if (nodes_[v].op == Op::name && take(")") &&
              (nodes_[v].name.rfind("c_", 0) == 0 || nodes_[v].name.rfind("f_", 0) == 0)) {
            n.op = Op::special;
            n.args = {v};
            return add(std::move(n));
          }
          if (n.name != "min" && n.name != "max")
            fail(s_,
                 n.name +
                     "() takes a compute's or fix's global vector (c_ID, c_ID[I], f_ID, "
                     "f_ID[I])",
                 at);
          i_ = at;  // min(a, b) and max(a, b): the two-argument math functions
          nodes_.resize(mark);
        }
        if (!take(")")) {
          do n.args.push_back(logical_or());
          while (take(","));
          if (!take(")")) fail(s_, "missing ')' after the arguments of " + n.name, i_);
        }
        if (n.name == "random" || n.name == "normal") {
          if (n.args.size() != 3) fail(s_, n.name + "() takes 3 arguments", n.at);
          n.op = Op::random;
        } else {
          check_function(n);
        }
        return add(std::move(n));
      }
      if (n.name == "PI") {
        n.value = M_PI;
        return add(std::move(n));
      }
      n.op = Op::name;
      return add(std::move(n));
    }
    fail(s_, "unexpected '" + std::string(1, c) + "'", i_);
  }
  static bool atom_value(const std::string& name) { return atom_attribute_index(name).has_value(); }
  static bool special_function(const std::string& name) {
    return name == "sum" || name == "min" || name == "max" || name == "ave" || name == "trap" ||
           name == "slope";
  }
  void check_function(const Node& n) const {
    static const std::array<const char*, 14> one{"sqrt",  "exp",  "ln",    "log", "abs",
                                                 "floor", "ceil", "round", "sin", "cos",
                                                 "tan",   "asin", "acos",  "atan"};
    std::size_t wanted = 0;
    for (const char* f : one)
      if (n.name == f) wanted = 1;
    if (n.name == "atan2" || n.name == "min" || n.name == "max") wanted = 2;
    if (wanted == 0) fail(s_, "unknown function '" + n.name + "'", n.at);
    if (n.args.size() != wanted)
      fail(s_, n.name + "() takes " + std::to_string(wanted) + " argument(s)", n.at);
  }

  const std::string& s_;
  std::vector<Node> nodes_;
  std::size_t i_ = 0;
};

double apply_function(const std::string& f, const double* a) {
  if (f == "sqrt") return std::sqrt(a[0]);
  if (f == "exp") return std::exp(a[0]);
  if (f == "ln") return std::log(a[0]);
  if (f == "log") return std::log10(a[0]);
  if (f == "abs") return std::fabs(a[0]);
  if (f == "floor") return std::floor(a[0]);
  if (f == "ceil") return std::ceil(a[0]);
  if (f == "round") return std::round(a[0]);
  if (f == "sin") return std::sin(a[0]);
  if (f == "cos") return std::cos(a[0]);
  if (f == "tan") return std::tan(a[0]);
  if (f == "asin") return std::asin(a[0]);
  if (f == "acos") return std::acos(a[0]);
  if (f == "atan") return std::atan(a[0]);
  if (f == "atan2") return std::atan2(a[0], a[1]);
  if (f == "min") return std::fmin(a[0], a[1]);
  return std::fmax(a[0], a[1]);  // max: the parser admits no other
}

// An operator on its operands' values (a function's through apply_function).
double apply(const std::string& text, const Node& n, const double* a) {
  switch (n.op) {
    case Op::negate:
      return -a[0];
    case Op::logical_not:
      return a[0] == 0.0 ? 1.0 : 0.0;
    case Op::logical_or:
      return (a[0] != 0.0 || a[1] != 0.0) ? 1.0 : 0.0;
    case Op::logical_and:
      return (a[0] != 0.0 && a[1] != 0.0) ? 1.0 : 0.0;
    case Op::equal:
      return a[0] == a[1] ? 1.0 : 0.0;
    case Op::not_equal:
      return a[0] != a[1] ? 1.0 : 0.0;
    case Op::less:
      return a[0] < a[1] ? 1.0 : 0.0;
    case Op::less_equal:
      return a[0] <= a[1] ? 1.0 : 0.0;
    case Op::greater:
      return a[0] > a[1] ? 1.0 : 0.0;
    case Op::greater_equal:
      return a[0] >= a[1] ? 1.0 : 0.0;
    case Op::add:
      return a[0] + a[1];
    case Op::subtract:
      return a[0] - a[1];
    case Op::multiply:
      return a[0] * a[1];
    case Op::divide:
      if (a[1] == 0.0) fail(text, "division by zero", n.at);
      return a[0] / a[1];
    case Op::power:
      return std::pow(a[0], a[1]);
    case Op::call:
      return apply_function(n.name, a);
    case Op::number:
    case Op::name:
    case Op::special:
    case Op::random:
      break;
  }
  return n.value;
}

// LAMMPS's special functions of a global vector (Variable::special_function).
double special(const std::string& text, const Node& n, const std::string& name,
               const Formula::VectorLookup& vectors) {
  std::optional<std::vector<double>> found;
  if (vectors) found = vectors(name);
  if (!found) fail(text, "unknown vector '" + name + "'", n.at);
  const std::vector<double>& v = *found;
  if (v.empty()) fail(text, name + " has no values yet", n.at);
  const std::size_t count = v.size();
  double value = 0.0;
  if (n.name == "min" || n.name == "max") {
    value = v[0];
    for (double x : v) value = n.name == "min" ? std::fmin(value, x) : std::fmax(value, x);
    return value;
  }
  if (n.name == "slope") {
    // The least-squares slope against the index (0, 1, ...), LAMMPS's per-element slope.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const double x = static_cast<double>(i);
      sx += x, sy += v[i], sxx += x * x, sxy += x * v[i];
    }
    const double n_values = static_cast<double>(count);
    const double denominator = n_values * sxx - sx * sx;
    return denominator != 0.0 ? (n_values * sxy - sx * sy) / denominator : 1.0e20;
  }
  for (std::size_t i = 0; i < count; ++i)
    value += n.name == "trap" && (i == 0 || i + 1 == count) ? 0.5 * v[i] : v[i];
  if (n.name == "ave") value /= static_cast<double>(count);
  return value;
}

// random()'s and normal()'s seed: a positive whole number.
int random_seed(const std::string& text, const Node& n, double seed) {
  if (!(seed >= 1 && seed <= 900000000 && seed == std::floor(seed)))
    fail(text, n.name + "()'s seed must be a whole number in 1..900000000", n.at);
  return static_cast<int>(seed);
}

double evaluate_scalar(const std::string& text, const std::vector<Node>& nodes, std::size_t k,
                       const std::function<std::optional<double>(const std::string&)>& lookup,
                       const Formula::VectorLookup& vectors, const FormulaRandom* random) {
  const Node& n = nodes[k];
  if (n.op == Op::number) return n.value;
  if (n.op == Op::special) return special(text, n, nodes[n.args[0]].name, vectors);
  if (n.op == Op::name) {
    if (auto v = lookup(n.name)) return *v;
    fail(text, "unknown name '" + n.name + "'", n.at);
  }
  std::array<double, 3> a{};
  for (std::size_t j = 0; j < n.args.size(); ++j)
    a[j] = evaluate_scalar(text, nodes, n.args[j], lookup, vectors, random);
  if (n.op == Op::random) {
    if (random == nullptr || !random->equal) fail(text, n.name + "() cannot be used here", n.at);
    const bool gaussian = n.name == "normal";
    if (gaussian && a[1] < 0) fail(text, "normal()'s sigma must not be negative", n.at);
    const double draw = random->equal(gaussian, random_seed(text, n, a[2]));
    return gaussian ? a[0] + a[1] * draw : a[0] + draw * (a[1] - a[0]);
  }
  return apply(text, n, a.data());
}

// One node's values over a tile's atoms: one number for all, or one each.
struct Column {
  bool uniform = true;
  double value = 0;
  std::vector<double> values;
  double at(std::size_t i) const { return uniform ? value : values[i]; }
};

struct Bound {
  std::string text;
  std::shared_ptr<const std::vector<Node>> nodes;
  std::vector<Formula::Leaf> leaves;  // by node, for names
  std::vector<std::size_t> draw_of;   // by node, for random nodes: its column of the draws
  std::size_t draws_per_atom = 0;
  AtomValues draws;  // draws_per_atom per atom

  Column column(std::size_t k, const AtomsView& view, std::size_t atoms) const {
    const Node& n = (*nodes)[k];
    Column c;
    if (n.op == Op::number) {
      c.value = n.value;
      return c;
    }
    if (n.op == Op::random) {
      const Column lo = column(n.args[0], view, atoms), hi = column(n.args[1], view, atoms);
      std::vector<double> drawn(atoms * draws_per_atom);
      draws(view, drawn);
      c.uniform = false;
      c.values.resize(atoms);
      const bool gaussian = n.name == "normal";
      for (std::size_t i = 0; i < atoms; ++i) {
        const double d = drawn[i * draws_per_atom + draw_of[k]];
        if (gaussian && hi.at(i) < 0) fail(text, "normal()'s sigma must not be negative", n.at);
        c.values[i] = gaussian ? lo.at(i) + hi.at(i) * d : lo.at(i) + d * (hi.at(i) - lo.at(i));
      }
      return c;
    }
    if (n.op == Op::name || n.op == Op::special) {
      const Formula::Leaf& leaf = leaves[k];
      if (leaf.number) {
        c.value = *leaf.number;
      } else {
        c.uniform = false;
        c.values.assign(atoms, 0.0);
        leaf.per_atom(view, c.values);
      }
      return c;
    }
    std::array<Column, 3> args;
    bool uniform = true;
    for (std::size_t j = 0; j < n.args.size(); ++j) {
      args[j] = column(n.args[j], view, atoms);
      uniform = uniform && args[j].uniform;
    }
    std::array<double, 3> a{};
    if (uniform) {
      for (std::size_t j = 0; j < n.args.size(); ++j) a[j] = args[j].value;
      c.value = apply(text, n, a.data());
      return c;
    }
    c.uniform = false;
    c.values.resize(atoms);
    for (std::size_t i = 0; i < atoms; ++i) {
      for (std::size_t j = 0; j < n.args.size(); ++j) a[j] = args[j].at(i);
      c.values[i] = apply(text, n, a.data());
    }
    return c;
  }
};

}  // namespace

Formula::Formula(std::string text)
    : text_(std::move(text)),
      nodes_(std::make_shared<const std::vector<Node>>(Parser(text_).parse())) {}

double Formula::evaluate(const std::function<std::optional<double>(const std::string&)>& lookup,
                         const VectorLookup& vectors, const FormulaRandom* random) const {
  return evaluate_scalar(text_, *nodes_, nodes_->size() - 1, lookup, vectors, random);
}

bool Formula::is_special_argument(std::size_t k) const {
  for (const Node& n : *nodes_)
    if (n.op == Op::special && n.args[0] == k) return true;
  return false;
}

AtomValues Formula::bind(const std::function<Leaf(const std::string&)>& resolve,
                         const VectorLookup& vectors, const FormulaRandom* random) const {
  auto bound = std::make_shared<Bound>();
  bound->text = text_;
  bound->nodes = nodes_;
  bound->leaves.resize(nodes_->size());
  bound->draw_of.resize(nodes_->size());
  // random() and normal(): each atom's draws, in the order LAMMPS evaluates the calls (the
  // nodes' order), from the stream the first call's seed makes.
  std::vector<bool> gaussian;
  int seed = 0;
  for (std::size_t k = 0; k < nodes_->size(); ++k) {
    const Node& n = (*nodes_)[k];
    if (n.op != Op::random) continue;
    if (random == nullptr || !random->atom) fail(text_, n.name + "() cannot be used here", n.at);
    const Node& s = (*nodes_)[n.args[2]];
    if (s.op != Op::number) fail(text_, n.name + "()'s seed must be a number", s.at);
    if (gaussian.empty()) seed = random_seed(text_, n, s.value);
    bound->draw_of[k] = gaussian.size();
    gaussian.push_back(n.name == "normal");
  }
  if (!gaussian.empty()) {
    bound->draws_per_atom = gaussian.size();
    bound->draws = random->atom(gaussian, seed);
  }
  for (std::size_t k = 0; k < nodes_->size(); ++k) {
    const Node& n = (*nodes_)[k];
    if (n.op == Op::special) {
      bound->leaves[k].number = special(text_, n, (*nodes_)[n.args[0]].name, vectors);
      continue;
    }
    if (n.op != Op::name || (k + 1 < nodes_->size() && is_special_argument(k))) continue;
    bound->leaves[k] = resolve(n.name);
    if (!bound->leaves[k].number && !bound->leaves[k].per_atom)
      fail(text_, "unknown name '" + n.name + "'", n.at);
  }
  return [bound](const AtomsView& view, std::span<double> out) {
    const std::size_t atoms = out.size();
    const Column c = bound->column(bound->nodes->size() - 1, view, atoms);
    for (std::size_t i = 0; i < atoms; ++i) out[i] = c.at(i);
  };
}

double evaluate(const std::string& formula,
                const std::function<std::optional<double>(const std::string&)>& lookup,
                const Formula::VectorLookup& vectors, const FormulaRandom* random) {
  return Formula(formula).evaluate(lookup, vectors, random);
}

}  // namespace tessera::md
