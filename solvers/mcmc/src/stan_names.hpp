// Text as Stan writes it, shared by the CSV files, the models' messages and Stan programs.
#pragma once

#include <string>

namespace tessera::mcmc {

// The shortest text that reads back as v (0.6, not 0.59999999999999998).
std::string number_text(double v);
// A value's name as CmdStan's CSV header has it, and back: theta[1,2] <-> theta.1.2.
std::string dotted(const std::string& name);
std::string bracketed(const std::string& name);

}  // namespace tessera::mcmc
