#include "tessera/md/input.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <variant>

#include "arguments.hpp"
#include "balance_weights.hpp"
#include "change_box.hpp"
#include "checked_integer.hpp"
#include "displace_atoms.hpp"
#include "group_functions.hpp"
#include "read_dump.hpp"
#include "replicate.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/shared_input.hpp"
#include "tessera/core/stop_signal.hpp"
#include "tessera/md/data_file.hpp"
#include "tessera/md/dump.hpp"
#include "tessera/md/expression.hpp"
#include "tessera/md/fix_property_atom.hpp"
#include "tessera/md/minimize.hpp"
#include "tessera/md/output_reference.hpp"
#include "tessera/md/random_park.hpp"
#include "tessera/md/region.hpp"
#include "tessera/md/timing_breakdown.hpp"
#include "tessera/md/velocity.hpp"

namespace tessera::md {
using namespace arguments;
namespace {

// LAMMPS's "Variable uses atom property that isn't allocated": q without charges.
void require_attribute(const Simulation& sim, std::size_t k, const std::string& where) {
  if (atom_attributes[k] == "q" && !sim.charged())
    throw ConfigError(where + ": q: the atoms carry no charges; use atom_style charge");
}

// The same error type with `where` appended; collective if the original was.
template <class E>
E located_as(const E& e, const std::string& where) {
  E located(e.what() + where);
  if (e.collective()) located.set_collective();
  return located;
}

std::string trim_line(const std::string& line) {
  std::string t = line.substr(0, 200);
  const auto b = t.find_first_not_of(" \t\r"), e = t.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
}

}  // namespace

Input::Input(Runtime& runtime, Console& console) : runtime_(runtime), console_(console) {
  start_simulation();
}

void Input::start_simulation() {
  sim_ = std::make_unique<Simulation>(runtime_, Units::of("lj"));
  thermo_ = std::make_shared<ThermoOutput>(console_, *sim_);
  sim_->add_observer(thermo_);
  sim_->set_log([this](const std::string& text) { console_.print(text); });
  thermo_->set_variables([this](const std::string& name) {
    if (!variables_.count(name))
      bad("thermo_style custom v_" + name + ": there is no variable " + name +
          "; define it with variable");
    return number("variable " + name, variable_text(name));
  });
}

Input::~Input() = default;

// clear: LAMMPS's Input::clear destroys and recreates every part of the instance but the
// input's variables, so a script starts anew with its variables, log and echo kept (the
// random() and normal() streams too: they belong to the variables).
void Input::clear(const std::vector<std::string>& a) {
  if (!a.empty()) bad("clear takes no arguments");
  if (running_every_ > 0)
    bad("cannot be among run every's commands: the run would lose its system; clear "
        "after the run");
  // Between commands every dump has published its frames; dropping them closes their files.
  dumps_.clear();
  regions_.clear();
  thermo_.reset();
  sim_.reset();
  lattice_ = Lattice{};
  min_ = MinSettings{};
  warned_unintegrated_ = false;
  start_simulation();
}

std::vector<Dump*> Input::dump_list() const {
  std::vector<Dump*> list;
  for (const auto& [id, d] : dumps_) list.push_back(d.get());
  return list;
}

void Input::define_variable(const std::string& name, const std::vector<std::string>& values) {
  if (values.empty()) bad("-var " + name + ": give at least one value");
  variables_[name] = {"index", values};
}

void Input::run_file(const std::string& path) {
  // Rank 0 reads the script and sends it to every rank (as LAMMPS does), so that every rank
  // runs the same commands and meets the same errors (shared_input.hpp).
  const SharedFile script = read_on_root(sim().runtime().comm(), path);
  if (!script.ok) {
    ConfigError e("cannot open input file '" + path + "': " + script.bytes +
                  "; check the -in argument");
    e.set_collective();
    throw e;
  }
  run_script(script.bytes, path);
}

std::string Input::location() const {
  return " (" + source_ + ", line " + std::to_string(line_number_) + ": " +
         trim_line(last_command_) + ")";
}

namespace {

// LAMMPS's timing breakdown of the run or minimization that just ended, then its atom and
// neighbor statistics (collective): the wall
// seconds each superstep name took since `before` (names new since then started at zero) and the
// force supersteps' phases since `force_before`, over `seconds` of loop time.
std::string breakdown_since(const Simulation& sim, Runtime& rt,
                            const std::vector<std::pair<std::string, double>>& before,
                            const Simulation::ForcePhaseSeconds& force_before, double seconds) {
  auto by_name = rt.profile().wall_seconds_by_name();
  for (auto& [name, wall] : by_name) {
    const auto it = std::lower_bound(
        before.begin(), before.end(), name,
        [](const std::pair<std::string, double>& e, const std::string& k) { return e.first < k; });
    if (it != before.end() && it->first == name) wall -= it->second;
  }
  const NeighborSummary neighbors{.mine = sim.neighbor_counts(),
                                  .natoms = sim.natoms(),
                                  .builds = sim.neighbor_builds(),
                                  .dangerous = sim.dangerous_builds(),
                                  .molecular = sim.molecular(),
                                  .full_list = sim.pair() != nullptr && sim.pair()->full_list(),
                                  .checked = sim.neighbor().check};
  return timing_breakdown(rt.comm(),
                          section_seconds(by_name, sim.force_phase_seconds() - force_before),
                          seconds, sim.molecular(), sim.kspace() != nullptr) +
         neighbor_statistics(rt.comm(), neighbors) + "\n";
}

// An error already located in an included file, passing through the commands that included it.
struct NestedError {
  std::exception_ptr error;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) lines.push_back(raw);
  return lines;
}

}  // namespace

void Input::run_script(const std::string& text, const std::string& source) {
  const std::string outer_source = source_;
  const int outer_line = line_number_;
  source_ = source;
  ++depth_;
  try {
    run_lines(lines_of(text));
  } catch (...) {
    --depth_;
    source_ = outer_source;
    line_number_ = outer_line;
    throw;
  }
  --depth_;
  source_ = outer_source;
  line_number_ = outer_line;
}

void Input::run_lines(std::vector<std::string> lines) {
  std::string line;
  int first = 0;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::string& raw = lines[k];
    const int number = static_cast<int>(k) + 1;
    if (line.empty()) first = number;
    // A trailing '&' joins the next line.
    std::string trimmed = raw;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back())))
      trimmed.pop_back();
    if (!trimmed.empty() && trimmed.back() == '&') {
      trimmed.pop_back();
      line += trimmed + " ";
      continue;
    }
    line += raw;
    line_number_ = first;
    // A stop signal between commands ends the script here (a run polls it after each step).
    if (const int signal = stop_requested(sim().runtime().comm()))
      stopped_ = {signal, sim().step(),
                  " (" + source_ + ", before line " + std::to_string(line_number_) + ")"};
    if (stopped_.signal) return;
    // Every rank runs the same input (rank 0 read the script, data, restart and model files
    // for all: shared_input.hpp) and meets the same error: say so, so that rank 0 reports it
    // once and no rank aborts the others. Should one slip through that only some ranks meet,
    // run_main's bounded wait turns it into an abort with the message, not a hang.
    try {
      try {
        execute(line);
      } catch (const NestedError&) {
        throw;
      } catch (const ConfigError& e) {
        ConfigError located(e.what() + location());
        located.set_collective();
        throw located;
      } catch (const FormatError& e) {
        FormatError located(std::string(e.what()) + " (" + source_ + ", line " +
                            std::to_string(line_number_) + ")");
        located.set_collective();
        throw located;
      } catch (const TileOutOfMemory& e) {
        TileOutOfMemory located(e.what() + location(), e.tile(), e.budget(), e.requested());
        if (e.collective()) located.set_collective();
        throw located;
      } catch (const ExchangeError& e) {
        throw located_as(e, location());
      } catch (const CommError& e) {
        throw located_as(e, location());
      } catch (const Error& e) {
        // Errors while a command runs (a blow-up, an unwritable file) are collective only when
        // the runtime agreed on them.
        throw located_as(e, location());
      }
    } catch (const NestedError& nested) {
      if (depth_ > 1) throw;
      std::rethrow_exception(nested.error);
    } catch (const std::exception&) {
      if (depth_ > 1) throw NestedError{std::current_exception()};
      throw;
    }
    line.clear();
    if (stopped_.signal) return;
    // jump: to the label in this file (SELF) or in another, from its first line.
    if (jump_) {
      const Jump jump = *jump_;
      jump_.reset();
      if (jump.file != "SELF" && jump.file != source_) {
        const SharedFile script = read_on_root(sim().runtime().comm(), jump.file);
        if (!script.ok) {
          ConfigError e("jump: cannot open input file '" + jump.file + "': " + script.bytes +
                        location());
          e.set_collective();
          throw e;
        }
        lines = lines_of(script.bytes);
        source_ = jump.file;
      }
      k = static_cast<std::size_t>(-1);  // the loop's ++k makes it 0
      if (!jump.label.empty()) {
        std::size_t at = 0;
        for (; at < lines.size(); ++at) {
          const auto words = split(strip_comment(lines[at]));
          if (words.size() >= 2 && words[0] == "label" && words[1] == jump.label) break;
        }
        if (at == lines.size()) {
          ConfigError e("jump: label " + jump.label + " is not in " + source_ + location());
          e.set_collective();
          throw e;
        }
        k = at;  // the label line itself is skipped
      }
    }
  }
  if (!line.empty())
    bad("the input ends inside a '&' continuation (" + source_ + ", line " + std::to_string(first) +
        ")");
}

std::vector<std::string> Input::split(const std::string& line) const {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    if (line[i] == '"' || line[i] == '\'') {
      const char quote = line[i];
      const std::size_t end = line.find(quote, i + 1);
      if (end == std::string::npos) bad("unbalanced quote");
      words.push_back(line.substr(i + 1, end - i - 1));
      i = end + 1;
    } else {
      const std::size_t start = i;
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      words.push_back(line.substr(start, i - start));
    }
  }
  return words;
}

std::string Input::variable_text(const std::string& name) {
  auto it = variables_.find(name);
  if (it == variables_.end())
    bad("substitution for undefined variable '" + name + "'; define it with variable or -var");
  const auto& v = it->second;
  if (v.per_atom())
    bad("variable " + name + " is " + v.style +
        "-style: it has a value per atom, not one value; reduce it "
        "with compute reduce (v_" +
        name + ")");
  char buf[128];
  if (v.style == "equal") {
    std::snprintf(buf, sizeof buf, "%.15g", evaluate_formula(v.values[0]));
    return buf;
  }
  if (v.style == "format") {
    const std::string value = variable_text(v.values[0]);
    std::snprintf(buf, sizeof buf, v.values[1].c_str(), number("variable " + name, value));
    return buf;
  }
  if (v.style == "getenv") {
    const char* value = std::getenv(v.values[0].c_str());
    return value ? value : "";
  }
  return v.values.front();
}

// The special functions' vectors: a compute's or fix's global vector, or a column of its array.
Formula::VectorLookup Input::global_vectors(const std::string& where) {
  return [this, where](const std::string& name) -> std::optional<std::vector<double>> {
    const auto ref = parse_output_reference(name);
    if (!ref) return std::nullopt;
    check_current(*ref, where);
    return output_column(sim(), *ref, where);
  };
}

// LAMMPS's Variable check: during a run a formula reads a fix only at steps where its outputs
// are current.
void Input::check_current(const OutputReference& ref, const std::string& where) const {
  if (!sim().in_run()) return;
  if (const Fix* fix = fix_not_current(sim(), ref, sim().step()))
    bad(where + ": fix " + ref.id + " (" + fix->style() + ") is current every " +
        std::to_string(fix->global_frequency()) + " steps, not at step " +
        std::to_string(sim().step()) + " (LAMMPS refuses this too: not computed at compatible " +
        "time)");
}

AtomVariables Input::atom_variables() {
  return {[this](const std::string& name, const std::string& where) {
            const auto it = variables_.find(name);
            if (it == variables_.end())
              bad(where + ": there is no variable " + name + "; define it with variable");
            if (!it->second.per_atom())
              bad(where + ": variable " + name + " is " + it->second.style +
                  "-style; per-atom values need an atom-style or atomfile-style variable");
          },
          [this](const std::string& name) { return bind_atom_variable(name, 0); }};
}

// LAMMPS's Variable::compute_atom: the formula's names bound, atom values per atom and
// everything else (equal-style variables, global compute and fix values, thermo keywords)
// evaluated once for all atoms.
AtomValues Input::bind_atom_variable(const std::string& name, int depth) {
  const std::string where = "variable " + name;
  if (depth > 32) bad(where + ": atom-style variables refer to each other in a loop");
  atom_variables().check(name, "v_" + name);
  if (const Variable& v = variables_.at(name); v.style == "atomfile") {
    return [values = v.by_id](const AtomsView& a, std::span<double> out) {
      for (std::size_t i = 0; i < out.size(); ++i) {
        const auto it = values->find(a.id[i]);
        out[i] = it == values->end() ? 0.0 : it->second;
      }
    };
  }
  const Formula formula(variables_.at(name).values[0]);
  const auto vectors = global_vectors(where);
  const FormulaRandom random = formula_random();
  return formula.bind(
      [&](const std::string& leaf) -> Formula::Leaf {
        if (const auto k = atom_attribute_index(leaf)) {
          require_attribute(sim(), *k, where);
          return {std::nullopt, [k = *k](const AtomsView& a, std::span<double> out) {
                    for (std::size_t i = 0; i < out.size(); ++i) out[i] = atom_attribute(a, k, i);
                  }};
        }
        const auto region = [&](const std::string& id) -> const Region& {
          return find_region(id, where);
        };
        if (auto v = group_function(sim(), leaf, where, region)) return {v, {}};
        if (auto values = mask_function(sim(), leaf, where, region)) return {std::nullopt, *values};
        if (leaf.rfind("v_", 0) == 0) {
          const std::string v = leaf.substr(2);
          const auto it = variables_.find(v);
          if (it == variables_.end()) bad(where + ": there is no variable " + v);
          if (it->second.per_atom()) return {std::nullopt, bind_atom_variable(v, depth + 1)};
          return {number("variable " + v, variable_text(v)), {}};
        }
        if (const auto ref = parse_output_reference(leaf)) {
          Compute* c = ref->kind == 'c' ? sim().find_compute(ref->id) : nullptr;
          const std::size_t columns = c ? c->peratom_columns() : 0;
          if (columns == 0) return {output_value(sim(), *ref, false, where + " " + leaf), {}};
          if (ref->every || (ref->index == 0) != (columns == 1) || ref->index > columns)
            bad(where + ": " + leaf + ": compute " + ref->id + " has " + std::to_string(columns) +
                " per-atom column(s); use c_" + ref->id +
                (columns == 1 ? "" : "[1.." + std::to_string(columns) + "]"));
          c->prepare_peratom(sim());
          const std::size_t column = ref->index == 0 ? 0 : ref->index - 1;
          return {std::nullopt, [c, columns, column](const AtomsView& a, std::span<double> out) {
                    std::vector<double> all(out.size() * columns, 0.0);
                    c->peratom(a, all);
                    for (std::size_t i = 0; i < out.size(); ++i) out[i] = all[i * columns + column];
                  }};
        }
        if (auto v = atom_value(leaf, where)) return {v, {}};
        return {thermo_->value(sim(), leaf), {}};
      },
      vectors, &random);
}

