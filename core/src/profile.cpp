#include "tessera/core/profile.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tessera/core/error.hpp"
#include "tessera/core/format.hpp"

namespace tessera {
namespace {

nlohmann::json cost_json(const SuperstepCost& c, const Target& t) {
  nlohmann::json j;
  SuperstepCost::for_each_field([&](const char* name, auto member) { j[name] = c.*member; });
  j["simulated_seconds"] = c.seconds(t);
  return j;
}

}  // namespace

Profile::Entry& Profile::entry(std::string_view name) {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    it = by_name_.emplace(std::string(name), Entry{}).first;
    it->second.name = std::make_shared<const std::string>(name);
  }
  return it->second;
}

void Profile::add(Entry& e, const SuperstepCost& cost, double wall_seconds) {
  const double seconds = cost.seconds(*target_);
  e.count += 1;
  e.cost += cost;
  e.simulated_seconds += seconds;
  e.wall_seconds += wall_seconds;
  if (timeline_.size() < timeline_limit) timeline_.push_back({e.name, cost, wall_seconds});
  ++supersteps_;
  total_ += cost;
  simulated_seconds_ += seconds;
  wall_seconds_ += wall_seconds;
}

void Profile::record(std::string_view name, const SuperstepCost& cost, double wall_seconds) {
  add(entry(name), cost, wall_seconds);
}

void Profile::record(std::string_view name, std::span<const SuperstepCost> costs,
                     double wall_seconds) {
  if (costs.empty()) return;
  Entry& e = entry(name);
  for (const SuperstepCost& cost : costs) add(e, cost, wall_seconds);
}

std::vector<std::pair<std::string, double>> Profile::wall_seconds_by_name() const {
  std::vector<std::pair<std::string, double>> out;
  out.reserve(by_name_.size());
  for (const auto& [name, e] : by_name_) out.emplace_back(name, e.wall_seconds);
  return out;
}

nlohmann::json Profile::to_json(const std::vector<std::uint64_t>& tile_high_water) const {
  nlohmann::json j;
  j["target"] = target_->to_json();
  j["totals"] = cost_json(total_, *target_);
  j["totals"]["supersteps"] = supersteps_;
  j["totals"]["wall_seconds"] = wall_seconds_;
  nlohmann::json phases = nlohmann::json::array();
  for (const auto& [name, e] : by_name_) {
    auto p = cost_json(e.cost, *target_);
    p["name"] = name;
    p["count"] = e.count;
    p["wall_seconds"] = e.wall_seconds;
    phases.push_back(std::move(p));
  }
  j["supersteps_by_name"] = std::move(phases);
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : timeline_) {
    auto p = cost_json(s.cost, *target_);
    p["name"] = *s.name;
    p["wall_seconds"] = s.wall_seconds;
    steps.push_back(std::move(p));
  }
  j["timeline"] = std::move(steps);
  j["timeline_truncated"] = supersteps_ > timeline_.size();
  std::uint64_t worst = 0;
  int worst_tile = 0;
  for (std::size_t i = 0; i < tile_high_water.size(); ++i)
    if (tile_high_water[i] > worst) worst = tile_high_water[i], worst_tile = static_cast<int>(i);
  j["memory"] = {{"tile_budget_bytes", target_->tile_memory_bytes},
                 {"worst_tile", worst_tile},
                 {"worst_tile_high_water_bytes", worst},
                 {"tile_high_water_bytes", tile_high_water}};
  return j;
}

std::string Profile::summary(const std::vector<std::uint64_t>& tile_high_water) const {
  std::ostringstream out;
  const Target& t = *target_;
  const double sim = simulated_seconds_;
  auto share = [&](double seconds) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%5.1f%%", sim > 0 ? 100.0 * seconds / sim : 0.0);
    return std::string(buf);
  };
  out << "---- Tessera profile: target " << t.name << " (" << t.ipus << " IPU"
      << (t.ipus == 1 ? "" : "s") << " x " << t.tiles_per_ipu << " tiles) ----\n";
  out << "simulated time   " << format_seconds(sim) << " in " << supersteps_ << " supersteps"
      << "   (host wall time " << format_seconds(wall_seconds_) << ")\n";
  out << "  compute        " << share(t.seconds(total_.compute_cycles)) << "\n";
  out << "  exchange       " << share(t.seconds(total_.exchange_cycles)) << "  "
      << format_bytes(static_cast<double>(total_.exchange_bytes)) << " between tiles\n";
  if (total_.rearrange_cycles > 0)
    out << "  rearrangement  " << share(t.seconds(total_.rearrange_cycles)) << "\n";
  out << "  sync           " << share(t.seconds(total_.sync_cycles)) << "\n";
  if (total_.link_bytes > 0 || total_.gateway_bytes > 0) {
    out << "  IPU-Links      " << share(total_.link_seconds) << "  "
        << format_bytes(static_cast<double>(total_.link_bytes)) << "\n";
    out << "  gateway        " << share(total_.gateway_seconds) << "  "
        << format_bytes(static_cast<double>(total_.gateway_bytes)) << "\n";
  }
  if (total_.host_bytes > 0)
    out << "  host I/O       " << share(total_.host_seconds) << "  "
        << format_bytes(static_cast<double>(total_.host_bytes)) << "\n";
  std::uint64_t worst = 0;
  std::size_t worst_tile = 0;
  for (std::size_t i = 0; i < tile_high_water.size(); ++i)
    if (tile_high_water[i] > worst) worst = tile_high_water[i], worst_tile = i;
  out << "worst tile memory " << format_bytes(static_cast<double>(worst)) << " (tile " << worst_tile
      << ")";
  if (t.memory_limited())
    out << " of " << format_bytes(static_cast<double>(t.tile_memory_bytes)) << " ("
        << static_cast<int>(
               100.0 * static_cast<double>(worst) / static_cast<double>(t.tile_memory_bytes) + 0.5)
        << "%)";
  out << "\n";
  return out.str();
}

}  // namespace tessera
