// isolated_call: runs a piece of work in a child process, so that a library that crashes on
// untrusted input cannot take the program down with it.
//
// NetCDF-4 files are parsed by HDF5, which has no checksum on most of its metadata and whose
// parser can crash (a segmentation fault, a double free that corrupts the heap and aborts
// the program later) on a file with one wrong byte. Reading such an input in a child turns
// any such crash into an Error that names the input, and the parent's heap is never touched
// by the parser.
//
// The child is a fork() of the calling process: it runs `work`, sends back the bytes `work`
// returns (or the Error it threw) through a pipe and ends with _exit, calling no atexit
// handler, no MPI and no destructor of the parent's objects. Safe to call from an MPI
// process (the child never touches MPI) on any rank; other threads of the parent do not
// exist in the child, so `work` must not wait for them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

// Runs `work` in a child process and returns what it returned. An Error (ConfigError,
// FormatError or another subclass) that `work` throws is thrown again here with the same
// message and class (ConfigError, FormatError, else Error). A child that crashes (a signal),
// ends without a result, or runs longer than `timeout_seconds` (it is then killed) gives an
// Error "cannot read <what>: ..." with the signal and the child's first line of standard
// error, followed by `hint`.
std::string isolated_call(const std::function<std::string()>& work, const std::string& what,
                          const std::string& hint, double timeout_seconds = 300);

// Packs values into the bytes isolated_call returns, and unpacks them in the same order.
class ByteWriter {
 public:
  void put(double v);
  void put(long long v);
  void put(const std::string& s);
  void put(const std::vector<double>& v);
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(const std::string& bytes) : bytes_(bytes) {}
  double get_double();
  long long get_integer();
  std::string get_string();
  std::vector<double> get_vector();

 private:
  void read(void* out, std::size_t n);
  const std::string& bytes_;
  std::size_t at_ = 0;
};

}  // namespace tessera