FormulaRandom Input::formula_random() {
  FormulaRandom r;
  r.equal = [this](bool gaussian, int seed) {
    if (!random_equal_) random_equal_.emplace(seed);
    return gaussian ? random_equal_->gaussian() : random_equal_->uniform();
  };
  r.atom = [this](const std::vector<bool>& gaussian, int seed) -> AtomValues {
    if (!random_atom_) random_atom_.emplace(seed);  // LAMMPS's seed + processor, on processor 0
    const std::int64_t ids = sim().max_id();
    if (ids > 4 * sim().natoms() + 1000000)
      bad("random() and normal() in atom-style variables draw for every atom id up to the "
          "largest, " +
          std::to_string(ids) + ", too many for " + std::to_string(sim().natoms()) +
          " atoms; renumber the atoms (delete_atoms ... compress yes)");
    const std::size_t calls = gaussian.size();
    auto table = std::make_shared<std::vector<double>>(static_cast<std::size_t>(ids) * calls);
    for (std::size_t i = 0; i < table->size(); ++i)
      (*table)[i] = gaussian[i % calls] ? random_atom_->gaussian() : random_atom_->uniform();
    return [table, calls](const AtomsView& a, std::span<double> out) {
      for (std::size_t i = 0; i < a.id.size(); ++i)
        for (std::size_t j = 0; j < calls; ++j)
          out[i * calls + j] = (*table)[static_cast<std::size_t>(a.id[i] - 1) * calls + j];
    };
  };
  return r;
}

std::optional<double> Input::atom_value(const std::string& name, const std::string& where) {
  const auto open = name.find('[');
  if (open == std::string::npos || name.back() != ']') return std::nullopt;
  const std::string attribute = name.substr(0, open),
                    index = name.substr(open + 1, name.size() - open - 2);
  const auto attribute_index = atom_attribute_index(attribute);
  if (!attribute_index) return std::nullopt;
  const std::size_t k = *attribute_index;
  require_attribute(sim(), k, where + ": " + name);
  double wanted = 0;
  if (index.rfind("v_", 0) == 0) {
    const std::string v = index.substr(2);
    if (!variables_.count(v)) bad(where + ": " + name + ": there is no variable " + v);
    wanted = number("variable " + v, variable_text(v));
  } else {
    wanted = number(where + " " + name, index);
  }
  const auto id = static_cast<std::int64_t>(wanted);
  if (static_cast<double>(id) != wanted || id < 1)
    bad(where + ": " + name + ": the atom id must be a positive whole number, not " + index);
  const auto found = sim().reduce_atoms(
      "md.atom_value", ReduceOp::sum, 2, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if (a.id[i] != id) continue;
          out[0] += atom_attribute(a, k, i);
          out[1] += 1;
        }
      });
  if (found[1] != 1) bad(where + ": " + name + ": there is no atom " + std::to_string(id));
  return found[0];
}

double Input::evaluate_formula(const std::string& formula) {
  const FormulaRandom random = formula_random();
  return evaluate(
      formula,
      [&](const std::string& name) -> std::optional<double> {
        if (auto v = atom_value(name, "variable formula " + formula)) return v;
        const std::string where = "variable formula " + formula;
        if (auto v = group_function(
                sim(), name, where,
                [&](const std::string& id) -> const Region& { return find_region(id, where); }))
          return v;
        if (name.rfind("v_", 0) == 0) {
          const std::string v = name.substr(2);
          if (!variables_.count(v)) return std::nullopt;
          return number("variable " + v, variable_text(v));
        }
        if (const auto ref = parse_output_reference(name)) {
          check_current(*ref, "variable formula " + formula);
          return output_value(sim(), *ref, false, "variable formula " + formula);
        }
        return thermo_->value(sim(), name);
      },
      global_vectors("variable formula " + formula), &random);
}

std::string Input::strip_comment(const std::string& line) {
  // '#' outside quotes.
  std::string text;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      break;
    }
    text += c;
  }
  return text;
}

std::string Input::expand(const std::string& text) {
  // LAMMPS does not substitute between quotes: a command that takes quoted text (print, the
  // commands of run every) substitutes it when it runs.
  std::string out;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (quote) {
      if (text[i] == quote) quote = 0;
    } else if (text[i] == '"' || text[i] == '\'') {
      quote = text[i];
    }
    if (quote || text[i] != '$' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    const char next = text[i + 1];
    if (next == '{') {
      const std::size_t end = text.find('}', i + 2);
      if (end == std::string::npos) bad("missing '}' after '${'");
      out += variable_text(text.substr(i + 2, end - i - 2));
      i = end;
    } else if (next == '(') {
      int depth = 0;
      std::size_t end = i + 1;
      for (; end < text.size(); ++end) {
        if (text[end] == '(') ++depth;
        if (text[end] == ')' && --depth == 0) break;
      }
      if (end >= text.size()) bad("missing ')' after '$('");
      // $(formula:format), as LAMMPS's: a format after the last colon when it starts with %.
      std::string formula = text.substr(i + 2, end - i - 2), format = "%.20g";
      if (const std::size_t colon = formula.rfind(':');
          colon != std::string::npos && colon + 1 < formula.size() && formula[colon + 1] == '%') {
        format = formula.substr(colon + 1);
        formula.resize(colon);
        if (arguments::float_conversions(format) != 1)
          bad("$(" + formula + ":" + format + "): the format needs one %f, %e or %g conversion");
      }
      char buf[256];
      std::snprintf(buf, sizeof buf, format.c_str(), evaluate_formula(formula));
      out += buf;
      i = end;
    } else {
      out += variable_text(std::string(1, next));
      ++i;
    }
  }
  return out;
}

void Input::set_echo(const std::string& style) {
  if (style != "none" && style != "screen" && style != "log" && style != "both")
    bad("echo " + style + ": use none, screen, log or both");
  echo_screen_ = style == "screen" || style == "both";
  echo_log_ = style == "log" || style == "both";
}

void Input::execute(const std::string& raw) {
  // As LAMMPS: each line as read, and again as substituted when a substitution changed it.
  console_.echo(raw + "\n", echo_screen_, echo_log_);
  last_command_ = raw;  // what a substitution error shows
  const std::string text = strip_comment(raw);
  last_command_ = expand(text);
  if (last_command_ != text) console_.echo(last_command_ + "\n", echo_screen_, echo_log_);
  const std::vector<std::string> words = split(last_command_);
  if (words.empty()) return;
  const std::string& c = words[0];
  const std::vector<std::string> a(words.begin() + 1, words.end());
  try {
    const auto& table = commands();
    const auto it = table.find(c);
    if (it == table.end()) {
      std::string names;
      for (const auto& [name, command] : table) names += (names.empty() ? "" : ", ") + name;
      bad("unknown or unsupported command; md_ipu speaks " + names);
    }
    (this->*(it->second))(a);
  } catch (const ConfigError& e) {
    throw ConfigError(c + ": " + e.what());
  }
}

// Every command md_ipu speaks, by its LAMMPS name.
const std::map<std::string, Input::Command>& Input::commands() {
  static const std::map<std::string, Command> table = {
      {"angle_coeff", &Input::angle_coeff},
      {"angle_style", &Input::angle_style},
      {"atom_modify", &Input::atom_modify},
      {"bond_coeff", &Input::bond_coeff},
      {"bond_style", &Input::bond_style},
      {"dihedral_coeff", &Input::dihedral_coeff},
      {"dihedral_style", &Input::dihedral_style},
      {"improper_coeff", &Input::improper_coeff},
      {"improper_style", &Input::improper_style},
      {"special_bonds", &Input::special_bonds},
      {"atom_style", &Input::atom_style},
      {"boundary", &Input::boundary},
      {"box", &Input::box},
      {"comm_modify", &Input::decomposition_command},
      {"create_atoms", &Input::create_atoms},
      {"create_box", &Input::create_box},
      {"dielectric", &Input::dielectric},
      {"dimension", &Input::dimension},
      {"dump", &Input::dump},
      {"dump_modify", &Input::dump_modify},
      {"echo", &Input::echo},
      {"fix", &Input::fix},
      {"group", &Input::group},
      {"if", &Input::if_command},
      {"include", &Input::include},
      {"jump", &Input::jump},
      {"label", &Input::label},
      {"lattice", &Input::lattice},
      {"mass", &Input::mass},
      {"neigh_modify", &Input::neigh_modify},
      {"neighbor", &Input::neighbor},
      {"next", &Input::next},
      {"newton", &Input::newton},
      {"shell", &Input::shell},
      {"pair_coeff", &Input::pair_coeff},
      {"kspace_modify", &Input::kspace_modify},
      {"kspace_style", &Input::kspace_style},
      {"pair_modify", &Input::pair_modify},
      {"pair_style", &Input::pair_style},
      {"print", &Input::print},
      {"log", &Input::log},
      {"processors", &Input::processors},
      {"read_data", &Input::read_data_command},
      {"read_dump", &Input::read_dump},
      {"read_restart", &Input::read_restart_command},
      {"region", &Input::region},
      {"replicate", &Input::replicate},
      {"rerun", &Input::rerun},
      {"reset_timestep", &Input::reset_timestep},
      {"run", &Input::run},
      {"set", &Input::set},
      {"displace_atoms", &Input::displace_atoms},
      {"change_box", &Input::change_box},
      {"balance", &Input::balance},
      {"clear", &Input::clear},
      {"comm_style", &Input::comm_style},
      {"compute", &Input::compute},
      {"compute_modify", &Input::compute_modify},
      {"delete_atoms", &Input::delete_atoms},
      {"min_modify", &Input::min_modify},
      {"min_style", &Input::min_style},
      {"minimize", &Input::minimize},
      {"fix_modify", &Input::fix_modify},
      {"uncompute", &Input::uncompute},
      {"thermo", &Input::thermo},
      {"thermo_modify", &Input::thermo_modify},
      {"thermo_style", &Input::thermo_style},
      {"timestep", &Input::timestep},
      {"undump", &Input::undump},
      {"unfix", &Input::unfix},
      {"units", &Input::units},
      {"variable", &Input::variable},
      {"velocity", &Input::velocity},
      {"write_data", &Input::write_data_command},
      {"write_restart", &Input::write_restart_command},
  };
  return table;
}

void Input::dimension(const std::vector<std::string>& a) {
  need(a, 1, "dimension 2|3");
  if (a[0] != "2" && a[0] != "3") bad("dimension " + a[0] + ": use 2 or 3");
  sim().set_dimension(a[0] == "2" ? 2 : 3);
}

// boundary X Y Z, each p, f, s or m, or two of f s m for the lower and upper faces (LAMMPS's
// Domain::set_boundary).
void Input::boundary(const std::vector<std::string>& a) {
  need(a, 3, "boundary X Y Z (each p, f, s, m, or two of f s m: lower and upper face)");
  if (a.size() != 3) bad("boundary takes three words, one per dimension");
  sim().set_boundary(Boundary::from_words(a.data(), "boundary"));
}

void Input::atom_style(const std::vector<std::string>& a) {
  need(a, 1, "atom_style atomic|charge|bond|angle|molecular|full");
  if (a.size() != 1) bad("atom_style " + a[0] + " takes no further arguments");
  for (const AtomStyle style : {AtomStyle::atomic, AtomStyle::charge, AtomStyle::bond,
                                AtomStyle::angle, AtomStyle::molecular, AtomStyle::full})
    if (a[0] == atom_style_name(style)) return sim().set_atom_style(style);
  bad("atom_style " + a[0] + ": md_ipu has atom_style atomic, charge, bond, angle, molecular and " +
      "full");
}

void Input::box(const std::vector<std::string>& a) {
  need(a, 2, "box tilt small|large");
  if (a.size() != 2 || a[0] != "tilt" || (a[1] != "small" && a[1] != "large"))
    bad("box takes tilt small or tilt large");
  sim().set_tilt_large(a[1] == "large");
}

// LAMMPS's warning for a box whose skew 'box tilt large' allowed.
void Input::warn_large_skew() {
  const Simulation& s = sim();
  if (s.has_box() && skew_too_large(s.box(), s.boundary().periodicity()))
    console_.print("WARNING: Triclinic box skew is large\n");
}

