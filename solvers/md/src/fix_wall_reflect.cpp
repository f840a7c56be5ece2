#include "tessera/md/fix_wall_reflect.hpp"

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixWallReflect::FixWallReflect(const FixArguments& a) : Fix(a.id, a.group) {
  if (a.from_restart) return;
  const std::string what = "fix wall/reflect";
  const char* usage = "fix ID GROUP wall/reflect FACE COORD ... [units lattice|box]";
  arguments::need(a.args, 2, usage);
  static const char* const faces[] = {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi"};
  struct Pending {
    Wall wall;
    bool edge;
  };
  std::vector<Pending> pending;
  bool lattice_units = true;
  for (std::size_t i = 0; i < a.args.size(); i += 2) {
    if (i + 1 >= a.args.size()) arguments::bad(what + ": " + a.args[i] + " needs a value");
    const std::string& key = a.args[i];
    const std::string& value = a.args[i + 1];
    if (key == "units") {
      if (value != "box" && value != "lattice")
        arguments::bad(what + ": units must be box or lattice");
      lattice_units = value == "lattice";
      continue;
    }
    int face = -1;
    for (int f = 0; f < 6; ++f)
      if (key == faces[f]) face = f;
    if (face < 0)
      arguments::bad(what + ": unknown face or keyword '" + key +
                     "'; use xlo xhi ylo yhi zlo zhi and units");
    Pending p{{face / 2, face % 2 == 1, 0.0}, value == "EDGE"};
    for (const auto& other : pending)
      if (other.wall.dim == p.wall.dim && other.wall.upper == p.wall.upper)
        arguments::bad(what + ": face " + key + " is given twice");
    if (!p.edge) {
      if (value.rfind("v_", 0) == 0)
        arguments::bad(what + ": a variable wall position (" + value + ") is not supported");
      p.wall.coord = arguments::number(what + " " + key, value);
    }
    pending.push_back(p);
  }
  const Simulation* sim = a.sim;
  if (!sim || !sim->has_box()) arguments::bad(what + ": the simulation box is not defined yet");
  for (auto& p : pending) {
    const auto d = static_cast<std::size_t>(p.wall.dim);
    if (sim->boundary().periodic(d))
      arguments::bad(what + ": the wall at " + faces[2 * p.wall.dim + (p.wall.upper ? 1 : 0)] +
                     " is on a periodic dimension; make it non-periodic with boundary");
    if (sim->dimension() == 2 && p.wall.dim == 2)
      arguments::bad(what + ": a 2-d simulation has no z walls");
    if (p.edge)
      p.wall.coord = p.wall.upper ? sim->box().hi[d] : sim->box().lo[d];
    else if (lattice_units)
      p.wall.coord *= a.lattice[d];
    walls_.push_back(p.wall);
  }
}

void FixWallReflect::post_integrate(FixTile& t) {
  for (const Wall& w : walls_) {
    const auto d = static_cast<std::size_t>(w.dim);
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
      if (!in_group(t, i)) continue;
      double& x = t.x[3 * i + d];
      if (w.upper ? x > w.coord : x < w.coord) {
        x = w.coord + (w.coord - x);
        t.v[3 * i + d] = -t.v[3 * i + d];
      }
    }
  }
}

nlohmann::json FixWallReflect::restart_section() const {
  nlohmann::json walls = nlohmann::json::array();
  for (const auto& w : walls_) walls.push_back({w.dim, w.upper, w.coord});
  return {{"walls", walls}};
}

void FixWallReflect::restore(const nlohmann::json& section, const detail::RestartHeader& r,
                             const std::string& where) {
  const auto& walls = r.at(section, "walls", where + ".walls");
  if (!walls.is_array() || walls.empty() || walls.size() > 6)
    r.fail("has " + where + ".walls = " + walls.dump() + ", not 1 to 6 walls");
  for (std::size_t k = 0; k < walls.size(); ++k) {
    const std::string name = where + ".walls[" + std::to_string(k) + "]";
    const auto& w = walls[k];
    if (!w.is_array() || w.size() != 3 || !w[1].is_boolean())
      r.fail("has " + name + " = " + w.dump() + ", not [dimension, upper, coordinate]");
    walls_.push_back(
        {static_cast<int>(r.integer(w[0], name + "[0]", 0, 2, "fix wall/reflect")),
         w[1].get<bool>(),
         r.real(w[2], name + "[2]", detail::RestartHeader::Sign::any, "fix wall/reflect")});
  }
}

}  // namespace tessera::md
