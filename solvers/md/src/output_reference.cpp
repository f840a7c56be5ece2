#include "tessera/md/output_reference.hpp"

#include "arguments.hpp"

namespace tessera::md {
namespace {

// What both computes and fixes answer.
struct Source {
  std::string name;  // "compute ID (style)"
  bool has_scalar;
  std::size_t vector_size;
  Compute* compute;
  Fix* fix;
  std::size_t array_columns = 0;
};

Source find(Simulation& sim, const OutputReference& ref, const std::string& where) {
  if (ref.kind == 'c') {
    Compute* c = sim.find_compute(ref.id);
    if (!c)
      throw ConfigError(where + ": there is no compute " + ref.id + "; define it with compute");
    return {"compute " + ref.id + " (" + c->style() + ")",
            c->has_scalar(),
            c->vector_size(),
            c,
            nullptr,
            c->array_columns()};
  }
  for (const auto& f : sim.fixes())
    if (f->id() == ref.id)
      return {"fix " + ref.id + " (" + f->style() + ")",
              f->has_scalar(),
              f->vector_size(),
              nullptr,
              f.get(),
              f->array_columns()};
  throw ConfigError(where + ": there is no fix " + ref.id + "; define it with fix");
}

void check(const Source& s, const OutputReference& ref, const std::string& where) {
  if (ref.column > 0) {
    if (s.array_columns == 0) throw ConfigError(where + ": " + s.name + " has no global array");
    if (ref.column > s.array_columns)
      throw ConfigError(where + ": " + s.name + " has a global array of " +
                        std::to_string(s.array_columns) + " columns, no column " +
                        std::to_string(ref.column));
    return;
  }
  if (ref.index == 0 && !s.has_scalar)
    throw ConfigError(where + ": " + s.name + " has no global scalar" +
                      (s.vector_size > 0
                           ? std::string("; name an element, ") + ref.kind + "_" + ref.id + "[N]"
                           : ""));
  if (s.fix && s.fix->vector_grows() && ref.index > s.vector_size)
    throw ConfigError(where + ": " + s.name + " has " + std::to_string(s.vector_size) +
                      " elements so far, no element " + std::to_string(ref.index));
  if (ref.index > s.vector_size)
    throw ConfigError(where + ": " + s.name + " has " +
                      (s.vector_size == 0 ? std::string("no global vector")
                                          : "a global vector of " + std::to_string(s.vector_size)) +
                      ", no element " + std::to_string(ref.index));
}

}  // namespace

std::string OutputReference::text() const {
  std::string t;
  t += kind;
  t += '_';
  t += id;
  if (every)
    t += "[*]";
  else if (index > 0)
    t += '[' + std::to_string(index) + ']';
  if (column > 0) t += '[' + std::to_string(column) + ']';
  return t;
}

std::optional<OutputReference> parse_output_reference(const std::string& word) {
  if (word.size() < 3 || (word.rfind("c_", 0) != 0 && word.rfind("f_", 0) != 0))
    return std::nullopt;
  OutputReference ref;
  ref.kind = word[0];
  const auto open = word.find('[');
  ref.id = word.substr(2, open == std::string::npos ? std::string::npos : open - 2);
  if (ref.id.empty())
    throw ConfigError("'" + word + "' names no " + (ref.kind == 'c' ? "compute" : "fix"));
  if (open == std::string::npos) return ref;
  if (word.back() != ']' || open + 2 >= word.size())
    throw ConfigError("'" + word + "': write an element as " + ref.kind + "_ID[N]");
  std::string index = word.substr(open + 1, word.size() - open - 2);
  // f_ID[I][J]: an array element.
  if (const auto split = index.find("]["); split != std::string::npos) {
    ref.column = static_cast<std::size_t>(
        arguments::integer(word, index.substr(split + 2), 1, arguments::int_max));
    index = index.substr(0, split);
  }
  if (index == "*")
    ref.every = true;
  else
    ref.index = static_cast<std::size_t>(arguments::integer(word, index, 1, arguments::int_max));
  return ref;
}

std::size_t output_vector_size(Simulation& sim, const OutputReference& ref,
                               const std::string& where) {
  return find(sim, ref, where).vector_size;
}

bool output_extensive(Simulation& sim, const OutputReference& ref, const std::string& where) {
  const Source s = find(sim, ref, where);
  check(s, ref, where);
  if (ref.column > 0) return false;  // as LAMMPS's fix ave/chunk (extarray 0)
  if (s.compute)
    return ref.index == 0 ? s.compute->extensive_scalar()
                          : s.compute->extensive_vector(ref.index - 1);
  return ref.index == 0 ? s.fix->extensive_scalar() : s.fix->extensive_vector(ref.index - 1);
}

double output_value(Simulation& sim, const OutputReference& ref, bool normalize,
                    const std::string& where, std::map<std::string, std::vector<double>>* vectors) {
  const Source s = find(sim, ref, where);
  check(s, ref, where);
  if (ref.column > 0) {
    if (s.fix) return s.fix->array(sim, ref.index - 1, ref.column - 1);
    if (ref.index > s.compute->array_rows())
      throw ConfigError(where + ": " + s.name + " has a global array of " +
                        std::to_string(s.compute->array_rows()) + " rows, no row " +
                        std::to_string(ref.index));
    return s.compute->array(sim)[(ref.index - 1) * s.array_columns + ref.column - 1];
  }
  double value = 0;
  if (ref.index == 0)
    value = s.compute ? s.compute->scalar(sim) : s.fix->scalar(sim);
  else if (vectors == nullptr)
    value = (s.compute ? s.compute->vector(sim) : s.fix->vector(sim))[ref.index - 1];
  else {
    const std::string key = std::string(1, ref.kind) + "_" + ref.id;
    auto it = vectors->find(key);
    if (it == vectors->end())
      it = vectors->emplace(key, s.compute ? s.compute->vector(sim) : s.fix->vector(sim)).first;
    value = it->second[ref.index - 1];
  }
  const bool extensive = s.compute ? (ref.index == 0 ? s.compute->extensive_scalar()
                                                     : s.compute->extensive_vector(ref.index - 1))
                                   : (ref.index == 0 ? s.fix->extensive_scalar()
                                                     : s.fix->extensive_vector(ref.index - 1));
  if (normalize && extensive && sim.natoms() > 0) value /= static_cast<double>(sim.natoms());
  return value;
}

const Fix* fix_not_current(const Simulation& sim, const OutputReference& ref, std::int64_t every) {
  if (ref.kind != 'f') return nullptr;
  for (const auto& fix : sim.fixes())
    if (fix->id() == ref.id) return every % fix->global_frequency() != 0 ? fix.get() : nullptr;
  return nullptr;
}

std::size_t output_array_columns(Simulation& sim, const OutputReference& ref,
                                 const std::string& where) {
  return find(sim, ref, where).array_columns;
}

std::size_t output_column_size(Simulation& sim, const OutputReference& ref,
                               const std::string& where) {
  const Source s = find(sim, ref, where);
  if (ref.index == 0) return s.vector_size;
  if (ref.index <= s.array_columns)
    return s.compute ? s.compute->array_rows() : s.fix->array_rows();
  return 0;
}

std::vector<double> output_column(Simulation& sim, const OutputReference& ref,
                                  const std::string& where) {
  const Source s = find(sim, ref, where);
  if (ref.index == 0) {
    if (s.vector_size == 0 && !(s.fix && s.fix->vector_grows()))
      throw ConfigError(where + ": " + s.name + " has no global vector");
    return s.compute ? s.compute->vector(sim) : s.fix->vector(sim);
  }
  if (ref.index > s.array_columns)
    throw ConfigError(where + ": " + s.name + " has no global array with a column " +
                      std::to_string(ref.index));
  if (s.fix) {
    std::vector<double> column(s.fix->array_rows());
    for (std::size_t r = 0; r < column.size(); ++r) column[r] = s.fix->array(sim, r, ref.index - 1);
    return column;
  }
  const std::vector<double> all = s.compute->array(sim);
  const std::size_t rows = s.compute->array_rows();
  std::vector<double> column(rows);
  for (std::size_t r = 0; r < rows; ++r) column[r] = all[r * s.array_columns + ref.index - 1];
  return column;
}

std::vector<OutputReference> expand_output_reference(Simulation& sim, const OutputReference& ref,
                                                     const std::string& where, bool array_columns) {
  if (!ref.every) return {ref};
  const std::size_t columns = array_columns ? output_array_columns(sim, ref, where) : 0;
  const std::size_t n = columns > 0 ? columns : output_vector_size(sim, ref, where);
  if (n == 0) throw ConfigError(where + ": it has no global vector");
  std::vector<OutputReference> elements;
  for (std::size_t e = 1; e <= n; ++e) {
    OutputReference element = ref;
    element.every = false;
    element.index = e;
    elements.push_back(element);
  }
  return elements;
}

}  // namespace tessera::md