void Input::read_data_command(const std::vector<std::string>& a) {
  const char* usage = "read_data FILE [nocoeff] [fix ID NULL SECTION ...]";
  need(a, 1, usage);
  std::vector<DataFixSection> sections;
  bool coefficients = true;
  for (std::size_t k = 1; k < a.size();) {
    if (a[k] == "nocoeff") {
      coefficients = false, ++k;
      continue;
    }
    if (a[k] != "fix")
      bad("read_data: keyword '" + a[k] +
          "' is not supported (md_ipu reads one file into an empty box); usage: " + usage);
    if (k + 3 >= a.size()) bad("read_data fix needs: fix ID NULL SECTION");
    const std::string& id = a[k + 1];
    const auto& fixes = sim().fixes();
    const auto it =
        std::find_if(fixes.begin(), fixes.end(), [&](const auto& f) { return f->id() == id; });
    if (it == fixes.end()) bad("read_data fix: there is no fix " + id);
    const auto* property = dynamic_cast<const FixPropertyAtom*>(it->get());
    if (!property)
      bad("read_data fix: fix " + id + " is a " + (*it)->style() +
          " fix; md_ipu reads data file sections into fix property/atom only");
    if (a[k + 2] != "NULL")
      bad("read_data fix " + id + ": fix property/atom reads no header line; give NULL, not '" +
          a[k + 2] + "'");
    sections.push_back({id, a[k + 3], property->names()});
    k += 4;
  }
  read_data(sim(), a[0], sections, coefficients);
  warn_large_skew();
}

void Input::write_data_command(const std::vector<std::string>& a) {
  need(a, 1, "write_data FILE [nocoeff]");
  bool coefficients = true;
  for (std::size_t k = 1; k < a.size(); ++k) {
    if (a[k] != "nocoeff")
      bad("write_data: keyword " + a[k] + " is not supported; md_ipu's write_data takes nocoeff");
    coefficients = false;
  }
  write_data(sim(), a[0], coefficients);
}

void Input::write_restart_command(const std::vector<std::string>& a) {
  need(a, 1, "write_restart FILE");
  write_restart(sim(), a[0]);
}

void Input::read_restart_command(const std::vector<std::string>& a) {
  need(a, 1, "read_restart FILE");
  read_restart(sim(), a[0]);
  warn_large_skew();
}

// dielectric VALUE: LAMMPS's, Coulomb's constant divided by VALUE from the next run on.
void Input::dielectric(const std::vector<std::string>& a) {
  need(a, 1, "dielectric VALUE");
  if (a.size() != 1) bad("one value is needed; usage: dielectric VALUE");
  const double value = number("dielectric", a[0]);
  if (!(value > 0)) bad(a[0] + ": the dielectric constant must be positive");
  sim().set_dielectric(value);
}

void Input::timestep(const std::vector<std::string>& a) {
  need(a, 1, "timestep DT");
  const double dt = number("timestep", a[0]);
  if (!(dt > 0)) bad("the timestep must be positive");
  sim().set_timestep(dt);
}

void Input::unfix(const std::vector<std::string>& a) {
  need(a, 1, "unfix ID");
  sim().unfix(a[0]);
}

void Input::thermo(const std::vector<std::string>& a) {
  need(a, 1, "thermo N");
  thermo_->set_every(static_cast<int>(integer("thermo", a[0], 0, int_max)));
}

void Input::thermo_style(const std::vector<std::string>& a) { thermo_->set_style(sim(), a); }

void Input::undump(const std::vector<std::string>& a) {
  need(a, 1, "undump ID");
  auto it = dumps_.find(a[0]);
  if (it == dumps_.end()) bad("no dump with ID " + a[0]);
  // Between runs every dump is published: nothing is pending.
  sim().clear_observers();
  dumps_.erase(it);
  sim().add_observer(thermo_);
  for (auto& [id, d] : dumps_) sim().add_observer(d);
}

void Input::echo(const std::vector<std::string>& a) {
  need(a, 1, "echo none|screen|log|both");
  set_echo(a[0]);
}

void Input::reset_timestep(const std::vector<std::string>& a) {
  need(a, 1, "reset_timestep N");
  sim().set_step(integer("reset_timestep", a[0], 0, bigint_max));
}

// processors Px Py Pz [keyword ...]: LAMMPS's layout of ranks over the box. md_ipu's layout is
// the target's tiles (Domain), the same whatever the rank count, so the hint is checked and
// said to be unused.
void Input::processors(const std::vector<std::string>& a) {
  need(a, 3, "processors Px Py Pz [keyword value ...]");
  for (std::size_t d = 0; d < 3; ++d)
    if (a[d] != "*") integer("processors", a[d], 1, int_max);
  console_.print("processors " + a[0] + " " + a[1] + " " + a[2] +
                 ": not used; md_ipu lays the box out over the target's tiles itself, the same "
                 "for any number of ranks\n");
}

// atom_modify map array|hash|yes, sort N BINSIZE, id yes: how LAMMPS stores its atoms; md_ipu
// finds atoms by id and orders them on each tile itself, so these are accepted and unused.
void Input::atom_modify(const std::vector<std::string>& a) {
  need(a, 2, "atom_modify map array|hash|yes | sort N BINSIZE | id yes");
  for (std::size_t k = 0; k < a.size();) {
    if (a[k] == "map" && k + 1 < a.size()) {
      if (a[k + 1] != "array" && a[k + 1] != "hash" && a[k + 1] != "yes")
        bad("atom_modify map: use array, hash or yes");
      k += 2;
    } else if (a[k] == "sort" && k + 2 < a.size()) {
      integer("atom_modify sort", a[k + 1], 0, int_max);
      number("atom_modify sort", a[k + 2]);
      k += 3;
    } else if (a[k] == "id" && k + 1 < a.size()) {
      if (a[k + 1] != "yes") bad("atom_modify id no: md_ipu's atoms always have ids");
      k += 2;
    } else {
      bad("atom_modify " + a[k] +
          ": md_ipu accepts map, sort and id yes (it stores and orders "
          "atoms itself)");
    }
  }
  console_.print("atom_modify: not used; md_ipu finds and orders its atoms itself\n");
}

// newton on|off [on|off]: whether LAMMPS computes a pair with a ghost on one processor and
// returns the ghost's force (on, its default) or on both. md_ipu always works as with on (each
// pair once, forces on ghosts returned to their owners); off would change only the rounding.
void Input::newton(const std::vector<std::string>& a) {
  need(a, 1, "newton on|off [on|off]");
  if (a.size() > 2) bad("newton takes at most two settings (pair, bond): newton on|off [on|off]");
  for (const auto& w : a)
    if (w != "on" && w != "off") bad("newton " + w + ": use on or off");
  console_.print(
      "newton: not used; md_ipu computes each pair once and returns the forces on "
      "ghosts to their owners (LAMMPS's newton on) whatever the setting\n");
}

// shell cd DIR | mkdir D... | mv OLD NEW | rm F... | rmdir D... | putenv NAME=VALUE... | any
// other command line, as LAMMPS's Input::shell: cd and putenv on every rank, the others on rank
// 0 (another command through the system shell); a failure is a warning, as in LAMMPS.
void Input::shell(const std::vector<std::string>& a) {
  need(a, 1, "shell cd|mkdir|mv|rm|rmdir|putenv ARGS... or shell COMMAND...");
  const std::string& what = a[0];
  const auto failed = [&](const std::string& detail) {
    console_.print("WARNING: Shell command '" + what + "' failed: " + detail + "\n");
  };
  // The built-ins' argument counts, checked on every rank before any acts.
  static const std::map<std::string, std::pair<std::size_t, std::size_t>> counts = {
      {"cd", {1, 1}},
      {"mv", {2, 2}},
      {"mkdir", {1, std::numeric_limits<std::size_t>::max()}},
      {"rm", {1, std::numeric_limits<std::size_t>::max()}},
      {"rmdir", {1, std::numeric_limits<std::size_t>::max()}},
      {"putenv", {1, std::numeric_limits<std::size_t>::max()}}};
  if (const auto it = counts.find(what); it != counts.end()) {
    const auto [lo, hi] = it->second;
    if (a.size() - 1 < lo || a.size() - 1 > hi)
      bad("shell " + what + ": wrong number of arguments");
  }
  std::error_code error;
  if (what == "cd") {
    std::filesystem::current_path(a[1], error);
    if (error) failed(a[1] + ": " + error.message());
  } else if (what == "putenv") {
    for (std::size_t k = 1; k < a.size(); ++k) {
      const auto equals = a[k].find('=');
      const std::string name = a[k].substr(0, equals);
      const std::string value = equals == std::string::npos ? "" : a[k].substr(equals + 1);
      if (::setenv(name.c_str(), value.c_str(), 1) != 0) failed(a[k]);
    }
  } else if (!console_.is_root()) {
    return;
  } else if (what == "mkdir") {
    for (std::size_t k = 1; k < a.size(); ++k)
      if (!std::filesystem::create_directory(a[k], error) || error)
        failed(a[k] + ": " + (error ? error.message() : "it exists"));
  } else if (what == "rm" || what == "rmdir") {
    for (std::size_t k = 1; k < a.size(); ++k) {
      const bool directory = std::filesystem::is_directory(a[k], error);
      if (directory != (what == "rmdir"))
        failed(a[k] + (directory ? ": is a directory" : ": not a directory"));
      else if (!std::filesystem::remove(a[k], error) || error)
        failed(a[k] + ": " + (error ? error.message() : "no such file"));
    }
  } else if (what == "mv") {
    std::filesystem::rename(a[1], a[2], error);
    if (error) failed(a[1] + " -> " + a[2] + ": " + error.message());
  } else {
    std::string line;
    for (const auto& w : a) line += (line.empty() ? "" : " ") + w;
    if (std::system(line.c_str()) != 0)
      console_.print("WARNING: Shell command returned with non-zero status\n");
  }
}

void Input::decomposition_command(const std::vector<std::string>&) {
  bad("this LAMMPS command is not supported by md_ipu; the runtime chooses communication and "
      "decomposition itself, so remove the line");
}

// print TEXT [file F] [append F] [screen yes|no] [universe yes|no], as LAMMPS's Print: TEXT,
// substituted now, goes to the screen and the log unless screen is no, and to F (file replaces
// it, append adds to it).
void Input::print(const std::vector<std::string>& a) {
  const char* usage = "print TEXT [file F] [append F] [screen yes|no] [universe yes|no]";
  need(a, 1, usage);
  std::string file;
  bool append = false, screen = true;
  for (std::size_t k = 1; k < a.size(); k += 2) {
    const bool known = a[k] == "file" || a[k] == "append" || a[k] == "screen" || a[k] == "universe";
    if (!known)
      bad("print: unknown keyword '" + a[k] +
          "' (quote the text if it has spaces); usage: " + usage);
    if (k + 1 >= a.size()) bad("print: " + a[k] + " needs a value; usage: " + usage);
    if (a[k] == "file" || a[k] == "append") {
      file = a[k + 1];
      append = a[k] == "append";
    } else if (a[k] == "screen") {
      screen = yes_no("print screen", a[k + 1]);
    } else {
      yes_no("print universe", a[k + 1]);  // one partition: the universe screen is the screen
    }
  }
  const std::string text = expand(a[0]) + "\n";
  if (screen) console_.print(text);
  if (file.empty() || !console_.is_root()) return;
  // Each print publishes the whole file (tessera/core/atomic_file.hpp): appended to, it grows
  // through a copy, so a failed write leaves it as it was.
  const bool grows = append && std::ifstream(file).good();
  AtomicFile out(file, grows ? AtomicFile::Start::copy : AtomicFile::Start::empty);
  out.write(text);
  out.commit();
}

// log FILE [append]: as LAMMPS's, later output goes to FILE (the log so far is published).
void Input::log(const std::vector<std::string>& a) {
  need(a, 1, "log FILE|none [append]");
  if (a.size() > 2 || (a.size() == 2 && a[1] != "append"))
    bad("log: usage: log FILE|none [append]");
  console_.switch_log(a[0], a.size() == 2);
}

void Input::units(const std::vector<std::string>& a) {
  need(a, 1, "units lj|metal|real");
  sim().set_units(Units::of(a[0]));
}

void Input::lattice(const std::vector<std::string>& a) {
  lattice_ = Lattice::make(a, sim().units(), sim().dimension());
  thermo_->set_lattice({lattice_.spacing(0), lattice_.spacing(1), lattice_.spacing(2)});
  if (lattice_.style == "none") return;  // LAMMPS prints no spacing for it
  char buf[160];
  std::snprintf(buf, sizeof buf, "Lattice spacing in x,y,z = %.8g %.8g %.8g\n", lattice_.spacing(0),
                lattice_.spacing(1), lattice_.spacing(2));
  console_.print(buf);
}

// region ID STYLE ARGS... [side in|out] [units lattice|box], as LAMMPS's: the style from
// region_styles() (region.hpp), the keywords after its arguments.
void Input::region(const std::vector<std::string>& a) {
  need(a, 2,
       "region ID STYLE ARGS... [side in|out] [units lattice|box]; the region styles are " +
           region_styles().listing());
  RegionArguments args;
  args.id = a[0];
  const std::string& style = a[1];
  std::size_t k = 2;
  for (; k < a.size() && a[k] != "side" && a[k] != "units" && a[k] != "move" && a[k] != "rotate" &&
         a[k] != "open";
       ++k)
    args.args.push_back(a[k]);
  bool lattice_units = true, interior = true;
  for (; k < a.size(); k += 2) {
    if (k + 1 >= a.size()) bad("region " + a[0] + ": " + a[k] + " needs a value");
    if (a[k] == "units") {
      if (a[k + 1] != "box" && a[k + 1] != "lattice") bad("region units must be lattice or box");
      lattice_units = a[k + 1] == "lattice";
    } else if (a[k] == "side") {
      if (a[k + 1] != "in" && a[k + 1] != "out") bad("region side must be in or out");
      interior = a[k + 1] == "in";
    } else {
      bad("region " + a[0] + ": keyword " + a[k] + " is not supported; use side and units");
    }
  }
  // Lattice units without a lattice command are LAMMPS's default lattice's, "none 1.0": spacing 1.
  if (lattice_units)
    for (int d = 0; d < 3; ++d) args.scale[static_cast<std::size_t>(d)] = lattice_.spacing(d);
  if (sim().has_box()) args.box = &sim().box();
  args.regions = &regions_;
  std::unique_ptr<Region> region = region_styles().make(style, args);
  region->set_interior(interior);
  regions_[a[0]] = std::move(region);
}

