// Integers from input scripts, data files and restart headers, parsed with a range check
// (internal to the md module). A value that does not fit is an error, never a wrapped or
// clamped number: std::strtoll clamps on overflow, and a cast to int keeps the low bits.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>

namespace tessera::md::detail {

// "LO..HI" for messages.
inline std::string range_text(long long lo, long long hi) {
  return std::to_string(lo) + ".." + std::to_string(hi);
}

// `word` as a base-10 integer in [lo, hi], or why it is not one (the value is in *value when
// the answer is empty).
inline std::string integer_problem(const std::string& word, long long lo, long long hi,
                                   long long* value) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(word.c_str(), &end, 10);
  if (word.empty() || *end != '\0') return "expected an integer, got '" + word + "'";
  if (errno == ERANGE || v < lo || v > hi)
    return "the integer " + word + " is out of range; allowed: " + range_text(lo, hi);
  *value = v;
  return {};
}

}  // namespace tessera::md::detail
