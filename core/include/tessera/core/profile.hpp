// Profile: the cost model's account of a run, superstep by superstep.
//
// Supersteps are aggregated by name (count, phase cycles, bytes, simulated and
// wall time); the first `timeline_limit` supersteps are also kept one by one.
// The runtime writes it as JSON (--profile FILE.json) and prints a summary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/core/cost_model.hpp"
#include "tessera/core/target.hpp"

namespace tessera {

class Profile {
 public:
  static constexpr std::size_t timeline_limit = 10000;

  // The timeline's room is reserved at once (pages are touched as it fills), so that
  // recording a superstep never moves the timeline.
  explicit Profile(const Target& target) : target_(&target) { timeline_.reserve(timeline_limit); }

  void record(std::string_view name, const SuperstepCost& cost, double wall_seconds);
  // Records one superstep per cost, in order, all of one name and `wall_seconds` each:
  // what as many calls of record() would, with one look-up of the name (core/comm
  // records a collective's steps this way on every call).
  void record(std::string_view name, std::span<const SuperstepCost> costs, double wall_seconds);

  std::uint64_t supersteps() const { return supersteps_; }
  const SuperstepCost& total() const { return total_; }
  double simulated_seconds() const { return simulated_seconds_; }
  double wall_seconds() const { return wall_seconds_; }
  // The wall seconds recorded so far under each superstep name, in name order.
  std::vector<std::pair<std::string, double>> wall_seconds_by_name() const;

  // The whole profile; `tile_high_water` holds every tile's memory high-water mark.
  nlohmann::json to_json(const std::vector<std::uint64_t>& tile_high_water) const;
  // A one-screen summary for the end of a run.
  std::string summary(const std::vector<std::uint64_t>& tile_high_water) const;

 private:
  struct Entry {
    std::shared_ptr<const std::string> name;  // shared with the timeline's steps
    std::uint64_t count = 0;
    SuperstepCost cost;
    double simulated_seconds = 0;
    double wall_seconds = 0;
  };
  struct Step {
    std::shared_ptr<const std::string> name;  // no allocation per recorded step
    SuperstepCost cost;
    double wall_seconds;
  };
  Entry& entry(std::string_view name);
  void add(Entry& e, const SuperstepCost& cost, double wall_seconds);
  const Target* target_;
  std::map<std::string, Entry, std::less<>> by_name_;
  std::vector<Step> timeline_;
  std::uint64_t supersteps_ = 0;
  SuperstepCost total_;
  double simulated_seconds_ = 0;
  double wall_seconds_ = 0;
};

}  // namespace tessera