const Region& Input::find_region(const std::string& id, const std::string& command) const {
  const auto it = regions_.find(id);
  if (it == regions_.end()) bad(command + ": there is no region " + id + "; define it with region");
  return *it->second;
}

void Input::create_box(const std::vector<std::string>& a) {
  need(a, 2, "create_box N region-ID");
  const Region& region = find_region(a[1], "create_box");
  const auto shape = region.as_box();
  if (!shape) bad("create_box needs a block or prism region, not " + region.style());
  if (!region.interior()) bad("create_box needs a region with side in");
  const Box b = *shape;
  for (std::size_t d = 0; d < 3; ++d)
    if (b.lo[d] <= -unbounded || b.hi[d] >= unbounded)
      bad("create_box: region " + a[1] + " is unbounded (INF); give the box finite bounds");
  sim().create_box(static_cast<int>(integer("create_box", a[0], 1, int_max)), b);
  warn_large_skew();
  char buf[300];
  std::snprintf(buf, sizeof buf, "Created %s box = (%.8g %.8g %.8g) to (%.8g %.8g %.8g)",
                b.triclinic ? "triclinic" : "orthogonal", b.lo[0], b.lo[1], b.lo[2], b.hi[0],
                b.hi[1], b.hi[2]);
  console_.print(buf);
  if (b.triclinic) {
    std::snprintf(buf, sizeof buf, " with tilt (%.8g %.8g %.8g)", b.xy, b.xz, b.yz);
    console_.print(buf);
  }
  console_.print("\n");
}

void Input::create_atoms(const std::vector<std::string>& a) {
  need(a, 2, "create_atoms TYPE box|region ID");
  if (!sim().has_box()) bad("the simulation box is not defined; use create_box first");
  const long long type = integer("create_atoms", a[0], 1, sim().types());
  if (a[1] == "single") return create_single_atom(static_cast<std::int32_t>(type), a);
  if (lattice_.style == "none") bad("create_atoms needs a lattice command first");
  // As LAMMPS's CreateAtoms: a point is in the box when inside [lo - eps, hi - 2 eps) with
  // eps = 1e-6 of the box length in each periodic dimension (so that a point on the upper face
  // is not made twice; [lo, hi) in the others), and in a block region when inside it faces
  // included. In a triclinic box the same in fractional coordinates, eps = 1e-6, over the
  // lattice points of the box's bounding box.
  const Box& box = sim().box();
  const BoxMatrix matrix(box);
  std::array<double, 3> box_lo{}, box_hi{};
  for (std::size_t d = 0; d < 3; ++d) {
    const double length = box.triclinic ? 1.0 : box.length(static_cast<int>(d));
    const double eps = sim().boundary().periodic(d) ? length * 1e-6 : 0.0;
    box_lo[d] = (box.triclinic ? 0.0 : box.lo[d]) - eps;
    box_hi[d] = (box.triclinic ? 1.0 : box.hi[d]) - 2.0 * eps;
  }
  Box where = box;
  if (box.triclinic) matrix.bounding_box({0, 0, 0}, {1, 1, 1}, where.lo, where.hi);
  const Region* region = nullptr;
  std::size_t keywords = 2;
  if (a[1] == "region") {
    need(a, 3, "create_atoms TYPE region ID");
    keywords = 3;
    region = &find_region(a[2], "create_atoms");
    const Box extent = region->extent();
    for (std::size_t d = 0; d < 3; ++d) {
      where.lo[d] = std::max(where.lo[d], extent.lo[d]);
      where.hi[d] = std::min(where.hi[d], extent.hi[d]);
    }
  } else if (a[1] != "box") {
    bad("create_atoms style " + a[1] + ": use box, region or single");
  }
  // basis M TYPE: the lattice's basis atom M (1-based) gets TYPE instead, as LAMMPS's.
  std::vector<std::int32_t> basis_type(lattice_.basis.size(), static_cast<std::int32_t>(type));
  for (std::size_t k = keywords; k < a.size(); k += 3) {
    if (a[k] != "basis")
      bad("create_atoms " + a[1] + ": keyword " + a[k] +
          " is not supported (md_ipu takes basis M TYPE here)");
    if (k + 2 >= a.size()) bad("create_atoms: basis needs M TYPE");
    const auto m =
        integer("create_atoms basis", a[k + 1], 1, static_cast<long long>(lattice_.basis.size()));
    basis_type[static_cast<std::size_t>(m - 1)] =
        static_cast<std::int32_t>(integer("create_atoms basis", a[k + 2], 1, sim().types()));
  }
  sim().require_room_for_atoms(lattice_.count_bound(where.lo, where.hi),
                               "create_atoms on this lattice and region", false);
  const auto accept = [&](const std::array<double, 3>& p) {
    std::array<double, 3> c = p;
    if (box.triclinic) matrix.to_fraction(p.data(), c.data());
    for (std::size_t d = 0; d < 3; ++d)
      if (!(c[d] >= box_lo[d] && c[d] < box_hi[d])) return false;
    return !region || region->matches(p);
  };
  // The lattice points are let go before the atoms are handed to the tiles, which allocate
  // theirs while `atoms` lives: that moment is the setup's peak memory.
  std::vector<AtomRecord> atoms;
  {
    std::vector<int> basis_of;
    const auto points = lattice_.points(where.lo, where.hi, accept, &basis_of);
    atoms.resize(points.size());
    for (std::size_t k = 0; k < points.size(); ++k) {
      atoms[k].type = basis_type[static_cast<std::size_t>(basis_of[k])];
      atoms[k].x = points[k];
    }
  }
  const std::size_t n = atoms.size();
  sim().add_atoms(std::move(atoms));
  console_.print("Created " + std::to_string(n) + " atoms\n");
}

// create_atoms TYPE single X Y Z [units box|lattice] [remap yes|no], as LAMMPS's: the point in
// lattice spacings by default, wrapped into the periodic dimensions with remap yes. LAMMPS makes
// nothing, silently, of a point outside the box; md_ipu refuses it.
void Input::create_single_atom(std::int32_t type, const std::vector<std::string>& a) {
  const char* usage = "create_atoms TYPE single X Y Z [units box|lattice] [remap yes|no]";
  need(a, 5, usage);
  bool lattice_units = true, remap = false;
  for (std::size_t k = 5; k < a.size(); k += 2) {
    if (k + 1 >= a.size()) bad("create_atoms single: keyword " + a[k] + " needs a value");
    if (a[k] == "units") {
      if (a[k + 1] != "box" && a[k + 1] != "lattice")
        bad("create_atoms single: units must be box or lattice, not '" + a[k + 1] + "'");
      lattice_units = a[k + 1] == "lattice";
    } else if (a[k] == "remap") {
      remap = yes_no("create_atoms single remap", a[k + 1]);
    } else {
      bad("create_atoms single: keyword " + a[k] + " is not supported; usage: " + usage);
    }
  }
  const Box& box = sim().box();
  AtomRecord r;
  r.type = type;
  for (std::size_t d = 0; d < 3; ++d) {
    const int dim = static_cast<int>(d);
    r.x[d] =
        number("create_atoms single", a[2 + d]) * (lattice_units ? lattice_.spacing(dim) : 1.0);
    if (remap && sim().boundary().periodic(d)) {
      const double length = box.length(dim);
      r.x[d] -= std::floor((r.x[d] - box.lo[d]) / length) * length;
      if (r.x[d] >= box.hi[d]) r.x[d] = box.lo[d];  // a rounding at the upper face
    }
  }
  for (std::size_t d = 0; d < 3; ++d)
    if (!(r.x[d] >= box.lo[d] && r.x[d] < box.hi[d])) {
      char where[160];
      std::snprintf(where, sizeof where, "(%.8g, %.8g, %.8g)", r.x[0], r.x[1], r.x[2]);
      bad(std::string("create_atoms single: the point ") + where + " is outside the box" +
          (remap ? "" : "; remap yes maps it into the periodic dimensions"));
    }
  sim().require_room_for_atoms(1, "create_atoms single", false);
  sim().add_atoms({r});
  console_.print("Created 1 atoms\n");
}

void Input::mass(const std::vector<std::string>& a) {
  need(a, 2, "mass TYPE VALUE");
  if (!sim().has_box()) bad("the simulation box is not defined; use create_box or read_data first");
  const auto [lo, hi] = type_range("mass", a[0], sim().types());
  for (int t = lo; t <= hi; ++t) sim().set_mass(t, number("mass", a[1]));
}

// velocity GROUP create|set|scale|ramp|zero ARGS [keyword value ...], as LAMMPS's (velocity.hpp).
void Input::velocity(const std::vector<std::string>& a) {
  need(a, 2, "velocity GROUP create|set|scale|ramp|zero ARGS [keyword value ...]");
  const std::string& group = a[0];
  const std::string& style = a[1];
  const std::string command = "velocity " + style;
  std::size_t first_keyword = 0;
  if (style == "create")
    need(a, 4, "velocity GROUP create T SEED [keyword value ...]"), first_keyword = 4;
  else if (style == "set")
    need(a, 5, "velocity GROUP set VX VY VZ [keyword value ...]"), first_keyword = 5;
  else if (style == "scale")
    need(a, 3, "velocity GROUP scale T [keyword value ...]"), first_keyword = 3;
  else if (style == "ramp")
    need(a, 8, "velocity GROUP ramp vx|vy|vz VLO VHI x|y|z CLO CHI [keyword value ...]"),
        first_keyword = 8;
  else if (style == "zero")
    need(a, 3, "velocity GROUP zero linear|angular [keyword value ...]"), first_keyword = 3;
  else
    bad("velocity style " + style + ": use create, set, scale, ramp or zero");
  VelocityOptions options;
  for (std::size_t i = first_keyword; i < a.size(); i += 2) {
    if (i + 1 >= a.size()) bad(command + ": keyword " + a[i] + " needs a value");
    const std::string& k = a[i];
    const std::string& v = a[i + 1];
    if (k == "dist") {
      if (v != "uniform" && v != "gaussian") bad(command + ": dist must be uniform or gaussian");
      options.gaussian = v == "gaussian";
    } else if (k == "sum") {
      options.sum = yes_no(command, v);
    } else if (k == "mom") {
      options.momentum = yes_no(command, v);
    } else if (k == "rot") {
      options.rotation = yes_no(command, v);
    } else if (k == "loop") {
      options.loop = v;
    } else if (k == "temp") {
      options.temperature = v;
    } else if (k == "units") {
      if (v != "box" && v != "lattice") bad(command + ": units must be box or lattice");
      options.lattice_units = v == "lattice";
    } else if (k == "bias" || k == "rigid") {
      bad(command + ": keyword " + k + " is not supported");
    } else {
      bad(command + ": unknown keyword '" + k +
          "'; supported: dist, sum, mom, rot, temp, loop, units");
    }
  }
  const auto dim = [&](const std::string& word, const std::string& prefix) -> int {
    for (int d = 0; d < 3; ++d)
      if (word == prefix + "xyz"[d]) return d;
    bad(command + ": '" + word + "' is not " + prefix + "x, " + prefix + "y or " + prefix + "z");
  };
  if (style == "create") {
    const double t = number(command, a[2]);
    const long long seed = seed_value(command, a[3], "the seed must be a positive 32-bit integer");
    velocity_create(sim(), group, t, static_cast<int>(seed), options);
  } else if (style == "set") {
    std::array<std::optional<double>, 3> v;
    for (std::size_t d = 0; d < 3; ++d)
      if (a[2 + d] != "NULL") v[d] = number(command, a[2 + d]);
    velocity_set(sim(), group, v, options, lattice_);
  } else if (style == "scale") {
    velocity_scale(sim(), group, number(command, a[2]), options);
  } else if (style == "ramp") {
    velocity_ramp(sim(), group, dim(a[2], "v"), number(command, a[3]), number(command, a[4]),
                  dim(a[5], ""), number(command, a[6]), number(command, a[7]), options, lattice_);
  } else {
    if (a[2] != "linear" && a[2] != "angular") bad(command + ": use zero linear or zero angular");
    velocity_zero(sim(), group, a[2] == "angular");
  }
}

// pair_style NAME ARGS...: the style registered as NAME (pair_styles()), or, when NAME is the
// current style, new settings for it with its coefficients kept (as LAMMPS).
void Input::pair_style(const std::vector<std::string>& a) {
  need(a, 1, "pair_style STYLE ARGS...; the pair styles are " + pair_styles().listing());
  const std::vector<std::string> args(a.begin() + 1, a.end());
  const Pair* current = static_cast<const Simulation&>(sim()).pair();
  if (current && current->style() == a[0]) {
    sim().pair()->settings(args);
    return;
  }
  std::unique_ptr<Pair> pair = pair_styles().make(a[0], pair_context(sim()));
  pair->settings(args);
  sim().set_pair(std::move(pair));
}

void Input::pair_coeff(const std::vector<std::string>& a) {
  if (!sim().has_box()) bad("the simulation box is not defined; use create_box or read_data first");
  Pair* pair = sim().pair();
  if (!pair) bad("pair_coeff before pair_style: set pair_style lj/cut first");
  pair->coeff(a, sim().types());
}

// kspace_style NAME ARGS... | none, as LAMMPS's: a new style replaces the old one.
void Input::kspace_style(const std::vector<std::string>& a) {
  need(a, 1,
       "kspace_style STYLE ACCURACY | none; the kspace styles are " + kspace_styles().listing());
  if (a[0] == "none") {
    if (a.size() != 1) bad("kspace_style none takes no further arguments");
    sim().set_kspace(nullptr);
    return;
  }
  std::unique_ptr<KSpace> kspace = kspace_styles().make(a[0]);
  kspace->settings(std::vector<std::string>(a.begin() + 1, a.end()));
  sim().set_kspace(std::move(kspace));
}

