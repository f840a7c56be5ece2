// References to computes' and fixes' global outputs as thermo_style custom, equal-style
// variables and fix ave/time write them, LAMMPS's syntax: c_ID or f_ID (the scalar), c_ID[N] or
// f_ID[N] (element N of the vector, from 1), c_ID[*] or f_ID[*] (every element, where a list of
// values is read), c_ID[I][J] or f_ID[I][J] (row I, column J of a global array, such as compute
// rdf's or fix ave/chunk's; intensive; a fix's is 0 beyond its rows, as LAMMPS's). Where whole
// vectors are read (fix ave/time mode vector), c_ID[J] of a compute with an array is its column J.
// Evaluating one is collective.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tessera/md/simulation.hpp"

namespace tessera::md {

struct OutputReference {
  char kind = 'c';  // 'c' a compute, 'f' a fix
  std::string id;
  std::size_t index = 0;     // 0: the scalar; the row of an array element
  std::size_t column = 0;    // an array element's column (from 1), 0 for the others
  bool every = false;        // [*]
  std::string text() const;  // as written: "c_ID[2]"
};

// Nothing when `word` starts with neither c_ nor f_; throws ConfigError for a malformed index.
std::optional<OutputReference> parse_output_reference(const std::string& word);
// `ref` with [*] expanded into each element, as LAMMPS's expand_args does for the averaging
// fixes: c_ID[1] .. c_ID[N] over the global vector, or with `array_columns` over the columns of a
// global array where there is one (fix ave/time mode vector); `ref` itself without [*]. Throws
// ConfigError, `where` first, when there is nothing to expand.
std::vector<OutputReference> expand_output_reference(Simulation& sim, const OutputReference& ref,
                                                     const std::string& where, bool array_columns);
// The size of the referenced compute's or fix's global vector; throws ConfigError, `where`
// first, when there is no such compute or fix.
std::size_t output_vector_size(Simulation& sim, const OutputReference& ref,
                               const std::string& where);
// Whether the value grows with the system (divided by the atom count under thermo norm yes).
bool output_extensive(Simulation& sim, const OutputReference& ref, const std::string& where);
// The value now: throws ConfigError, `where` first, when there is no such compute or fix or it
// has no such output. `normalize`: an extensive value divided by the atom count. `vectors`:
// the global vectors already computed for one output line, by compute or fix (LAMMPS's
// invoked_vector: a vector is computed once for all of its elements a line prints); filled.
double output_value(Simulation& sim, const OutputReference& ref, bool normalize,
                    const std::string& where,
                    std::map<std::string, std::vector<double>>* vectors = nullptr);
// A whole vector, as fix ave/time mode vector reads it: c_ID or f_ID (the global vector), or
// c_ID[J] of a compute with a global array (its column J). Throws ConfigError, `where` first.
std::vector<double> output_column(Simulation& sim, const OutputReference& ref,
                                  const std::string& where);
// Its length (the vector's size, or the array's rows), 0 when `ref` names no such vector.
std::size_t output_column_size(Simulation& sim, const OutputReference& ref,
                               const std::string& where);
// The fix `ref` names when its global outputs are not current at the multiples of `every` (LAMMPS's
// global_freq test), for the caller to name in its message; nullptr for a compute, a fix not
// defined, or one that is current.
const Fix* fix_not_current(const Simulation& sim, const OutputReference& ref, std::int64_t every);
// The columns of the referenced compute's or fix's global array (0 without one).
std::size_t output_array_columns(Simulation& sim, const OutputReference& ref,
                                 const std::string& where);

}  // namespace tessera::md
