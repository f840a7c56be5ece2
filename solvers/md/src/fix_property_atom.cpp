#include "tessera/md/fix_property_atom.hpp"

#include <cctype>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixPropertyAtom::FixPropertyAtom(const FixArguments& a) : Fix(a.id, a.group) {
  const std::string what = "fix " + a.id + " property/atom";
  const std::string usage =
      "fix ID GROUP property/atom i_NAME|d_NAME|i2_NAME N|d2_NAME N ... "
      "[ghost yes|no]";
  if (a.from_restart || a.sim == nullptr)
    arguments::bad(what + ": custom per-atom properties are not kept in restart files");
  arguments::need(a.args, 1, usage);
  Simulation& sim = *a.sim;
  // (name, property) in the order given; the columns of all of them in one per-atom vector.
  std::vector<std::pair<std::string, Simulation::CustomProperty>> wanted;
  std::size_t width = 0;
  for (std::size_t k = 0; k < a.args.size(); ++k) {
    const std::string& word = a.args[k];
    if (word == "ghost") {
      if (k + 1 >= a.args.size()) arguments::bad(what + ": ghost needs yes or no");
      arguments::yes_no(what + " ghost", a.args[++k]);
      continue;
    }
    if (word == "mol" || word == "q" || word == "rmass" || word == "temperature" ||
        word == "heatflow")
      arguments::bad(what + ": '" + word +
                     "' is not supported: md_ipu's atoms have per-type masses and no molecules, "
                     "and carry charges only under atom_style charge; use i_NAME or d_NAME");
    Simulation::CustomProperty p;
    std::string name;
    if (word.rfind("i_", 0) == 0 || word.rfind("d_", 0) == 0) {
      p.integer = word[0] == 'i';
      name = word.substr(2);
    } else if (word.rfind("i2_", 0) == 0 || word.rfind("d2_", 0) == 0) {
      p.integer = word[0] == 'i';
      p.array = true;
      name = word.substr(3);
      if (k + 1 >= a.args.size()) arguments::bad(what + ": " + word + " needs its column count");
      p.columns = static_cast<std::size_t>(
          arguments::integer(what + " " + word, a.args[++k], 1, arguments::int_max));
    } else {
      arguments::bad(what + ": unknown property '" + word + "'; usage: " + usage);
    }
    if (name.empty()) arguments::bad(what + ": '" + word + "' has no name after its prefix");
    for (const char c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
        arguments::bad(what + ": the name '" + name +
                       "' may hold only letters, digits and underscores");
    for (const auto& [other, unused] : wanted)
      if (other == name) arguments::bad(what + ": the name '" + name + "' is given twice");
    if (sim.custom_property(name))
      arguments::bad(what + ": the custom per-atom property '" + name +
                     "' exists already (another fix property/atom made it)");
    p.handle = static_cast<int>(width);  // its column within this fix's vector, for now
    width += p.columns;
    wanted.emplace_back(name, p);
  }
  if (wanted.empty()) arguments::bad(what + ": no property given; usage: " + usage);
  handle_ = sim.add_per_atom(width);
  for (auto& [name, p] : wanted) {
    const auto column = static_cast<std::size_t>(p.handle);
    p.handle = handle_;
    p.offset = column;
    sim.add_custom_property(name, p);
    names_.push_back(name);
  }
}

void FixPropertyAtom::release(Simulation& sim) {
  for (const std::string& name : names_) sim.remove_custom_property(name);
  sim.remove_per_atom(handle_);
}

std::string FixPropertyAtom::restart_refusal() const {
  return "md_ipu's restart files do not keep custom per-atom properties; unfix it first";
}

}  // namespace tessera::md
