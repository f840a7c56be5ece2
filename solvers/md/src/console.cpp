#include "tessera/md/console.hpp"

#include <cerrno>
#include <cstring>

#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"

namespace tessera::md {

Console::Console(int rank, const std::string& log_path) : rank_(rank) {
  if (rank_ != 0 || log_path.empty() || log_path == "none") return;
  log_ = std::fopen(log_path.c_str(), "w");
  if (!log_) throw ConfigError("cannot open log file '" + log_path + "': " + std::strerror(errno));
}

Console::~Console() {
  if (log_) std::fclose(log_);
}

void Console::print(const std::string& text) {
  if (rank_ != 0) return;
  std::fputs(text.c_str(), stdout);
  flush_standard_output();  // a failure is reported at the end (run_main)
  if (log_) {
    std::fputs(text.c_str(), log_);
    std::fflush(log_);
  }
}

}  // namespace tessera::md
