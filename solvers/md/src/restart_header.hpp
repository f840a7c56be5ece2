// The header of a restart file read field by field (internal to the md module): each field is
// checked as the command that set it checks its arguments, and a field that is missing or
// wrong throws FormatError naming the file and the field. Styles read their own sections with
// it (Pair::restore).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "checked_integer.hpp"
#include "tessera/core/error.hpp"

namespace tessera::md::detail {

// The header of a restart file, checked field by field as the command that set each field
// checks its arguments; nothing reaches the simulation before all of it has passed.
class RestartHeader {
 public:
  explicit RestartHeader(const std::string& path) : path_(path) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw FormatError("read_restart: '" + path_ + "' " + what);
  }

  const nlohmann::json& at(const nlohmann::json& j, const std::string& key,
                           const std::string& name) const {
    if (!j.is_object() || !j.contains(key)) fail("has no header field " + name);
    return j.at(key);
  }

  long long integer(const nlohmann::json& j, const std::string& name, long long lo, long long hi,
                    const std::string& like) const {
    if (!j.is_number_integer())
      fail("has " + name + " = " + j.dump() + ", not an integer (as " + like + " needs)");
    if (j.is_number_unsigned() &&
        j.get<unsigned long long>() >
            static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()))
      fail("has " + name + " = " + j.dump() + ", outside " + detail::range_text(lo, hi) + " (as " +
           like + " allows)");
    const long long v = j.get<long long>();
    if (v < lo || v > hi)
      fail("has " + name + " = " + std::to_string(v) + ", outside " + detail::range_text(lo, hi) +
           " (as " + like + " allows)");
    return v;
  }

  enum class Sign { any, non_negative, positive };
  double real(const nlohmann::json& j, const std::string& name, Sign sign,
              const std::string& like) const {
    if (!j.is_number()) fail("has " + name + " = " + j.dump() + ", not a number");
    const double v = j.get<double>();
    const bool ok = std::isfinite(v) && (sign == Sign::any || (sign == Sign::positive && v > 0) ||
                                         (sign == Sign::non_negative && v >= 0));
    if (!ok)
      fail("has " + name + " = " + j.dump() + ", which " + like + " refuses: it must be finite" +
           (sign == Sign::positive       ? " and positive"
            : sign == Sign::non_negative ? " and not negative"
                                         : ""));
    return v;
  }

  std::array<double, 3> triple(const nlohmann::json& j, const std::string& name) const {
    if (!j.is_array() || j.size() != 3) fail("has " + name + " = " + j.dump() + ", not 3 numbers");
    std::array<double, 3> v{};
    for (std::size_t d = 0; d < 3; ++d)
      v[d] = real(j[d], name + "[" + std::to_string(d) + "]", Sign::any, "Tessera");
    return v;
  }

  // Three numbers or nulls (a fix's components given as NULL), as optional_triple_json writes
  // them; `like` names the command that would refuse a bad one.
  std::array<std::optional<double>, 3> optional_triple(const nlohmann::json& j,
                                                       const std::string& name,
                                                       const std::string& like) const {
    if (!j.is_array() || j.size() != 3) fail("has " + name + " = " + j.dump() + ", not 3 values");
    std::array<std::optional<double>, 3> v;
    for (std::size_t d = 0; d < 3; ++d)
      if (!j[d].is_null()) v[d] = real(j[d], name + "[" + std::to_string(d) + "]", Sign::any, like);
    return v;
  }

  bool boolean(const nlohmann::json& j, const std::string& name) const {
    if (!j.is_boolean()) fail("has " + name + " = " + j.dump() + ", not true or false");
    return j.get<bool>();
  }

  std::string text(const nlohmann::json& j, const std::string& name) const {
    if (!j.is_string() || j.get<std::string>().empty())
      fail("has " + name + " = " + j.dump() + ", not a non-empty string");
    return j.get<std::string>();
  }

  // A string, possibly empty (a setting left at its default).
  std::string text_or_empty(const nlohmann::json& j, const std::string& name) const {
    if (!j.is_string()) fail("has " + name + " = " + j.dump() + ", not a string");
    return j.get<std::string>();
  }

  // A list of strings, each possibly empty (a deleted group's slot).
  std::vector<std::string> texts_or_empty(const nlohmann::json& j, const std::string& name) const {
    if (!j.is_array()) fail("has " + name + " = " + j.dump() + ", not a list of strings");
    std::vector<std::string> out;
    for (std::size_t k = 0; k < j.size(); ++k) {
      if (!j[k].is_string()) fail("has " + name + "[" + std::to_string(k) + "], not a string");
      out.push_back(j[k].get<std::string>());
    }
    return out;
  }

  std::vector<std::string> texts(const nlohmann::json& j, const std::string& name) const {
    if (!j.is_array()) fail("has " + name + " = " + j.dump() + ", not a list of strings");
    std::vector<std::string> out;
    for (std::size_t k = 0; k < j.size(); ++k)
      out.push_back(text(j[k], name + "[" + std::to_string(k) + "]"));
    return out;
  }

 private:
  const std::string& path_;
};

inline nlohmann::json optional_triple_json(const std::array<std::optional<double>, 3>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& x : v) out.push_back(x ? nlohmann::json(*x) : nlohmann::json());
  return out;
}

}  // namespace tessera::md::detail
