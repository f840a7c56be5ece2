// Registry: an open family of styles made by name, as LAMMPS makes `pair_style lj/cut` from
// the name "lj/cut" through a table of factories.
//
// A Registry<Base, Args...> maps each style's name to a factory returning
// std::unique_ptr<Base> from Args. A family keeps one registry, filled in one list (a line
// per style, next to nothing else), and every place that makes styles of the family (an input
// interpreter, a command line, a restart file) looks them up there: adding a style is its
// source file, its test and one line. make() of an unknown name throws ConfigError naming the
// family and listing every style it has ("pair style eam is not supported; the pair styles are
// deepmd and lj/cut").
//
// Thread-safety: fill a registry before it is shared (a function-local static built by its
// list); after that, lookups are read-only and safe from any thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

template <class Base, class... Args>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Base>(Args...)>;

  // `family` names the styles in messages: "pair style", "fix style", "model".
  explicit Registry(std::string family) : family_(std::move(family)) {}

  // Adds a style; a second style of the same name is a programming error (std::logic_error).
  Registry& add(const std::string& name, Factory factory) {
    if (!factories_.emplace(name, std::move(factory)).second)
      throw std::logic_error(family_ + " '" + name + "' is registered twice");
    return *this;
  }
  // add() for a style constructed from Args directly.
  template <class Style>
  Registry& add(const std::string& name) {
    return add(name, [](Args... args) -> std::unique_ptr<Base> {
      return std::make_unique<Style>(std::forward<Args>(args)...);
    });
  }

  bool has(const std::string& name) const { return factories_.count(name) > 0; }

  // The style called `name`, made from `args`. Throws ConfigError for an unknown name (and
  // whatever the style's own constructor throws).
  std::unique_ptr<Base> make(const std::string& name, Args... args) const {
    const auto it = factories_.find(name);
    if (it == factories_.end())
      throw ConfigError(family_ + " " + name + " is not supported; the " + family_ + "s are " +
                        listing());
    return it->second(std::forward<Args>(args)...);
  }

  // The names, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, factory] : factories_) out.push_back(name);
    return out;
  }

  // "a, b and c": the names as a sentence lists them.
  std::string listing() const {
    std::string out;
    std::size_t k = 0;
    for (const auto& [name, factory] : factories_) {
      if (k > 0) out += k + 1 == factories_.size() ? " and " : ", ";
      out += name;
      ++k;
    }
    return out;
  }

  const std::string& family() const { return family_; }

 private:
  std::string family_;
  std::map<std::string, Factory> factories_;
};

}  // namespace tessera
