// Words of LAMMPS commands read as numbers, integers, type ranges and flags, with the messages
// md_ipu's commands and styles share (internal to the md module). Each throws ConfigError
// naming the command and what was wrong; the input interpreter adds the file and line.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "checked_integer.hpp"
#include "tessera/core/error.hpp"

namespace tessera::md::arguments {

[[noreturn]] inline void bad(const std::string& what) { throw ConfigError(what); }

inline double number(const std::string& command, const std::string& word) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(word.c_str(), &end);
  if (word.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    bad(command + ": expected a number, got '" + word + "'");
  return v;
}

// `word` as an integer in [lo, hi]; out of range is an error that names the allowed range
// (the command and the line are added by run_script).
inline long long integer(const std::string& command, const std::string& word, long long lo,
                         long long hi) {
  long long v = 0;
  const std::string why = detail::integer_problem(word, lo, hi, &v);
  if (!why.empty()) bad(command + ": " + why);
  return v;
}

constexpr long long int_max = std::numeric_limits<int>::max();

// A random seed (velocity, fix langevin): LAMMPS's generators take 1..2^31-1. A word that is
// an integer but out of that range (however far: 99999999999999999999 too) gets this message.
inline long long seed_value(const std::string& command, const std::string& word,
                            const char* message) {
  long long v = 0;
  const std::string why = detail::integer_problem(word, 1, int_max, &v);
  if (why.rfind("expected", 0) == 0) bad(command + ": " + why);
  if (!why.empty()) bad(std::string(message) + " (1..2147483647), not " + word);
  return v;
}
constexpr long long bigint_max = std::numeric_limits<std::int64_t>::max();

inline bool yes_no(const std::string& command, const std::string& word) {
  if (word == "yes") return true;
  if (word == "no") return false;
  bad(command + ": expected yes or no, got '" + word + "'");
}

inline void need(const std::vector<std::string>& a, std::size_t n, const std::string& usage) {
  if (a.size() < n) bad("wrong number of arguments; usage: " + usage);
}

// "*", "n", "*n", "n*", "m*n" over 1..max (LAMMPS's utils::bounds); messages call a value `what`
// ("atom type") and a range `range` ("type range").
inline std::pair<long long, long long> bounds(const std::string& command, const std::string& word,
                                              long long max, const std::string& what,
                                              const std::string& range) {
  auto star = word.find('*');
  if (star == std::string::npos) {
    long long v = 0;
    if (!detail::integer_problem(word, 1, max, &v).empty()) {
      integer(command, word, std::numeric_limits<long long>::min(),
              std::numeric_limits<long long>::max());  // not an integer at all: say so
      bad(command + ": " + what + " " + word + " is out of range 1.." + std::to_string(max));
    }
    return {v, v};
  }
  const long long lo = star == 0 ? 1 : integer(command, word.substr(0, star), 1, max);
  const long long hi =
      star + 1 == word.size() ? max : integer(command, word.substr(star + 1), 1, max);
  if (lo > hi) bad(command + ": " + range + " " + word + " is out of 1.." + std::to_string(max));
  return {lo, hi};
}

// bounds() over atom types 1..max.
inline std::pair<int, int> type_range(const std::string& command, const std::string& word,
                                      int max) {
  const auto [lo, hi] = bounds(command, word, max, "atom type", "type range");
  return {static_cast<int>(lo), static_cast<int>(hi)};
}

// A dimension given as x, y or z: 0, 1 or 2; throws ConfigError "WHAT must be x, y or z, not
// 'WORD'".
inline std::size_t axis(const std::string& what, const std::string& word) {
  if (word != "x" && word != "y" && word != "z")
    bad(what + " must be x, y or z, not '" + word + "'");
  return static_cast<std::size_t>(word[0] - 'x');
}

// The printf conversions of a user's number format (thermo_modify format float, fix ave/time
// format): how many there are when all are %e, %f or %g (with flags, width and precision;
// "%%" is text), or -1 at the first that is not.
inline int float_conversions(const std::string& format) {
  int conversions = 0;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    if (i + 1 < format.size() && format[i + 1] == '%') {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < format.size() && std::string("-+ #0123456789.").find(format[j]) != std::string::npos)
      ++j;
    if (j >= format.size() || std::string("eEfFgG").find(format[j]) == std::string::npos) return -1;
    ++conversions;
    i = j;
  }
  return conversions;
}

}  // namespace tessera::md::arguments
