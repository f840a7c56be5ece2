// Console: what md_ipu prints, on the screen and in the log file, from rank 0 only.
//
// The screen is standard output, or a file (LAMMPS's -screen FILE, an output like the log),
// or nothing (-screen none). Warnings and errors go to standard error whatever the screen.
// The log is an output like any other (tessera/core/atomic_file.hpp): it is written to
// LOG.part, every line flushed as it comes, and published as LOG by finish(), at the end of
// the program, whether the run ended well, with an error or on a stop signal (the log
// records what happened). A failed write to the log (a full disk) throws Error with the
// reason, removes LOG.part and leaves LOG as it was; LOG must not be a device or a folder.
#pragma once

#include <memory>
#include <string>

#include "tessera/core/atomic_file.hpp"
#include "tessera/core/error.hpp"

namespace tessera::md {

class Console {
 public:
  // `log_path` empty or "none": no log file; `screen_path` empty: standard output, "none": no
  // screen. Only rank 0 opens and writes. Throws ConfigError when a file cannot be written.
  Console(int rank, const std::string& log_path, const std::string& screen_path = "");
  // Without finish(): publishes the log if it is intact (an error is ending the program).
  ~Console();
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  // The screen and the log. Throws Error if the log or screen file cannot be written.
  void print(const std::string& text);
  // The screen alone, the log alone, or both (LAMMPS's echo of input lines).
  void echo(const std::string& text, bool screen, bool log);
  // Standard error and the log (messages that are not part of the run's output).
  void warn(const std::string& text);
  // The log alone (an error that run_main prints on standard error).
  void log(const std::string& text);
  // LAMMPS's log command: the current log is published and PATH becomes the log, appended to
  // when `append` and it exists ("none": no log from now on). Throws Error if the current log
  // cannot be published, ConfigError if PATH cannot be written.
  void switch_log(const std::string& path, bool append);
  // Publishes the log. Throws Error if it cannot be.
  void finish();
  bool is_root() const { return rank_ == 0; }

 private:
  void to_log(const std::string& text);
  void to_screen(const std::string& text);
  int rank_;
  bool screen_off_ = false;
  std::unique_ptr<AtomicFile> log_, screen_file_;
};

}  // namespace tessera::md
