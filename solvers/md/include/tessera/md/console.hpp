// Console: what md_ipu prints, on standard output and in the log file, from rank 0 only.
#pragma once

#include <cstdio>
#include <string>

namespace tessera::md {

class Console {
 public:
  // `log_path` empty or "none": no log file. Only rank 0 opens and writes.
  Console(int rank, const std::string& log_path);
  ~Console();
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  void print(const std::string& text);
  bool is_root() const { return rank_ == 0; }

 private:
  int rank_;
  std::FILE* log_ = nullptr;
};

}  // namespace tessera::md