void Input::kspace_modify(const std::vector<std::string>& a) {
  KSpace* kspace = sim().kspace();
  if (!kspace) bad("kspace_modify before kspace_style: set the kspace style first");
  need(a, 1, "kspace_modify KEYWORD VALUE ...");
  kspace->modify(a);
}

void Input::pair_modify(const std::vector<std::string>& a) {
  Pair* pair = sim().pair();
  if (!pair) bad("pair_modify before pair_style: set the pair style first");
  pair->modify(a);
}

void Input::neighbor(const std::vector<std::string>& a) {
  need(a, 2, "neighbor SKIN bin|nsq|multi");
  const double skin = number("neighbor", a[0]);
  if (skin < 0) bad("the skin must not be negative");
  // LAMMPS's nsq (all pairs) and multi (bins per type) find the same pairs as bin; md_ipu
  // always bins, so they differ only in the lists' order.
  if (a[1] == "nsq" || a[1] == "multi")
    console_.print("neighbor " + a[1] + ": md_ipu builds binned lists (the same pairs as " + a[1] +
                   "; only their order differs)\n");
  else if (a[1] != "bin")
    bad("neighbor style " + a[1] + ": use bin, nsq or multi");
  sim().neighbor().skin = skin;
}

void Input::neigh_modify(const std::vector<std::string>& a) {
  need(a, 2, "neigh_modify every N delay N check yes|no once yes|no exclude ...");
  for (std::size_t i = 0; i < a.size(); i += 2) {
    if (i + 1 >= a.size()) bad("keyword " + a[i] + " needs a value");
    if (a[i] == "every") {
      sim().neighbor().every =
          static_cast<int>(integer("neigh_modify every", a[i + 1], 1, int_max));
    } else if (a[i] == "delay") {
      sim().neighbor().delay =
          static_cast<int>(integer("neigh_modify delay", a[i + 1], 0, int_max));
    } else if (a[i] == "check") {
      sim().neighbor().check = yes_no("neigh_modify", a[i + 1]);
    } else if (a[i] == "once") {
      sim().neighbor().once = yes_no("neigh_modify once", a[i + 1]);
    } else if (a[i] == "exclude") {
      if (a[i + 1] == "none") {
        sim().neighbor().exclude_types.clear();
        sim().neighbor().exclude_groups.clear();
      } else if (a[i + 1] == "type") {
        if (i + 3 >= a.size()) bad("neigh_modify exclude type needs two atom types");
        if (!sim().has_box()) bad("neigh_modify exclude type: the simulation box is not defined");
        const int ti =
            static_cast<int>(integer("neigh_modify exclude type", a[i + 2], 1, sim().types()));
        const int tj =
            static_cast<int>(integer("neigh_modify exclude type", a[i + 3], 1, sim().types()));
        sim().neighbor().exclude_types.emplace_back(ti, tj);
        i += 2;
      } else if (a[i + 1] == "group") {
        if (i + 3 >= a.size()) bad("neigh_modify exclude group needs two group IDs");
        std::array<int, 2> bits{};
        for (std::size_t k = 0; k < 2; ++k) {
          bits[k] = sim().group_bit(a[i + 2 + k]);
          if (bits[k] < 0) bad("neigh_modify exclude group: there is no group " + a[i + 2 + k]);
        }
        sim().neighbor().exclude_groups.emplace_back(bits[0], bits[1]);
        i += 2;
      } else {
        bad("neigh_modify exclude " + a[i + 1] +
            ": md_ipu excludes by type, group or none (molecule/intra and molecule/inter need "
            "molecule IDs, which atom style atomic lacks)");
      }
    } else {
      bad("unknown keyword '" + a[i] + "'; supported: every, delay, check, once, exclude");
    }
  }
}

// fix ID GROUP STYLE ARGS...: the style registered as STYLE (fix_styles()).
void Input::fix(const std::vector<std::string>& a) {
  need(a, 3, "fix ID GROUP STYLE ARGS...; the fix styles are " + fix_styles().listing());
  FixArguments args{
      a[0],
      a[1],
      std::vector<std::string>(a.begin() + 3, a.end()),
      sim().units(),
      false,
      &sim(),
      {lattice_.spacing(0), lattice_.spacing(1), lattice_.spacing(2)},
      [this](const std::string& name) {
        if (!variables_.count(name))
          bad("v_" + name + ": there is no variable " + name + "; define it with variable");
        return number("variable " + name, variable_text(name));
      },
      atom_variables(),
      [this](const std::string& id) {
        find_region(id, "fix");
        return regions_.at(id);
      },
      [this](const std::string& text) { return expand(text); },
      [this](const std::string& text) { console_.print(text); },
      [this](const std::string& name, double value) {
        const auto it = variables_.find(name);
        if (it == variables_.end() || it->second.style != "internal")
          bad("variable " + name + " is not an internal-style variable" +
              (it == variables_.end() ? std::string(" (there is none)")
                                      : " (it is " + it->second.style + "-style)"));
        char text[64];
        std::snprintf(text, sizeof text, "%.17g", value);
        it->second.values = {text};
      }};
  sim().add_fix(fix_styles().make(a[2], args));
  if (sim().fix_state_restored())
    console_.print("Resetting global fix info from restart file:\n  fix style: " + a[2] +
                   ", fix ID: " + a[0] + "\n");
}

// compute ID GROUP STYLE ARGS...
void Input::compute(const std::vector<std::string>& a) {
  need(a, 3,
       "compute ID GROUP STYLE ARGS...; the compute styles are " + compute_styles().listing());
  ComputeArguments args{a[0],
                        a[1],
                        std::vector<std::string>(a.begin() + 3, a.end()),
                        &sim(),
                        {lattice_.spacing(0), lattice_.spacing(1), lattice_.spacing(2)},
                        [this](const std::string& id) {
                          find_region(id, "compute");
                          return regions_.at(id);
                        },
                        atom_variables()};
  sim().add_compute(compute_styles().make(a[2], args));
}

void Input::compute_modify(const std::vector<std::string>& a) {
  need(a, 3, "compute_modify ID KEYWORD VALUE ...");
  Compute* c = sim().find_compute(a[0]);
  if (!c) bad("compute_modify: there is no compute " + a[0]);
  for (std::size_t i = 1; i < a.size();) i += c->modify(a, i);
}

// delete_atoms group ID | region ID [compress yes|no], as LAMMPS's DeleteAtoms.
void Input::delete_atoms(const std::vector<std::string>& a) {
  need(a, 2, "delete_atoms group|region ID [compress yes|no]");
  if (!sim().has_box()) bad("delete_atoms: the simulation box is not defined");
  std::function<bool(const Simulation::GroupAtom&)> select;
  if (a[0] == "group") {
    const int bit = sim().group_bit(a[1]);
    if (bit < 0) bad("delete_atoms group " + a[1] + ": there is no such group");
    select = [flag = 1u << bit](const Simulation::GroupAtom& g) { return (g.mask & flag) != 0; };
  } else if (a[0] == "region") {
    const Region& region = find_region(a[1], "delete_atoms region");
    select = [&region](const Simulation::GroupAtom& g) { return region.matches(g.x); };
  } else {
    bad("delete_atoms style " + a[0] + " is not supported; use group or region");
  }
  bool compress = true;
  for (std::size_t i = 2; i < a.size(); i += 2) {
    if (i + 1 >= a.size()) bad("delete_atoms: keyword " + a[i] + " needs a value");
    if (a[i] != "compress")
      bad("delete_atoms: keyword " + a[i] + " is not supported; use compress yes|no");
    compress = yes_no("delete_atoms compress", a[i + 1]);
  }
  const std::int64_t n = sim().delete_atoms(select, compress);
  console_.print("Deleted " + std::to_string(n) +
                 " atoms, new total = " + std::to_string(sim().natoms()) + "\n");
}

void Input::fix_modify(const std::vector<std::string>& a) {
  need(a, 3, "fix_modify ID KEYWORD VALUE ...");
  Fix* fix = nullptr;
  for (const auto& f : sim().fixes())
    if (f->id() == a[0]) fix = f.get();
  if (!fix) bad("fix_modify: there is no fix " + a[0]);
  for (std::size_t i = 1; i < a.size();) i += fix->modify(sim(), a, i);
}

void Input::uncompute(const std::vector<std::string>& a) {
  need(a, 1, "uncompute ID");
  if (a.size() != 1) bad("uncompute takes one compute ID");
  sim().uncompute(a[0]);
}

void Input::thermo_modify(const std::vector<std::string>& a) {
  need(a, 2, "thermo_modify norm yes|no | format float FMT | temp ID | press ID | line one|multi");
  for (std::size_t i = 0; i < a.size();) {
    if (a[i] == "norm" && i + 1 < a.size()) {
      thermo_->set_norm(yes_no("thermo_modify", a[i + 1]));
      i += 2;
    } else if (a[i] == "temp" && i + 1 < a.size()) {
      thermo_->set_temperature(sim(), a[i + 1]);
      i += 2;
    } else if (a[i] == "press" && i + 1 < a.size()) {
      thermo_->set_pressure(sim(), a[i + 1]);
      i += 2;
    } else if (a[i] == "format" && i + 2 < a.size() && a[i + 1] == "float") {
      thermo_->set_float_format(a[i + 2]);
      i += 3;
    } else if (a[i] == "line" && i + 1 < a.size()) {
      if (a[i + 1] != "one" && a[i + 1] != "multi")
        bad("thermo_modify line " + a[i + 1] + ": use one or multi");
      thermo_->set_multiline(a[i + 1] == "multi");
      i += 2;
    } else {
      bad("unknown or incomplete keyword '" + a[i] +
          "'; supported: norm yes|no, format float FMT, temp ID, press ID, line one|multi");
    }
  }
}

void Input::dump(const std::vector<std::string>& a) {
  need(a, 5, "dump ID GROUP STYLE N FILE [fields...]");
  if (sim().group_bit(a[1]) < 0) bad("dump " + a[0] + ": there is no group " + a[1]);
  if (a[1] != "all" && a[2] == "netcdf")
    bad("dump " + a[0] + ": md_ipu's NetCDF dumps hold the group all (a fixed atom count)");
  if (dumps_.count(a[0])) bad("dump ID " + a[0] + " is already in use; undump it first");
  const long long every = integer("dump", a[3], 1, int_max);
  if (!sim().charged() && std::find(a.begin() + 5, a.end(), "q") != a.end())
    bad("dump " + a[0] + ": field q: the atoms carry no charges; use atom_style charge");
  if (!sim().molecular() && std::find(a.begin() + 5, a.end(), "mol") != a.end())
    bad("dump " + a[0] + ": field mol: the atoms have no molecule ids; use a molecular " +
        "atom_style (LAMMPS: \"Dumping an atom property that isn't allocated\")");
  auto d = Dump::make(a[0], a[2], static_cast<int>(every), a[4],
                      std::vector<std::string>(a.begin() + 5, a.end()));
  d->set_group(a[1]);
  dumps_[a[0]] = d;
  sim().add_observer(d);
}

void Input::dump_modify(const std::vector<std::string>& a) {
  need(a, 3, "dump_modify ID sort id | format float FMT | element NAME...");
  auto it = dumps_.find(a[0]);
  if (it == dumps_.end()) bad("no dump with ID " + a[0]);
  for (std::size_t i = 1; i < a.size();) {
    if (a[i] == "sort" && i + 1 < a.size()) {
      if (a[i + 1] != "id" && a[i + 1] != "off") bad("sort must be id or off");
      i += 2;  // Dumps are always written sorted by id.
    } else if (a[i] == "format" && i + 2 < a.size() && a[i + 1] == "float") {
      it->second->set_float_format(a[i + 2]);
      i += 3;
    } else if (a[i] == "element") {
      // One name per atom type, as LAMMPS's (which reads the words after them as keywords).
      const auto types = static_cast<std::size_t>(sim().types());
      if (a.size() - i - 1 < types)
        bad("element: " + std::to_string(a.size() - i - 1) + " names for " + std::to_string(types) +
            " atom types; give one per type");
      it->second->set_elements({a.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                a.begin() + static_cast<std::ptrdiff_t>(i + 1 + types)});
      i += 1 + types;
    } else {
      bad("unknown or incomplete keyword '" + a[i] +
          "'; supported: sort id, format float FMT, element NAME...");
    }
  }
}

void Input::end_dumps_after_error() {
  const std::vector<Dump*> dumps = dump_list();
  const bool write_failed =
      std::any_of(dumps.begin(), dumps.end(), [](const Dump* d) { return d->failed(); });
  if (write_failed) {
    // One dump lost frames: none of the run's frames are published, so that the files under
    // their names still agree (each keeps what the earlier runs published).
    discard_dumps(dumps);
    return;
  }
  // The run failed otherwise (atoms blew up): the frames up to the failure are complete.
  try {
    publish_dumps(dumps);
  } catch (const Error& e) {
    try {
      console_.warn(std::string("ERROR: ") + e.what() + "\n");
    } catch (const Error&) {
      // The log failed too; the run's own error is reported all the same.
    }
  }
}

