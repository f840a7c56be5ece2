#include "tessera/md/console.hpp"

#include <cstdio>

#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"

namespace tessera::md {

Console::Console(int rank, const std::string& log_path) : rank_(rank) {
  if (rank_ != 0 || log_path.empty() || log_path == "none") return;
  try {
    log_ = std::make_unique<AtomicFile>(log_path);
  } catch (const Error& e) {
    throw ConfigError(std::string("log file: ") + e.what() + "; choose another -log or -log none");
  }
}

Console::~Console() {
  if (!log_) return;
  try {
    log_->commit();
  } catch (const Error& e) {
    std::fprintf(stderr, "ERROR: log file: %s\n", e.what());
  }
}

void Console::to_log(const std::string& text) {
  if (!log_) return;
  try {
    log_->write(text);
    log_->flush();
  } catch (const Error& e) {
    log_.reset();  // removed already; nothing more goes to it
    throw Error(std::string("log file: ") + e.what());
  }
}

void Console::print(const std::string& text) {
  if (rank_ != 0) return;
  // Write errors on standard output are reported at the end (run_main).
  std::fputs(text.c_str(), stdout);
  flush_standard_output();
  to_log(text);
}

void Console::warn(const std::string& text) {
  if (rank_ != 0) return;
  std::fputs(text.c_str(), stderr);
  to_log(text);
}

void Console::log(const std::string& text) {
  if (rank_ == 0) to_log(text);
}

void Console::finish() {
  if (!log_) return;
  std::unique_ptr<AtomicFile> log = std::move(log_);
  try {
    log->commit();
  } catch (const Error& e) {
    throw Error(std::string("log file: ") + e.what());
  }
}

}  // namespace tessera::md
