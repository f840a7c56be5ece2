// Equal-style variable formulas, as LAMMPS evaluates them: numbers, + - * / ^,
// parentheses, unary minus, comparison and logic operators (< <= > >= == != && || !),
// math functions (sqrt exp ln log abs floor ceil round sin cos tan asin acos atan atan2
// min max), the constant PI, and through a lookup v_NAME references, c_ID and c_ID[N]
// (f_ID, f_ID[N]) and thermo keywords.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera::md {

// `lookup(name)` gives v_NAME (name with the v_ prefix), c_ID[N] and thermo keywords, or
// nothing for unknown names. Throws ConfigError with the formula and the position.
double evaluate(const std::string& formula,
                const std::function<std::optional<double>(const std::string&)>& lookup);

}  // namespace tessera::md