// variable NAME STYLE ARGS..., as LAMMPS's Variable::set: index, loop and uloop keep an existing
// variable of the name (a -var on the command line wins), string, equal, format, getenv and
// internal replace one of their own style, and delete removes it.
void Input::variable(const std::vector<std::string>& a) {
  need(a, 2, "variable NAME STYLE ARGS...");
  const std::string& name = a[0];
  const std::string& style = a[1];
  const auto existing = variables_.find(name);
  if (style == "delete") {
    if (existing != variables_.end()) variables_.erase(existing);
    return;
  }
  need(a, 3, "variable NAME STYLE ARGS...");
  const std::vector<std::string> args(a.begin() + 2, a.end());
  if (style == "index" || style == "loop" || style == "uloop") {
    if (existing != variables_.end()) return;
    if (style == "index") {
      variables_[name] = {"index", args};
      return;
    }
    // loop N [pad] | loop N1 N2 [pad]: the integers N1..N2 (1..N), zero-padded to N2's width.
    const bool pad = args.back() == "pad";
    const std::size_t count = args.size() - (pad ? 1 : 0);
    if (count < 1 || count > 2) bad("variable " + style + ": use N [pad] or N1 N2 [pad]");
    const long long lo = count == 2 ? integer("variable " + style, args[0], 0, int_max) : 1;
    const long long hi = integer("variable " + style, args[count - 1], lo, int_max);
    if (hi - lo > 10000000) bad("variable " + style + ": more than 10 million values");
    const std::size_t width = std::to_string(hi).size();
    std::vector<std::string> values;
    for (long long v = lo; v <= hi; ++v) {
      std::string text = std::to_string(v);
      if (pad && text.size() < width) text.insert(0, width - text.size(), '0');
      values.push_back(text);
    }
    variables_[name] = {style, values};
    return;
  }
  if (existing != variables_.end() && existing->second.style != style &&
      !(existing->second.style == "internal" && style == "equal"))
    bad("variable " + name + " is already a " + existing->second.style +
        "-style variable; it cannot be redefined as " + style);
  if (style == "string") {
    if (args.size() != 1) bad("variable string takes one value (quote it if it has spaces)");
    variables_[name] = {"string", args};
  } else if (style == "equal") {
    std::string formula;
    for (std::size_t i = 0; i < args.size(); ++i) formula += (i > 0 ? " " : "") + args[i];
    variables_[name] = {"equal", {formula}};
  } else if (style == "atom") {
    std::string formula;
    for (std::size_t i = 0; i < args.size(); ++i) formula += (i > 0 ? " " : "") + args[i];
    Formula{formula};  // a formula that does not parse is refused here
    variables_[name] = {"atom", {formula}};
  } else if (style == "atomfile") {
    if (args.size() != 1) bad("variable atomfile takes one file name");
    if (!sim().has_box())
      bad("variable atomfile: the simulation box is not defined; its values belong to atoms");
    const SharedFile file = read_on_root(sim().runtime().comm(), args[0]);
    if (!file.ok) bad("variable atomfile: cannot open " + args[0] + ": " + file.bytes);
    Variable v{"atomfile", args};
    v.text = std::make_shared<const std::string>(file.bytes);
    if (!read_atomfile_set(name, v))
      bad("variable atomfile: " + args[0] + " holds no set of per-atom values");
    variables_[name] = std::move(v);
  } else if (style == "format") {
    if (args.size() != 2) bad("variable format: use variable NAME format VARIABLE FORMAT");
    // One %f, %e or %g conversion and nothing else printf would interpret.
    if (arguments::float_conversions(args[1]) != 1)
      bad("variable format: '" + args[1] + "' needs one %f, %e or %g conversion");
    variables_[name] = {"format", args};
  } else if (style == "getenv") {
    if (args.size() != 1) bad("variable getenv takes the name of an environment variable");
    variables_[name] = {"getenv", args};
  } else if (style == "internal") {
    if (args.size() != 1) bad("variable internal takes one number");
    number("variable internal", args[0]);
    variables_[name] = {"internal", args};
  } else {
    bad("variable style " + style +
        ": md_ipu supports index, loop, uloop, string, equal, atom, atomfile, format, getenv, "
        "internal and delete");
  }
}

// group ID STYLE ARGS..., as LAMMPS's Group: type or id with values and sequences (A, A:B,
// A:B:C) or a comparison (< <= > >= == != A, <> A B), region RID, subtract G1 G2..., union G...,
// intersect G..., clear, delete, empty. Atoms join when the command runs (positions then, for
// region).
void Input::group(const std::vector<std::string>& a) {
  const char* usage = "group ID type|id|region|subtract|union|intersect|clear|delete|empty ...";
  need(a, 2, usage);
  if (!sim().has_box()) bad("the simulation box is not defined; define it before groups");
  const std::string& name = a[0];
  const std::string& style = a[1];
  const std::vector<std::string> args(a.begin() + 2, a.end());
  if (style == "delete" || style == "clear") {
    if (name == "all") bad("group all cannot be cleared or deleted");
    if (sim().group_bit(name) < 0) bad("group " + name + ": there is no such group");
    if (style == "delete")
      sim().delete_group(name);
    else
      sim().clear_group(name);
    return;
  }
  std::function<bool(const Simulation::GroupAtom&)> select;
  if (style == "empty") {
    select = [](const Simulation::GroupAtom&) { return false; };
  } else if (style == "type" || style == "id") {
    need(args, 1, std::string("group ID ") + style + " VALUES...");
    const bool by_type = style == "type";
    const long long top = by_type ? sim().types() : bigint_max;
    const auto value = [by_type](const Simulation::GroupAtom& g) {
      return by_type ? static_cast<long long>(g.type) : static_cast<long long>(g.id);
    };
    static const std::vector<std::string> comparisons = {"<", "<=", ">", ">=", "==", "!=", "<>"};
    if (std::find(comparisons.begin(), comparisons.end(), args[0]) != comparisons.end()) {
      const std::string op = args[0];
      need(args, op == "<>" ? 3 : 2,
           "group ID " + style + " " + op + " VALUE" + (op == "<>" ? " VALUE" : ""));
      const long long lo = integer("group", args[1], 0, top);
      const long long hi = op == "<>" ? integer("group", args[2], 0, top) : lo;
      select = [=](const Simulation::GroupAtom& g) {
        const long long v = value(g);
        if (op == "<") return v < lo;
        if (op == "<=") return v <= lo;
        if (op == ">") return v > lo;
        if (op == ">=") return v >= lo;
        if (op == "==") return v == lo;
        if (op == "!=") return v != lo;
        return v >= lo && v <= hi;
      };
    } else {
      // Values and sequences A:B or A:B:C (from A to B in steps of C), as LAMMPS's Group.
      struct Sequence {
        long long lo, hi, step;
      };
      std::vector<Sequence> sequences;
      for (const auto& w : args) {
        std::vector<std::string> parts;
        std::size_t from = 0;
        for (std::size_t colon; (colon = w.find(':', from)) != std::string::npos; from = colon + 1)
          parts.push_back(w.substr(from, colon - from));
        parts.push_back(w.substr(from));
        if (parts.size() > 3) bad("group " + name + ": '" + w + "' is not A, A:B or A:B:C");
        const long long lo = integer("group", parts[0], 1, top);
        const long long hi = parts.size() > 1 ? integer("group", parts[1], lo, top) : lo;
        const long long step = parts.size() > 2 ? integer("group", parts[2], 1, top) : 1;
        sequences.push_back({lo, hi, step});
      }
      select = [=](const Simulation::GroupAtom& g) {
        const long long v = value(g);
        for (const auto& q : sequences)
          if (v >= q.lo && v <= q.hi && (v - q.lo) % q.step == 0) return true;
        return false;
      };
    }
  } else if (style == "region") {
    need(args, 1, "group ID region REGION-ID");
    const auto it = regions_.find(args[0]);
    if (it == regions_.end()) bad("group " + name + ": no region with ID " + args[0]);
    select = [region = it->second](const Simulation::GroupAtom& g) { return region->matches(g.x); };
  } else if (style == "subtract" || style == "union" || style == "intersect") {
    need(args, style == "union" ? 1 : 2, std::string("group ID ") + style + " G1 G2 ...");
    std::vector<std::uint32_t> bits;
    for (const auto& g : args) {
      const int bit = sim().group_bit(g);
      if (bit < 0) bad("group " + name + " " + style + ": there is no group " + g);
      bits.push_back(1u << bit);
    }
    select = [bits, style](const Simulation::GroupAtom& g) {
      if (style == "union") {
        for (auto b : bits)
          if (g.mask & b) return true;
        return false;
      }
      if (style == "intersect") {
        for (auto b : bits)
          if (!(g.mask & b)) return false;
        return true;
      }
      if (!(g.mask & bits[0])) return false;
      for (std::size_t k = 1; k < bits.size(); ++k)
        if (g.mask & bits[k]) return false;
      return true;
    };
  } else {
    bad("group style " + style + " is not supported; " + usage);
  }
  if (name == "all") bad("group all is every atom; it cannot be changed");
  const std::int64_t count = sim().add_to_group(name, select);
  console_.print(std::to_string(count) + " atoms in group " + name + "\n");
}

// set atom|type|group|region ID KEYWORD VALUES ..., as LAMMPS's Set: atom and type take ranges
// (*, n*, *n, m*n); keywords type T, type/fraction T FRACTION SEED (each selected atom becomes T
// when a Park-Miller draw seeded from SEED and its position is below FRACTION), x y z, vx vy vz.
// Each keyword prints LAMMPS's "N settings made for KEYWORD".
void Input::set(const std::vector<std::string>& a) {
  const char* usage =
      "set atom|type|group|region ID type T | type/fraction T F SEED | x|y|z|vx|vy|vz V | "
      "charge Q ...";
  need(a, 4, usage);
  if (!sim().has_box()) bad("the simulation box is not defined; use create_box or read_data");
  std::function<bool(const Simulation::GroupAtom&)> select;
  const std::string& style = a[0];
  const std::string& id = a[1];
  if (style == "atom" || style == "type") {
    const bool by_type = style == "type";
    const auto range =
        bounds("set", id, by_type ? sim().types() : bigint_max, by_type ? "atom type" : "atom id",
               by_type ? "type range" : "id range");
    select = [by_type, lo = range.first, hi = range.second](const Simulation::GroupAtom& g) {
      const long long v = by_type ? g.type : g.id;
      return v >= lo && v <= hi;
    };
  } else if (style == "group") {
    const int bit = sim().group_bit(id);
    if (bit < 0) bad("set group " + id + ": there is no such group");
    select = [flag = 1u << bit](const Simulation::GroupAtom& g) { return (g.mask & flag) != 0; };
  } else if (style == "region") {
    const auto it = regions_.find(id);
    if (it == regions_.end()) bad("set region " + id + ": there is no such region");
    select = [region = it->second](const Simulation::GroupAtom& g) { return region->matches(g.x); };
  } else {
    bad("set style " + style + " is not supported; " + usage);
  }
  console_.print("Setting atom values ...\n");
  std::vector<AtomValues> sources;  // the keyword's atom-style variable, if it has one
  for (std::size_t k = 2; k < a.size();) {
    const std::string& key = a[k];
    std::function<bool(Simulation::AtomChange&)> change;
    if (key == "type") {
      need(a, k + 2, usage);
      const auto type = static_cast<std::int32_t>(integer("set type", a[k + 1], 1, sim().types()));
      change = [type](Simulation::AtomChange& c) {
        c.type = type;
        return true;
      };
      k += 2;
    } else if (key == "type/fraction") {
      need(a, k + 4, usage);
      const auto type =
          static_cast<std::int32_t>(integer("set type/fraction", a[k + 1], 1, sim().types()));
      const double fraction = number("set type/fraction", a[k + 2]);
      if (!(fraction >= 0 && fraction <= 1)) bad("set type/fraction: the fraction must be 0..1");
      const int seed = static_cast<int>(seed_value(
          "set type/fraction", a[k + 3], "set type/fraction: the seed must be a positive integer"));
      change = [=](Simulation::AtomChange& c) {
        RandomPark random(1);
        random.reseed(seed, {c.x[0], c.x[1], c.x[2]});
        if (random.uniform() >= fraction) return false;
        c.type = type;
        return true;
      };
      k += 4;
    } else if (key == "x" || key == "y" || key == "z" || key == "vx" || key == "vy" ||
               key == "vz") {
      need(a, k + 2, usage);
      const SetValue value = set_value(key, a[k + 1], sources);
      const bool velocity = key[0] == 'v';
      const auto d = static_cast<std::size_t>(key.back() - 'x');
      change = [=](Simulation::AtomChange& c) {
        (velocity ? c.v : c.x)[d] = value.of(c);
        return true;
      };
      k += 2;
    } else if (key == "charge") {
      need(a, k + 2, usage);
      if (!sim().charged())
        bad("set charge: the atoms carry no charges; use atom_style charge before the box");
      const SetValue value = set_value(key, a[k + 1], sources);
      change = [=](Simulation::AtomChange& c) {
        c.q[0] = value.of(c);
        return true;
      };
      k += 2;
    } else if (key.rfind("i_", 0) == 0 || key.rfind("d_", 0) == 0 || key.rfind("i2_", 0) == 0 ||
               key.rfind("d2_", 0) == 0) {
      need(a, k + 2, usage);
      const auto custom = *sim().custom_reference(key, "set " + key);
      const std::size_t column = sim().custom_column(custom, "set " + key);
      const SetValue value = set_value(key, a[k + 1], sources);
      if (custom.integer && !value.variable) integer("set " + key, a[k + 1], -int_max, int_max);
      change = [=](Simulation::AtomChange& c) {
        const double v = value.of(c);
        c.per_atom[column] = custom.integer ? static_cast<double>(static_cast<int>(v)) : v;
        return true;
      };
      k += 2;
    } else {
      bad("set keyword " + key + " is not supported; " + usage);
    }
    const std::int64_t n = sim().change_atoms(select, change, sources);
    sources.clear();
    console_.print("  " + std::to_string(n) + " settings made for " + key + "\n");
  }
}

void Input::displace_atoms(const std::vector<std::string>& a) {
  console_.print("Displacing atoms ...\n");
  DisplaceInputs in;
  in.lattice = {lattice_.spacing(0), lattice_.spacing(1), lattice_.spacing(2)};
  in.variable = [this](const std::string& name) -> std::variant<double, AtomValues> {
    const auto it = variables_.find(name);
    if (it == variables_.end()) bad("displace_atoms: v_" + name + ": there is no variable " + name);
    if (it->second.per_atom()) {
      atom_variables().check(name, "displace_atoms v_" + name);
      return bind_atom_variable(name, 0);
    }
    return number("variable " + name, variable_text(name));
  };
  tessera::md::displace_atoms(sim(), a, in);
}

