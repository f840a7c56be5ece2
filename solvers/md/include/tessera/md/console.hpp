// Console: what md_ipu prints, on standard output and in the log file, from rank 0 only.
//
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
  // `log_path` empty or "none": no log file. Only rank 0 opens and writes. Throws
  // ConfigError when the log cannot be written.
  Console(int rank, const std::string& log_path);
  // Without finish(): publishes the log if it is intact (an error is ending the program).
  ~Console();
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  // Standard output and the log. Throws Error if the log cannot be written.
  void print(const std::string& text);
  // Standard error and the log (messages that are not part of the run's output).
  void warn(const std::string& text);
  // The log alone (an error that run_main prints on standard error).
  void log(const std::string& text);
  // Publishes the log. Throws Error if it cannot be.
  void finish();
  bool is_root() const { return rank_ == 0; }

 private:
  void to_log(const std::string& text);
  int rank_;
  std::unique_ptr<AtomicFile> log_;
};

}  // namespace tessera::md
