// Stan 2.26's array declarations in the form Stan 2.21's compiler (Debian's rstan) reads.
//
// Stan 2.26 introduced `array[N] real y;` and Stan 2.33 removed the older `real y[N];`, so
// today's programs (posteriordb's among them) use only the new form, which rstan 2.21's
// stanc refuses. The two say the same thing; this rewrites each
//   array[D] TYPE name          as   TYPE name[D]        (declarations, sized)
//   array[] TYPE  / array[,] TYPE   as   TYPE[]  /  TYPE[,]   (function argument types)
// where TYPE is a type with its constraint and size (`real<lower=0>`, `vector[K]`). Comments
// and strings are left alone; each rewrite keeps the statement on its lines, so the Stan
// compiler's line numbers stay those of the original program. Other syntax newer than
// Stan 2.21 is left for the compiler to refuse with its message.
#pragma once

#include <string>

namespace tessera::mcmc {

// The program with its array declarations rewritten; `rewrites` counts them.
std::string with_old_array_syntax(const std::string& program, int& rewrites);

}  // namespace tessera::mcmc