void Input::change_box(const std::vector<std::string>& a) {
  const std::array<double, 3> lattice{lattice_.spacing(0), lattice_.spacing(1),
                                      lattice_.spacing(2)};
  console_.print(tessera::md::change_box(sim(), a, lattice, !dumps_.empty()));
  warn_large_skew();
}

// A set keyword's value: a number, or v_NAME, an atom-style variable evaluated for every atom
// before any changes (bound now into `sources`).
Input::SetValue Input::set_value(const std::string& key, const std::string& word,
                                 std::vector<AtomValues>& sources) {
  if (word.rfind("v_", 0) != 0) return {number("set " + key, word), false};
  atom_variables().check(word.substr(2), "set " + key + " " + word);
  sources.push_back(bind_atom_variable(word.substr(2), 0));
  return {0.0, true};
}

// balance THRESH STYLE ARGS [weight ...]: LAMMPS's static load balancing moves the boundaries
// between processors. md_ipu's tile grid is fixed by the target (the same results for any
// decomposition), so nothing moves: the command is checked as LAMMPS checks it, stores the
// atoms' weights with weight store, and prints the tiles' imbalance (balance_weights.hpp).
void Input::balance(const std::vector<std::string>& a) {
  need(a, 2, "balance THRESH x|y|z|shift|rcb ARGS... [weight ...]");
  if (!sim().has_box()) bad("balance: the simulation box is not defined yet");
  if (!(number("balance THRESH", a[0]) > 0)) bad("balance: THRESH must be positive");
  const BalanceSettings settings =
      parse_balance(sim(), a, 1, /*fix=*/false, atom_variables(), "balance");
  const TileLoads loads = balance_loads(sim(), settings, atom_variables(), "balance");
  std::ostringstream line;
  line << "balance: md_ipu's tile grid is fixed by the target, nothing moves; imbalance factor "
       << loads.imbalance << " (largest tile's load " << loads.largest << ")\n";
  console_.print(line.str());
}

// comm_style brick|tiled: LAMMPS's shape of the processors' sub-domains. md_ipu's tile grid is
// fixed by the target (the same results for any decomposition): checked and said to be unused.
void Input::comm_style(const std::vector<std::string>& a) {
  need(a, 1, "comm_style brick|tiled");
  if (a[0] != "brick" && a[0] != "tiled")
    bad("comm_style: the style must be brick or tiled, not '" + a[0] + "'");
  if (a.size() > 1) bad("comm_style " + a[0] + " takes no more arguments");
  console_.print("comm_style: not used; md_ipu's tile grid is fixed by the target\n");
}

// next V1 V2 ...: each variable's next value; one that runs out is deleted, and the next jump
// is then skipped, as LAMMPS's Variable::next (which is how its loops end).
void Input::next(const std::vector<std::string>& a) {
  need(a, 1, "next VARIABLE ...");
  for (const auto& name : a) {
    const auto it = variables_.find(name);
    if (it == variables_.end()) bad("next: there is no variable " + name);
    if (it->second.style != "index" && it->second.style != "loop" && it->second.style != "uloop" &&
        it->second.style != "atomfile")
      bad("next: variable " + name + " is " + it->second.style +
          "-style; next takes index, loop, uloop and atomfile variables");
  }
  for (const auto& name : a) {
    if (Variable& v = variables_[name]; v.style == "atomfile") {
      if (!read_atomfile_set(name, v)) {
        variables_.erase(name);
        skip_next_jump_ = true;
      }
      continue;
    }
    auto& values = variables_[name].values;
    values.erase(values.begin());
    if (values.empty()) {
      variables_.erase(name);
      skip_next_jump_ = true;
    }
  }
}

// LAMMPS's VarReader::read_peratom: comments (#...) and blank lines skipped, a line with the
// count N, then N lines "ID value"; each ID an atom's.
bool Input::read_atomfile_set(const std::string& name, Variable& v) {
  const std::string where = "variable " + name + " atomfile " + v.values[0];
  const std::string& text = *v.text;
  std::size_t at = v.next_set;
  const auto next_line = [&](std::string& line) {
    if (at >= text.size()) return false;
    const std::size_t end = std::min(text.find('\n', at), text.size());
    line = text.substr(at, end - at);
    at = end + 1;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    return true;
  };
  const auto words_of = [](const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
  };
  std::string line;
  std::vector<std::string> words;
  do {
    if (!next_line(line)) return false;
    words = words_of(line);
  } while (words.empty());
  if (words.size() != 1) bad(where + ": expected the count of lines in a set, got '" + line + "'");
  const long long count = integer(where + " count", words[0], 0, 1LL << 40);
  auto values = std::make_shared<std::unordered_map<std::int64_t, double>>();
  const std::int64_t max_id = sim().max_id();
  for (long long k = 0; k < count; ++k) {
    if (!next_line(line))
      bad(where + ": the set ends after " + std::to_string(k) + " of its " + std::to_string(count) +
          " lines");
    words = words_of(line);
    if (words.size() != 2) bad(where + ": expected 'ID value', got '" + line + "'");
    const std::int64_t id = integer(where + " atom ID", words[0], 1, max_id);
    (*values)[id] = number(where + " value", words[1]);
  }
  v.next_set = at;
  v.by_id = std::move(values);
  return true;
}

void Input::label(const std::vector<std::string>& a) { need(a, 1, "label ID"); }

// jump FILE [LABEL]: FILE is SELF or an input file; reading goes on there, at LABEL if given.
void Input::jump(const std::vector<std::string>& a) {
  need(a, 1, "jump SELF|FILE [LABEL]");
  if (a.size() > 2) bad("wrong number of arguments; usage: jump SELF|FILE [LABEL]");
  if (skip_next_jump_) {
    skip_next_jump_ = false;
    return;
  }
  jump_ = Jump{a[0], a.size() > 1 ? a[1] : std::string()};
}

void Input::include(const std::vector<std::string>& a) {
  need(a, 1, "include FILE");
  if (a.size() > 1) bad("wrong number of arguments; usage: include FILE");
  if (depth_ > 100) bad("include: more than 100 files deep; does a file include itself?");
  const SharedFile script = read_on_root(sim().runtime().comm(), a[0]);
  if (!script.ok) bad("cannot open input file '" + a[0] + "': " + script.bytes);
  run_script(script.bytes, a[0]);
}

// An if condition, as LAMMPS's Variable::evaluate_boolean: WORD == WORD or WORD != WORD where
// a word is not a number compares the two as strings (both must be strings); anything else is a
// formula, true when nonzero.
bool Input::condition(const std::string& text) {
  std::istringstream words(text);
  std::string left, op, right, more;
  if (words >> left >> op >> right && !(words >> more) && (op == "==" || op == "!=")) {
    const auto is_number = [](const std::string& w) {
      char* end = nullptr;
      std::strtod(w.c_str(), &end);
      return end == w.c_str() + w.size();
    };
    if (!is_number(left) || !is_number(right)) {
      if (is_number(left) || is_number(right))
        bad("if: '" + text + "' compares a string with a number; compare two strings or two " +
            "numbers");
      return (left == right) == (op == "==");
    }
  }
  return evaluate_formula(text) != 0.0;
}

// if "COND" then "C1" ... [elif "COND" "C" ...] ... [else "C" ...], as LAMMPS's If: each COND is
// a formula (nonzero is true) or a comparison of strings (condition), and the commands of the
// first true branch run in order.
void Input::if_command(const std::vector<std::string>& a) {
  const char* usage = "if \"COND\" then \"C1\" ... [elif \"COND\" \"C\" ...] [else \"C\" ...]";
  need(a, 3, usage);
  if (a[1] != "then") bad(std::string("if: expected then after the condition; usage: ") + usage);
  std::size_t k = 0;
  while (k < a.size()) {
    bool taken = true;
    std::size_t first = k;
    if (k == 0) {
      taken = condition(expand(a[0]));
      first = 2;
    } else if (a[k] == "elif") {
      if (k + 1 >= a.size()) bad(std::string("if: elif needs a condition; usage: ") + usage);
      taken = condition(expand(a[k + 1]));
      first = k + 2;
    } else if (a[k] == "else") {
      first = k + 1;
    } else {
      bad("if: expected elif or else, got '" + a[k] + "'; usage: " + usage);
    }
    std::size_t end = first;
    while (end < a.size() && a[end] != "elif" && a[end] != "else") ++end;
    if (taken) {
      for (std::size_t c = first; c < end; ++c) execute(a[c]);
      return;
    }
    k = end;
  }
}

// run N [upto] [start N1] [stop N2] [pre yes|no] [post yes|no] [every M c1 c2 ...], as LAMMPS's
// Run::command: with every, the run goes in chunks of M steps with the commands after each
// (NULL: none); each chunk sets up unless pre is no, when only the first does.
void Input::run(const std::vector<std::string>& a) {
  const char* usage =
      "run N [upto] [start N1] [stop N2] [pre yes|no] [post yes|no] [every M c1 c2 ...]";
  need(a, 1, usage);
  // LAMMPS: N fits a 32-bit int; the step it ends at must fit 64 bits (Simulation::run).
  long long n = integer("run", a[0], 0, int_max);
  bool upto = false, pre = true, post = true;
  std::optional<std::int64_t> start, stop;
  long long every = 0;
  std::vector<std::string> commands;
  for (std::size_t k = 1; k < a.size(); ++k) {
    const std::string& key = a[k];
    auto value = [&]() -> const std::string& {
      if (k + 1 >= a.size()) bad("run: " + key + " needs a value; usage: " + usage);
      return a[++k];
    };
    if (key == "upto") {
      upto = true;
    } else if (key == "start") {
      start = integer("run start", value(), 0, bigint_max);
    } else if (key == "stop") {
      stop = integer("run stop", value(), 0, bigint_max);
    } else if (key == "pre") {
      pre = yes_no("run pre", value());
    } else if (key == "post") {
      post = yes_no("run post", value());
    } else if (key == "every") {
      every = integer("run every", value(), 1, int_max);
      commands.assign(a.begin() + static_cast<std::ptrdiff_t>(k) + 1, a.end());
      if (commands.size() == 1 && commands[0] == "NULL") commands.clear();
      break;
    } else {
      bad("run: unknown keyword '" + key + "'; usage: " + usage);
    }
  }
  if (upto) {
    if (n < sim().step())
      bad("run upto " + a[0] + ": the simulation is already at step " +
          std::to_string(sim().step()));
    n -= sim().step();
    if (n > int_max) bad("run upto " + a[0] + ": more than 2147483647 steps from here");
  }
  if (start && *start > sim().step())
    bad("run: the start value " + std::to_string(*start) + " is after the run's first step " +
        std::to_string(sim().step()));
  if (stop && *stop < sim().step() + n)
    bad("run: the stop value " + std::to_string(*stop) + " is before the run's last step " +
        std::to_string(sim().step() + n));
  if (every == 0) {
    run_chunk(n, {pre, start, stop}, post);
    return;
  }
  long long left = n;
  for (int chunk = 0; left > 0 || chunk == 0; ++chunk) {
    const long long steps = std::min(left, every);
    run_chunk(steps, {pre || chunk == 0, start, stop}, post || left <= steps);
    if (stopped_.signal) return;
    ++running_every_;
    struct Leave {
      int& depth;
      ~Leave() { --depth; }
    } leave{running_every_};
    for (const auto& command : commands) execute(command);
    left -= steps;
  }
}

void Input::min_style(const std::vector<std::string>& a) {
  need(a, 1, "min_style cg|sd|fire|fire/old");
  if (a.size() != 1) bad("min_style takes one style, cg, sd, fire or fire/old");
  if (a[0] != "cg" && a[0] != "sd" && a[0] != "fire" && a[0] != "fire/old")
    bad("min_style " + a[0] +
        ": md_ipu has cg, sd, fire and fire/old (LAMMPS's quickmin, hftn and the others are "
        "not supported)");
  min_.style = a[0];
}

// min_modify dmax D | norm two|max|inf | line quadratic, and fire's delaystep N | dtgrow G |
// dtshrink S | alpha0 A | alphashrink A | tmax T | tmin T | integrator eulerimplicit|verlet|
// leapfrog|eulerexplicit | halfstepback yes|no | initialdelay yes|no | vdfmax N
void Input::min_modify(const std::vector<std::string>& a) {
  const char* usage =
      "min_modify dmax D | norm two|max|inf | line quadratic | delaystep N | dtgrow G | dtshrink "
      "S | alpha0 A | alphashrink A | tmax T | tmin T | integrator eulerimplicit|verlet|leapfrog|"
      "eulerexplicit | halfstepback yes|no | initialdelay yes|no | vdfmax N";
  need(a, 2, usage);
  for (std::size_t i = 0; i < a.size(); i += 2) {
    if (i + 1 >= a.size()) bad("min_modify: keyword " + a[i] + " needs a value");
    const std::string& k = a[i];
    const std::string& v = a[i + 1];
    const std::string what = "min_modify " + k;
    auto positive = [&] {
      const double x = number(what, v);
      if (!(x > 0)) bad(what + ": must be positive");
      return x;
    };
    if (k == "dmax") {
      min_.dmax = number("min_modify dmax", v);
      if (!(min_.dmax > 0)) bad("min_modify dmax: the largest move must be positive");
    } else if (k == "norm") {
      if (v == "two")
        min_.norm = MinSettings::Norm::two;
      else if (v == "max")
        min_.norm = MinSettings::Norm::max;
      else if (v == "inf")
        min_.norm = MinSettings::Norm::inf;
      else
        bad("min_modify norm: use two, max or inf");
    } else if (k == "line") {
      if (v != "quadratic")
        bad("min_modify line " + v + ": md_ipu has the quadratic line search (LAMMPS's default)");
    } else if (k == "delaystep") {
      min_.delaystep = static_cast<int>(integer(what, v, 0, int_max));
    } else if (k == "dtgrow") {
      min_.dtgrow = number(what, v);
      if (!(min_.dtgrow >= 1.0)) bad(what + ": must be at least 1");
    } else if (k == "dtshrink") {
      min_.dtshrink = positive();
      if (!(min_.dtshrink <= 1.0)) bad(what + ": must be at most 1");
    } else if (k == "alpha0") {
      min_.alpha0 = number(what, v);
      if (!(min_.alpha0 >= 0 && min_.alpha0 <= 1)) bad(what + ": must be within 0..1");
    } else if (k == "alphashrink") {
      min_.alphashrink = positive();
      if (!(min_.alphashrink <= 1.0)) bad(what + ": must be at most 1");
    } else if (k == "tmax") {
      min_.tmax = positive();
    } else if (k == "tmin") {
      // LAMMPS's own example (fire/in.fire_mod_old) sets 0: the timestep may shrink freely.
      const double x = number(what, v);
      if (!(x >= 0)) bad(what + ": must not be negative");
      min_.tmin = x;
    } else if (k == "integrator") {
      using I = MinSettings::Integrator;
      if (v == "eulerimplicit")
        min_.integrator = I::euler_implicit;
      else if (v == "verlet")
        min_.integrator = I::verlet;
      else if (v == "leapfrog")
        min_.integrator = I::leapfrog;
      else if (v == "eulerexplicit")
        min_.integrator = I::euler_explicit;
      else
        bad(what + ": use eulerimplicit, verlet, leapfrog or eulerexplicit");
    } else if (k == "halfstepback") {
      min_.halfstepback = yes_no(what, v);
    } else if (k == "initialdelay") {
      min_.initialdelay = yes_no(what, v);
    } else if (k == "vdfmax") {
      min_.vdfmax = integer(what, v, 0, int_max);
    } else {
      bad("min_modify: unknown keyword '" + k + "'; usage: " + usage);
    }
  }
}

