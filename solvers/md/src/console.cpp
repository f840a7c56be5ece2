#include "tessera/md/console.hpp"

#include <cstdio>
#include <fstream>

#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"

namespace tessera::md {

Console::Console(int rank, const std::string& log_path, const std::string& screen_path)
    : rank_(rank), screen_off_(screen_path == "none") {
  if (rank_ != 0) return;
  if (!log_path.empty() && log_path != "none") {
    try {
      log_ = std::make_unique<AtomicFile>(log_path);
    } catch (const Error& e) {
      throw ConfigError(std::string("log file: ") + e.what() +
                        "; choose another -log or -log none");
    }
  }
  if (!screen_path.empty() && !screen_off_) {
    try {
      screen_file_ = std::make_unique<AtomicFile>(screen_path);
    } catch (const Error& e) {
      throw ConfigError(std::string("screen file: ") + e.what() +
                        "; choose another -screen or -screen none");
    }
  }
}

Console::~Console() {
  for (auto* file : {&log_, &screen_file_}) {
    if (!*file) continue;
    try {
      (*file)->commit();
    } catch (const Error& e) {
      std::fprintf(stderr, "ERROR: %s: %s\n", file == &log_ ? "log file" : "screen file", e.what());
    }
  }
}

void Console::to_screen(const std::string& text) {
  if (screen_off_) return;
  if (!screen_file_) {
    // Write errors on standard output are reported at the end (run_main).
    std::fputs(text.c_str(), stdout);
    flush_standard_output();
    return;
  }
  try {
    screen_file_->write(text);
    screen_file_->flush();
  } catch (const Error& e) {
    screen_file_.reset();
    screen_off_ = true;
    throw Error(std::string("screen file: ") + e.what());
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

void Console::switch_log(const std::string& path, bool append) {
  if (rank_ != 0) return;
  if (log_) {
    log_->commit();
    log_.reset();
  }
  if (path == "none") return;
  const bool grows = append && std::ifstream(path).good();
  try {
    log_ = std::make_unique<AtomicFile>(path,
                                        grows ? AtomicFile::Start::copy : AtomicFile::Start::empty);
  } catch (const Error& e) {
    throw ConfigError(std::string("log file: ") + e.what());
  }
}

void Console::print(const std::string& text) {
  if (rank_ != 0) return;
  to_screen(text);
  to_log(text);
}

void Console::echo(const std::string& text, bool screen, bool log) {
  if (rank_ != 0) return;
  if (screen) to_screen(text);
  if (log) to_log(text);
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
  for (auto* file : {&screen_file_, &log_}) {
    if (!*file) continue;
    std::unique_ptr<AtomicFile> f = std::move(*file);
    try {
      f->commit();
    } catch (const Error& e) {
      throw Error(std::string(file == &log_ ? "log file: " : "screen file: ") + e.what());
    }
  }
}

}  // namespace tessera::md
