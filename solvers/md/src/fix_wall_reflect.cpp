#include "tessera/md/fix_wall_reflect.hpp"

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

namespace {
const char* const face_names[] = {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi"};
}  // namespace

bool ReflectingFaces::is_face(const std::string& word) {
  for (const char* f : face_names)
    if (word == f) return true;
  return false;
}

void ReflectingFaces::add(const std::string& face, const std::string& coord) {
  int f = 0;
  while (face != face_names[f]) ++f;
  Face p{{f / 2, f % 2 == 1, 0.0}, coord == "EDGE"};
  for (const auto& other : faces_)
    if (other.wall.dim == p.wall.dim && other.wall.upper == p.wall.upper)
      arguments::bad(what_ + ": face " + face + " is given twice");
  if (!p.edge) {
    if (coord.rfind("v_", 0) == 0)
      arguments::bad(what_ + ": a variable wall position (" + coord + ") is not supported");
    p.wall.coord = arguments::number(what_ + " " + face, coord);
  }
  faces_.push_back(p);
}

void ReflectingFaces::set_units(const std::string& units) {
  if (units != "box" && units != "lattice")
    arguments::bad(what_ + ": units must be box or lattice");
  lattice_units_ = units == "lattice";
}

std::vector<ReflectingWall> ReflectingFaces::place(const Simulation* sim,
                                                   const std::array<double, 3>& lattice) const {
  if (!sim || !sim->has_box()) arguments::bad(what_ + ": the simulation box is not defined yet");
  std::vector<ReflectingWall> walls;
  for (const auto& p : faces_) {
    ReflectingWall w = p.wall;
    const auto d = static_cast<std::size_t>(w.dim);
    if (sim->boundary().periodic(d))
      arguments::bad(what_ + ": the wall at " + face_names[2 * w.dim + (w.upper ? 1 : 0)] +
                     " is on a periodic dimension; make it non-periodic with boundary");
    if (sim->dimension() == 2 && w.dim == 2)
      arguments::bad(what_ + ": a 2-d simulation has no z walls");
    if (p.edge)
      w.coord = w.upper ? sim->box().hi[d] : sim->box().lo[d];
    else if (lattice_units_)
      w.coord *= lattice[d];
    walls.push_back(w);
  }
  return walls;
}

FixWallReflect::FixWallReflect(const FixArguments& a) : Fix(a.id, a.group) {
  if (a.from_restart) return;
  const std::string what = "fix wall/reflect";
  arguments::need(a.args, 2, "fix ID GROUP wall/reflect FACE COORD ... [units lattice|box]");
  ReflectingFaces faces(what);
  for (std::size_t i = 0; i < a.args.size(); i += 2) {
    if (i + 1 >= a.args.size()) arguments::bad(what + ": " + a.args[i] + " needs a value");
    const std::string& key = a.args[i];
    if (key == "units")
      faces.set_units(a.args[i + 1]);
    else if (ReflectingFaces::is_face(key))
      faces.add(key, a.args[i + 1]);
    else
      arguments::bad(what + ": unknown face or keyword '" + key +
                     "'; use xlo xhi ylo yhi zlo zhi and units");
  }
  walls_ = faces.place(a.sim, a.lattice);
}

void FixWallReflect::post_integrate(FixTile& t) {
  for (const ReflectingWall& w : walls_) {
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