// minimize ETOL FTOL MAXITER MAXEVAL, with LAMMPS's output: its setup lines, thermo at the
// iterations thermo asks for and the last, the loop time and the minimization statistics.
void Input::minimize(const std::vector<std::string>& a) {
  need(a, 4, "minimize ETOL FTOL MAXITER MAXEVAL");
  if (a.size() != 4) bad("minimize takes four values: ETOL FTOL MAXITER MAXEVAL");
  MinSettings settings = min_;
  settings.etol = number("minimize", a[0]);
  settings.ftol = number("minimize", a[1]);
  settings.max_iterations = integer("minimize MAXITER", a[2], 0, int_max);
  settings.max_evaluations = integer("minimize MAXEVAL", a[3], 0, int_max);
  settings.normalize = thermo_->normalized(sim());
  if (settings.etol < 0 || settings.ftol < 0)
    bad("minimize: the energy and force tolerances must not be negative");
  const NeighborSettings& n = sim().neighbor();
  if (n.every != 1 || n.delay != 0 || !n.check)
    console_.print(
        "WARNING: Using 'neigh_modify every 1 delay 0 check yes' setting during "
        "minimization\n");
  console_.print("Setting up " + settings.style +
                 " style minimization ...\n  Unit style    : " + sim().units().style +
                 "\n  Current step  : " + std::to_string(sim().step()) + "\n");
  const std::int64_t first = sim().step();
  const auto wall_before = sim().runtime().profile().wall_seconds_by_name();
  const auto force_before = std::as_const(sim()).force_phase_seconds();
  const auto start = std::chrono::steady_clock::now();
  MinStats stats;
  try {
    stats = tessera::md::minimize(sim(), settings);
  } catch (const std::exception&) {
    end_dumps_after_error();
    throw;
  }
  publish_dumps(dump_list());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char buf[512];
  std::string text;
  // The numbers as LAMMPS's Finish prints them ({:18.15g} energies, {:.8} the others).
  std::snprintf(buf, sizeof buf, "Loop time of %g on %d procs for %lld steps with %lld atoms\n\n",
                seconds, sim().runtime().ranks(), static_cast<long long>(sim().step() - first),
                static_cast<long long>(sim().natoms()));
  text += buf;
  text += "Minimization stats:\n  Stopping criterion = " + stats.stop + "\n";
  std::snprintf(buf, sizeof buf,
                "  Energy initial, next-to-last, final = \n    %18.15g %18.15g %18.15g\n",
                stats.energy_initial, stats.energy_next_to_last, stats.energy_final);
  text += buf;
  std::snprintf(buf, sizeof buf,
                "  Force two-norm initial, final = %#.8g %#.8g\n"
                "  Force max component initial, final = %#.8g %#.8g\n"
                "  Final line search alpha, max atom move = %#.8g %#.8g\n"
                "  Iterations, force evaluations = %lld %lld\n\n",
                stats.force_two_norm_initial, stats.force_two_norm_final, stats.force_max_initial,
                stats.force_max_final, stats.alpha_final, stats.alpha_final * stats.force_max_final,
                stats.iterations, stats.evaluations);
  text += buf;
  // The stats end with a blank line already (const: see run_chunk).
  text += breakdown_since(std::as_const(sim()), sim().runtime(), wall_before, force_before, seconds)
              .substr(1);
  console_.print(text);
}

void Input::replicate(const std::vector<std::string>& a) {
  console_.print(tessera::md::replicate(sim(), a));
}

// read_dump FILE NSTEP FIELD... [keyword value ...], as LAMMPS's ReadDump::command
// (read_dump.hpp).
void Input::read_dump(const std::vector<std::string>& a) {
  const char* usage = "read_dump FILE NSTEP FIELD... [keyword value ...]";
  need(a, 3, usage);
  if (!sim().has_box()) bad("the simulation box is not defined; use create_box or read_data first");
  const std::int64_t step = integer("read_dump NSTEP", a[1], 0, bigint_max);
  const ReadDumpSettings settings = parse_read_dump("read_dump", a, 2, sim().dimension());
  console_.print("Scanning dump file ...\n");
  SharedDumpReader reader(sim(), {a[0]});
  if (!reader.seek(step, true))
    bad("read_dump: dump file '" + a[0] + "' has no snapshot at step " + a[1]);
  console_.print("Reading snapshot from dump file ...\n");
  const ReadDumpCounts c = reader.apply(settings);
  const Box& b = sim().box();
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "  orthogonal box = (%.8g %.8g %.8g) to (%.8g %.8g %.8g)\n"
                "  %lld atoms before read\n  %lld atoms in snapshot\n  %lld atoms purged\n"
                "  %lld atoms replaced\n  %lld atoms trimmed\n  %lld atoms added\n"
                "  %lld atoms after read\n",
                b.lo[0], b.lo[1], b.lo[2], b.hi[0], b.hi[1], b.hi[2],
                static_cast<long long>(c.before), static_cast<long long>(c.snapshot),
                static_cast<long long>(c.purged), static_cast<long long>(c.replaced),
                static_cast<long long>(c.trimmed), static_cast<long long>(c.added),
                static_cast<long long>(c.after));
  console_.print(buf);
}

// rerun FILE... [first N] [last N] [every N] [skip N] [start N] [stop N] dump FIELD... [keyword
// value ...], as LAMMPS's Rerun::command: for each snapshot chosen (the first at or after
// `first`, then as DumpReader::next chooses them), the snapshot is read as read_dump reads it
// (the step becomes its step), forces and energies are computed with the atoms where they are
// and the fixes' end_of_step run (Simulation::evaluate_snapshot), and the observers look at it:
// all at the first snapshot, thermo and dumps at steps that are multiples of their intervals,
// and thermo at the last. start and stop bound the steps (a snapshot after stop is an error).
void Input::rerun(const std::vector<std::string>& a) {
  const char* usage =
      "rerun FILE... [first N] [last N] [every N] [skip N] [start N] [stop N] dump FIELD... "
      "[keyword value ...]";
  need(a, 3, usage);
  if (!sim().has_box())
    bad("rerun: the simulation box is not defined; use create_box or read_data first");
  static const std::set<std::string> keywords{"first", "last", "every", "skip",
                                              "start", "stop", "dump"};
  std::size_t k = 0;
  std::vector<std::string> files;
  while (k < a.size() && !keywords.count(a[k])) files.push_back(a[k++]);
  if (files.empty()) bad("rerun: give the dump files first; usage: " + std::string(usage));
  std::int64_t first = 0, last = bigint_max - 1;
  int every = 0, skip = 1;
  std::optional<std::int64_t> start, stop;
  for (; k < a.size() && a[k] != "dump"; ++k) {
    const std::string& key = a[k];
    if (k + 1 >= a.size()) bad("rerun: " + key + " needs a value; usage: " + usage);
    const std::string& value = a[++k];
    if (key == "first")
      first = integer("rerun first", value, 0, bigint_max);
    else if (key == "last")
      last = integer("rerun last", value, 0, bigint_max);
    else if (key == "every")
      every = static_cast<int>(integer("rerun every", value, 0, int_max));
    else if (key == "skip")
      skip = static_cast<int>(integer("rerun skip", value, 1, int_max));
    else if (key == "start")
      start = integer("rerun start", value, 0, bigint_max);
    else
      stop = integer("rerun stop", value, 0, bigint_max);
  }
  if (k >= a.size())
    bad("rerun: the fields to read follow the keyword dump; usage: " + std::string(usage));
  if (first > last)
    bad("rerun: first " + std::to_string(first) + " is after last " + std::to_string(last));
  if (start && stop && *start > *stop) bad("rerun: start is after stop");
  const ReadDumpSettings settings = parse_read_dump("rerun", a, k + 1, sim().dimension());
  SharedDumpReader reader(sim(), files);
  std::optional<std::int64_t> step = reader.seek(first, false);
  if (!step)
    bad("rerun: the dump files have no snapshot at step " + std::to_string(first) + " or after it");
  const auto wall_start = std::chrono::steady_clock::now();
  long long snapshots = 0;
  try {
    for (bool first_snapshot = true; step; first_snapshot = false) {
      ++snapshots;
      reader.apply(settings);
      sim().evaluate_snapshot();
      const std::optional<std::int64_t> next = reader.next(*step, last, every, skip);
      if (stop && next && *next > *stop)
        bad("rerun: the dump has a snapshot at step " + std::to_string(*next) + ", after stop " +
            std::to_string(*stop));
      sim().observe(first_snapshot, !next);
      step = next;
    }
  } catch (const std::exception&) {
    end_dumps_after_error();
    throw;
  }
  publish_dumps(dump_list());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  char buf[256];
  std::snprintf(buf, sizeof buf, "Loop time of %g on %d procs for %lld steps with %lld atoms\n\n",
                seconds, sim().runtime().ranks(), snapshots,
                static_cast<long long>(sim().natoms()));
  console_.print(buf);
}

void Input::run_chunk(long long n, const Simulation::RunOptions& options, bool summary) {
  Runtime& rt = sim().runtime();
  const double simulated_before = rt.profile().simulated_seconds();
  const std::uint64_t supersteps_before = rt.profile().supersteps();
  const auto wall_before = rt.profile().wall_seconds_by_name();
  const auto force_before = std::as_const(sim()).force_phase_seconds();
  if (n > 0 && !sim().integrated() && !warned_unintegrated_) {
    console_.print(
        "WARNING: no fix integrates the atoms: they stay where they are during the "
        "run (said once)\n");
    warned_unintegrated_ = true;
  }
  try {
    sim().run(n, options);
  } catch (const std::exception&) {
    end_dumps_after_error();
    throw;
  }
  // The run's frames appear under the dumps' names together (dump.hpp).
  publish_dumps(dump_list());
  if (sim().stopped_by()) stopped_ = {sim().stopped_by(), sim().step(), location()};
  n = sim().last_run_steps();
  const double seconds = sim().last_run_seconds();
  const double simulated = rt.profile().simulated_seconds() - simulated_before;
  char buf[512];
  std::snprintf(buf, sizeof buf, "Loop time of %g on %d procs for %lld steps with %lld atoms\n\n",
                seconds, rt.ranks(), n, static_cast<long long>(sim().natoms()));
  std::string text = buf;
  if (!summary) {  // LAMMPS's post no: the loop time line alone
    console_.print(text);
    return;
  }
  if (n > 0 && seconds > 0) {
    const Units& u = sim().units();
    const double steps_per_second = static_cast<double>(n) / seconds;
    const double per_day =
        steps_per_second * 86400.0 * sim().timestep() * u.time_units_per_step_unit;
    const double atom_steps = steps_per_second * static_cast<double>(sim().natoms());
    if (u.style == "lj")
      std::snprintf(buf, sizeof buf,
                    "Performance: %.3f tau/day, %.3f timesteps/s, %.3f Matom-step/s\n", per_day,
                    steps_per_second, atom_steps * 1e-6);
    else
      std::snprintf(
          buf, sizeof buf,
          "Performance: %.3f ns/day, %.3f hours/ns, %.3f timesteps/s, %.3f Matom-step/s\n", per_day,
          24.0 / per_day, steps_per_second, atom_steps * 1e-6);
    text += buf;
  }
  // const: the non-const accessors of the simulation mark its state changed.
  text +=
      breakdown_since(std::as_const(sim()), sim().runtime(), wall_before, force_before, seconds);
  std::snprintf(
      buf, sizeof buf,
      "Simulated time on %s: %.6g s for %lld steps (%.6g s/step, %llu supersteps); %s per day\n\n",
      rt.target().name.c_str(), simulated, n, n > 0 ? simulated / static_cast<double>(n) : 0.0,
      static_cast<unsigned long long>(rt.profile().supersteps() - supersteps_before),
      n > 0 && simulated > 0 ? (std::to_string(static_cast<long long>(std::llround(
                                    86400.0 / (simulated / static_cast<double>(n)) *
                                    sim().timestep() * sim().units().time_units_per_step_unit))) +
                                (sim().units().style == "lj" ? " tau" : " ns"))
                                   .c_str()
                             : "-");
  text += buf;
  console_.print(text);
}

}  // namespace tessera::md
