// pair_style hybrid and hybrid/overlay (pair_hybrid.hpp), following LAMMPS's pair_hybrid.cpp and
// pair_hybrid_overlay.cpp (29 Sep 2021): settings, coeff, init_style's skip lists, init_one's
// mixing rule and modify_params.
#include "tessera/md/pair_hybrid.hpp"

#include <algorithm>
#include <array>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/kernel_work.hpp"

namespace tessera::md {

using arguments::bad;

PairHybrid::PairHybrid(const PairContext& context, bool overlay)
    : context_(context), overlay_(overlay) {}

void PairHybrid::settings(const std::vector<std::string>& args) {
  const std::string usage = "pair_style " + style() + " STYLE1 ARGS... [STYLE2 ARGS...]";
  if (args.empty()) bad(usage);
  // As LAMMPS's: the old sub-styles and their coefficients go.
  subs_.clear();
  map_.clear();
  set_.clear();
  commands_.clear();
  // The sub-styles' context: masses from their files, except while a restart file's commands
  // are replayed (the file's masses stand).
  PairContext context = context_;
  context.set_mass = [this](int type, double mass) {
    if (!replaying_ && context_.set_mass) context_.set_mass(type, mass);
  };
  const auto& styles = pair_styles();
  for (std::size_t k = 0; k < args.size();) {
    const std::string& name = args[k];
    if (name.rfind("hybrid", 0) == 0)
      bad("pair_style " + style() + " cannot have " + name + " as a sub-style");
    if (name == "none") bad("pair_style " + style() + " cannot have none as a sub-style");
    if (name == "deepmd")
      bad("pair_style " + style() +
          ": deepmd cannot be a sub-style in md_ipu (its model deviation and ghost returns are "
          "the whole system's); use pair_style deepmd alone");
    if (!styles.has(name))
      bad("pair_style " + style() + ": " + name + " is not a pair style md_ipu has (" +
          styles.listing() + "); " + usage);
    std::size_t end = k + 1;
    while (end < args.size() && !styles.has(args[end]) && args[end] != "none" &&
           args[end].rfind("hybrid", 0) != 0)
      ++end;
    Sub sub;
    sub.name = name;
    sub.pair = styles.make(name, context);
    sub.pair->settings(std::vector<std::string>(args.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                                                args.begin() + static_cast<std::ptrdiff_t>(end)));
    subs_.push_back(std::move(sub));
    k = end;
  }
  for (std::size_t a = 0; a < subs_.size(); ++a) {
    int count = 0, index = 0;
    for (std::size_t b = 0; b < subs_.size(); ++b)
      if (subs_[b].name == subs_[a].name) {
        ++count;
        if (b == a) index = count;
      }
    subs_[a].instance = count > 1 ? index : 0;
  }
  settings_ = args;
}

std::string PairHybrid::sub_label(std::size_t k) const {
  std::string label = subs_[k].name;
  if (subs_[k].instance > 0) label.append(" ").append(std::to_string(subs_[k].instance));
  return label;
}

// The sub-style args[0] (with its instance number args[1] when several share the name); `used`:
// how many words named it.
std::size_t PairHybrid::find_sub(const std::vector<std::string>& args, std::size_t& used) const {
  const std::string& name = args[0];
  bool several = false;
  for (const Sub& s : subs_) several = several || (s.name == name && s.instance > 0);
  if (!several) {
    for (std::size_t k = 0; k < subs_.size(); ++k)
      if (subs_[k].name == name) {
        used = 1;
        return k;
      }
  } else {
    if (args.size() < 2)
      bad("pair_style " + style() + " has several " + name + " sub-styles: name one by number (" +
          name + " 1, " + name + " 2, ...)");
    const auto n = arguments::integer("pair_style " + style() + " " + name, args[1], 1,
                                      static_cast<long long>(subs_.size()));
    for (std::size_t k = 0; k < subs_.size(); ++k)
      if (subs_[k].name == name && subs_[k].instance == n) {
        used = 2;
        return k;
      }
  }
  std::string known;
  for (std::size_t k = 0; k < subs_.size(); ++k) known += (k ? ", " : "") + sub_label(k);
  bad("pair_style " + style() + " has no sub-style " + name + " (it has " + known + ")");
}

void PairHybrid::coeff(const std::vector<std::string>& args, int types) {
  if (subs_.empty()) bad("pair_coeff before pair_style " + style() + " STYLE ...");
  if (args.size() < 3)
    bad("pair_coeff for pair_style " + style() + ": I J STYLE [K] COEFFS... | I J none");
  const auto [ilo, ihi] = arguments::type_range("pair_coeff", args[0], types);
  const auto [jlo, jhi] = arguments::type_range("pair_coeff", args[1], types);
  const auto width = static_cast<std::size_t>(types) + 1;
  if (map_.size() != width) {
    map_.assign(width, std::vector<std::vector<int>>(width));
    set_.assign(width, std::vector<char>(width, 0));
  }
  const bool none = args[2] == "none";
  if (none && args.size() != 3) bad("pair_coeff I J none takes nothing after none");
  std::size_t k = 0, used = 0;
  if (!none) {
    k = find_sub(std::vector<std::string>(args.begin() + 2, args.end()), used);
    std::vector<std::string> sub_args{args[0], args[1]};
    sub_args.insert(sub_args.end(), args.begin() + 2 + static_cast<std::ptrdiff_t>(used),
                    args.end());
    subs_[k].pair->coeff(sub_args, types);
    // A many-body style's second `* * FILE ...` may leave out types its first had: their pairs
    // leave it (LAMMPS unsets them for its one_coeff styles).
    for (std::size_t i = 1; i < width; ++i)
      for (std::size_t j = i; j < width; ++j) {
        auto& styles = map_[i][j];
        const auto at = std::find(styles.begin(), styles.end(), static_cast<int>(k));
        if (at != styles.end() &&
            !subs_[k].pair->has_coeff(static_cast<int>(i), static_cast<int>(j))) {
          styles.erase(at);
          if (styles.empty()) set_[i][j] = 0;
        }
      }
  }
  int count = 0;
  for (int i = ilo; i <= ihi; ++i)
    for (int j = std::max(jlo, i); j <= jhi; ++j) {
      auto& styles = map_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      char& set = set_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      if (none) {
        set = 1;
        styles.clear();
        ++count;
      } else if (subs_[k].pair->has_coeff(i, j)) {
        set = 1;
        if (!overlay_) styles.clear();
        if (std::find(styles.begin(), styles.end(), static_cast<int>(k)) == styles.end())
          styles.push_back(static_cast<int>(k));
        ++count;
      }
    }
  if (count == 0)
    bad("pair_coeff " + args[0] + " " + args[1] + " " + args[2] +
        " gives no type pair I <= J coefficients");
  commands_.push_back({{"coeff", args}});
}

void PairHybrid::modify(const std::vector<std::string>& args) {
  if (args.empty()) bad("pair_modify needs keywords");
  if (args[0] == "pair") {
    if (args.size() < 2) bad("pair_modify pair STYLE [K] KEYWORD VALUE ...");
    std::size_t used = 0;
    const std::size_t k = find_sub(std::vector<std::string>(args.begin() + 1, args.end()), used);
    const std::vector<std::string> rest(args.begin() + 1 + static_cast<std::ptrdiff_t>(used),
                                        args.end());
    if (!rest.empty() && (rest[0] == "special" || rest[0] == "compute/tally"))
      bad("pair_modify pair " + sub_label(k) + " " + rest[0] +
          " is not supported (md_ipu has no bonds, so no special neighbors, and no tally "
          "computes)");
    subs_[k].pair->modify(rest);
  } else {
    // As LAMMPS's: every sub-style gets the keywords; those that have no use for them (LAMMPS
    // ignores them there) are passed over, but at least one must take them.
    std::optional<ConfigError> first;
    bool taken = false;
    for (Sub& s : subs_) {
      try {
        s.pair->modify(args);
        taken = true;
      } catch (const ConfigError& e) {
        if (!first) first = e;
      }
    }
    if (!taken && first) throw *first;
  }
  commands_.push_back({{"modify", args}});
}

bool PairHybrid::has_coeff(int i, int j) const {
  return static_cast<std::size_t>(j) < set_.size() &&
         set_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
}

double PairHybrid::init(int types, std::size_t tiles) {
  if (subs_.empty()) bad("pair_style " + style() + " has no sub-styles");
  // LAMMPS's CHARMM force-switched styles switch the Coulomb constant of every Coulomb term (it
  // is global there); here each style keeps its own, so another charged sub-style beside one
  // would silently keep the units' constant.
  if (coulomb_constant())
    for (std::size_t k = 0; k < subs_.size(); ++k)
      if (subs_[k].pair->needs_charges() && !subs_[k].pair->coulomb_constant())
        bad("pair_style " + style() + ": a sub-style brings CHARMM's Coulomb constant, which " +
            "LAMMPS then uses for every Coulomb term, and " + sub_label(k) +
            " would keep the units' own; md_ipu cannot switch it for " + sub_label(k) + " yet");
  const auto width = static_cast<std::size_t>(types) + 1;
  if (map_.size() != width) {
    map_.assign(width, std::vector<std::vector<int>>(width));
    set_.assign(width, std::vector<char>(width, 0));
  }
  types_ = types;
  // LAMMPS's init_style, before any mixing: every sub-style has a pair of its own.
  for (std::size_t k = 0; k < subs_.size(); ++k) {
    bool used = false;
    for (std::size_t i = 1; i < width; ++i)
      for (std::size_t j = i; j < width; ++j)
        used = used || std::find(map_[i][j].begin(), map_[i][j].end(), static_cast<int>(k)) !=
                           map_[i][j].end();
    if (!used)
      bad("pair_style " + style() + ": sub-style " + sub_label(k) +
          " is used by no type pair (LAMMPS: Pair hybrid sub-style is not used)");
  }
  uses_.assign(subs_.size(), std::vector<char>(width * width, 0));
  for (std::size_t i = 1; i < width; ++i)
    for (std::size_t j = i; j < width; ++j) {
      std::vector<int> styles = map_[i][j];
      if (!set_[i][j]) {
        // LAMMPS's init_one: mixed by the like pairs' one sub-style, or refused.
        const auto& a = map_[i][i];
        const auto& b = map_[j][j];
        if (a.size() != 1 || b.size() != 1 || a[0] != b[0])
          bad("pair_style " + style() + ": no pair_coeff for types " + std::to_string(i) + " " +
              std::to_string(j) + ", and types " + std::to_string(i) + " " + std::to_string(i) +
              " and " + std::to_string(j) + " " + std::to_string(j) +
              " do not have one sub-style in common to mix it by (LAMMPS: All pair coeffs are "
              "not set)");
        styles = a;
      }
      for (int k : styles)
        uses_[static_cast<std::size_t>(k)][i * width + j] =
            uses_[static_cast<std::size_t>(k)][j * width + i] = 1;
    }
  double cut = 0;
  std::size_t forwarding = 0;
  full_ = false;
  for (std::size_t k = 0; k < subs_.size(); ++k) {
    const auto& uses = uses_[k];
    Pair& p = *subs_[k].pair;
    p.set_active_pairs(std::vector<bool>(uses.begin(), uses.end()));
    cut = std::max(cut, p.init(types, tiles));
    full_ = full_ || p.full_list();
    if (p.forward_per_atom() > 0) ++forwarding;
  }
  if (forwarding > 1)
    bad("pair_style " + style() +
        ": more than one sub-style sends per-atom values to ghosts before the forces (eam's "
        "F'(rho)); md_ipu allows one");
  tiles_.clear();
  tiles_.resize(tiles);
  return cut;
}

std::optional<std::array<double, 2>> PairHybrid::tail_correction(
    std::span<const double> type_counts) const {
  std::optional<std::array<double, 2>> sum;
  for (const Sub& s : subs_)
    if (const auto tail = s.pair->tail_correction(type_counts)) {
      if (!sum) sum = std::array<double, 2>{0, 0};
      (*sum)[0] += (*tail)[0];
      (*sum)[1] += (*tail)[1];
    }
  return sum;
}

bool PairHybrid::tallies_per_atom() const {
  return std::all_of(subs_.begin(), subs_.end(),
                     [](const Sub& s) { return s.pair->tallies_per_atom(); });
}

bool PairHybrid::needs_charges() const {
  return std::any_of(subs_.begin(), subs_.end(),
                     [](const Sub& s) { return s.pair->needs_charges(); });
}

std::optional<double> PairHybrid::long_range_cutoff() const {
  std::optional<double> cut;
  for (const Sub& s : subs_)
    if (const auto c = s.pair->long_range_cutoff()) {
      if (cut && *cut != *c)
        throw ConfigError("pair_style " + style() +
                          ": its long-range sub-styles have different Coulomb cutoffs");
      cut = c;
    }
  return cut;
}

void PairHybrid::set_g_ewald(double g_ewald) {
  for (Sub& s : subs_) s.pair->set_g_ewald(g_ewald);
}

const CharmmOneFour* PairHybrid::charmm_one_four() const {
  for (const auto& sub : subs_)
    if (const CharmmOneFour* one_four = sub.pair->charmm_one_four()) return one_four;
  return nullptr;
}

std::optional<double> PairHybrid::coulomb_constant() const {
  for (const auto& sub : subs_)
    if (const auto constant = sub.pair->coulomb_constant()) return constant;
  return std::nullopt;
}

void PairHybrid::set_dielectric(double dielectric) {
  for (Sub& s : subs_) s.pair->set_dielectric(dielectric);
}

bool PairHybrid::full_list() const {
  return std::any_of(subs_.begin(), subs_.end(), [](const Sub& s) { return s.pair->full_list(); });
}

std::size_t PairHybrid::forward_per_atom() const {
  for (const Sub& s : subs_)
    if (const std::size_t n = s.pair->forward_per_atom()) return n;
  return 0;
}

// Each sub-style's list: the pairs of its types, from the system's list as the last rebuild made
// it. From a full list a half-list sub-style keeps each pair once: an owned pair on the side of
// the lower index, a ghost pair on the side of the smaller id (the system's own half-list rule).
PairHybrid::TileLists& PairHybrid::lists(PairTile& t) {
  auto& slot = tiles_[t.slot];
  if (!slot) {
    slot = std::make_unique<TileLists>();
    for (std::size_t k = 0; k < subs_.size(); ++k) {
      slot->begin.push_back(t.tile.make_vector<int>("md.hybrid_neighbor_list"));
      slot->list.push_back(t.tile.make_vector<int>("md.hybrid_neighbor_list"));
    }
  }
  TileLists& l = *slot;
  if (l.built && !t.lists_rebuilt) return l;
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  const auto width = static_cast<std::size_t>(types_) + 1;
  for (std::size_t k = 0; k < subs_.size(); ++k) {
    const std::vector<char>& uses = uses_[k];
    const bool half_from_full = full_ && !subs_[k].pair->full_list();
    TileVector<int>& begin = l.begin[k];
    TileVector<int>& list = l.list[k];
    begin.resize(nlocal + 1);
    list.clear();
    begin[0] = 0;
    for (std::size_t i = 0; i < nlocal; ++i) {
      const std::size_t row = static_cast<std::size_t>(t.type[i]) * width;
      for (int n = t.begin[i]; n < t.begin[i + 1]; ++n) {
        const int j = t.list[static_cast<std::size_t>(n)];
        const auto u = static_cast<std::size_t>(j);
        if (!uses[row + static_cast<std::size_t>(t.type[u])]) continue;
        // Each pair on one side: the lower index, or the smaller id of a ghost pair.
        if (half_from_full && !(u < nlocal ? u > i : t.id[i] < t.ghost_id[u - nlocal])) continue;
        list.push_back(j);
      }
      begin[i + 1] = static_cast<int>(list.size());
    }
  }
  t.tile.charge(hybrid_filter_work, subs_.size() * static_cast<std::uint64_t>(
                                                       t.begin[static_cast<std::size_t>(nlocal)]));
  l.built = true;
  return l;
}

PairTile PairHybrid::sub_tile(PairTile& t, TileLists& l, std::size_t k) const {
  PairTile s = t;
  s.begin = std::span<const int>(l.begin[k].data(), l.begin[k].size());
  s.list = std::span<const int>(l.list[k].data(), l.list[k].size());
  s.energy = s.energy_coul = 0;
  s.virial = {};
  return s;
}

void PairHybrid::compute_forward(PairTile& t, std::span<double> owned) {
  TileLists& l = lists(t);
  l.fresh = true;
  for (std::size_t k = 0; k < subs_.size(); ++k)
    if (subs_[k].pair->forward_per_atom() > 0) {
      PairTile s = sub_tile(t, l, k);
      subs_[k].pair->compute_forward(s, owned);
    }
}

void PairHybrid::compute(PairTile& t) {
  TileLists& l = tiles_[t.slot] && tiles_[t.slot]->fresh ? *tiles_[t.slot] : lists(t);
  l.fresh = false;
  double energy = 0, energy_coul = 0;
  std::array<double, 6> virial{};
  for (std::size_t k = 0; k < subs_.size(); ++k) {
    PairTile s = sub_tile(t, l, k);
    subs_[k].pair->compute(s);
    if (t.energy_virial) {
      energy += s.energy;
      energy_coul += s.energy_coul;
      for (std::size_t c = 0; c < 6; ++c) virial[c] += s.virial[c];
    }
  }
  if (t.energy_virial) {
    t.energy = energy;
    t.energy_coul = energy_coul;
    t.virial = virial;
  }
}

void PairHybrid::end_of_step(Runtime& runtime, std::int64_t step, std::int64_t natoms) {
  for (Sub& s : subs_) s.pair->end_of_step(runtime, step, natoms);
}

void PairHybrid::continue_outputs() {
  for (Sub& s : subs_) s.pair->continue_outputs();
}

void PairHybrid::data_coeff(const std::vector<std::string>& words, int types) {
  if (words.size() < 2)
    bad("a Pair Coeffs line of pair_style " + style() + ": TYPE STYLE COEFF...");
  std::vector<std::string> args{words[0], words[0]};
  args.insert(args.end(), words.begin() + 1, words.end());
  coeff(args, types);
}

nlohmann::json PairHybrid::restart_section() const {
  return {{"style", style()}, {"settings", settings_}, {"commands", commands_}};
}

// The settings and then every pair_coeff and pair_modify in their order, the files read again
// (LAMMPS keeps the sub-styles' settings; its users give pair_coeff again).
void PairHybrid::restore(const nlohmann::json& p, const detail::RestartHeader& r, int types) {
  settings(r.texts(r.at(p, "settings", "pair.settings"), "pair.settings"));
  const auto& commands = r.at(p, "commands", "pair.commands");
  if (!commands.is_array()) r.fail("has pair.commands that is not a list");
  replaying_ = true;
  try {
    for (std::size_t k = 0; k < commands.size(); ++k) {
      const std::string name = "pair.commands[" + std::to_string(k) + "]";
      const auto& c = commands[k];
      if (c.is_object() && c.contains("coeff"))
        coeff(r.texts(c.at("coeff"), name), types);
      else if (c.is_object() && c.contains("modify"))
        modify(r.texts(c.at("modify"), name));
      else
        r.fail("has " + name + " that is neither a pair_coeff nor a pair_modify");
    }
  } catch (...) {
    replaying_ = false;
    throw;
  }
  replaying_ = false;
}

std::size_t PairHybrid::replicated_bytes() const {
  std::size_t bytes = 0;
  for (const Sub& sub : subs_) bytes += sub.pair->replicated_bytes();
  return bytes;
}

}  // namespace tessera::md
