// Variable formulas, as LAMMPS evaluates them: numbers, + - * / ^, parentheses, unary minus,
// comparison and logic operators (< <= > >= == != && || !), math functions (sqrt exp ln log
// abs floor ceil round sin cos tan asin acos atan atan2, and min and max of two values), the
// constant PI, LAMMPS's special functions of a compute's or fix's global vector or array column
// (sum min max ave trap slope of c_ID, c_ID[I], f_ID, f_ID[I]; trap halves the end values, slope
// is the least-squares slope per element), random(lo, hi, seed) and normal(mu, sigma, seed)
// (FormulaRandom), and names: v_NAME references, c_ID and c_ID[N] (f_ID, f_ID[N]), thermo
// keywords, one atom's value by id (x[N], x[v_NAME]; id type mass x y z vx vy vz fx fy fz) and,
// in atom-style formulas, each atom's own values (the same names without the brackets).
//
// A formula is parsed once (Formula) and evaluated either to one number (equal style) or to one
// number per atom (atom style, on each tile for its own atoms, vectorised over them). Errors are
// ConfigError naming the formula and the character where it went wrong.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/md/compute.hpp"

namespace tessera::md {

// The streams random(lo, hi, seed) and normal(mu, sigma, seed) draw from, as LAMMPS's Variable
// keeps them: `equal` gives the next uniform (in [0, 1)) or standard Gaussian of the one stream
// of every equal-style evaluation, made from the seed of the first call (LAMMPS's
// randomequal); `atom` gives, for an atom-style formula's calls (gaussian or not, in the order
// LAMMPS evaluates them), each atom's draws (out[i * calls + j]) from the atom-style stream,
// made from the first seed it sees (LAMMPS's randomatom).
struct FormulaRandom {
  std::function<double(bool gaussian, int seed)> equal;
  std::function<AtomValues(const std::vector<bool>& gaussian, int seed)> atom;
};

class Formula {
 public:
  // Throws ConfigError for a formula that does not parse.
  explicit Formula(std::string text);
  const std::string& text() const { return text_; }

  // A global vector by name (c_ID, f_ID[I], ...), or nothing for an unknown one.
  using VectorLookup = std::function<std::optional<std::vector<double>>(const std::string&)>;

  // One number: `lookup(name)` gives each name's value, or nothing for an unknown name;
  // `vectors` the special functions' vectors.
  double evaluate(const std::function<std::optional<double>(const std::string&)>& lookup,
                  const VectorLookup& vectors = {}, const FormulaRandom* random = nullptr) const;

  // What a name stands for in an atom-style formula: one number for every atom, or each atom's
  // own value (filled for a tile's atoms, concurrently over tiles).
  struct Leaf {
    std::optional<double> number;
    AtomValues per_atom;
  };
  // Binds every name now (host side; `resolve` throws ConfigError for an unknown one, or returns
  // an empty Leaf, which is reported with its position): the result fills out[i] for each atom of
  // a tile. It holds what it bound and stays valid while the bound computes live.
  AtomValues bind(const std::function<Leaf(const std::string&)>& resolve,
                  const VectorLookup& vectors = {}, const FormulaRandom* random = nullptr) const;

  struct Node;

 private:
  bool is_special_argument(std::size_t k) const;
  std::string text_;
  std::shared_ptr<const std::vector<Node>> nodes_;  // the parse tree, root last
};

// Formula(formula).evaluate(lookup, vectors).
double evaluate(const std::string& formula,
                const std::function<std::optional<double>(const std::string&)>& lookup,
                const Formula::VectorLookup& vectors = {}, const FormulaRandom* random = nullptr);

}  // namespace tessera::md
