#include "tessera/md/compute.hpp"

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

std::size_t Compute::modify(const std::vector<std::string>& words, std::size_t at) {
  throw ConfigError("compute_modify " + id() + ": compute " + style() + " has no keyword '" +
                    words[at] + "' (or it lacks its value)");
}

std::optional<ComputeReference> parse_compute_reference(const std::string& word) {
  if (word.size() < 3 || word.rfind("c_", 0) != 0) return std::nullopt;
  ComputeReference ref;
  const auto open = word.find('[');
  ref.id = word.substr(2, open == std::string::npos ? std::string::npos : open - 2);
  if (ref.id.empty()) throw ConfigError("'" + word + "' names no compute");
  if (open == std::string::npos) return ref;
  if (word.back() != ']' || open + 2 >= word.size())
    throw ConfigError("'" + word + "': write an element as c_ID[N]");
  const std::string index = word.substr(open + 1, word.size() - open - 2);
  if (index == "*")
    ref.every = true;
  else
    ref.index = static_cast<std::size_t>(arguments::integer(word, index, 1, arguments::int_max));
  return ref;
}

double compute_value(Simulation& sim, const ComputeReference& ref, bool normalize,
                     const std::string& where) {
  Compute* c = sim.find_compute(ref.id);
  if (!c) throw ConfigError(where + ": there is no compute " + ref.id + "; define it with compute");
  const std::string name = "compute " + ref.id + " (" + c->style() + ")";
  double value = 0;
  bool extensive = false;
  if (ref.index == 0) {
    if (!c->has_scalar())
      throw ConfigError(where + ": " + name + " has no global scalar" +
                        (c->vector_size() > 0 ? "; name an element, c_" + ref.id + "[N]" : ""));
    value = c->scalar(sim);
    extensive = c->extensive_scalar();
  } else {
    if (ref.index > c->vector_size())
      throw ConfigError(where + ": " + name + " has " +
                        (c->vector_size() == 0
                             ? std::string("no global vector")
                             : "a global vector of " + std::to_string(c->vector_size())) +
                        ", no element " + std::to_string(ref.index));
    value = c->vector(sim)[ref.index - 1];
    extensive = c->extensive_vector(ref.index - 1);
  }
  if (normalize && extensive && sim.natoms() > 0) value /= static_cast<double>(sim.natoms());
  return value;
}

}  // namespace tessera::md
