// What every fuzz harness of tests/fuzz shares.
//
// A harness is one parser of Tessera's called on a byte buffer, in the form libFuzzer calls:
//   TESSERA_FUZZ_INIT() { ... }                       once, with MPI running (one rank)
//   TESSERA_FUZZ_HARNESS(data, size) { ...; }         once per input
// The same source links either with libFuzzer (clang, -fsanitize=fuzzer: the fuzz_<harness>
// programs of scripts/fuzz) or with replay_main.cpp, the deterministic mutational run of the
// default suite (fuzz_replay_<harness>).
//
// The promise each harness checks is the one of DESIGN.md's "no silent failure": any input
// either parses or ends with a tessera::Error whose message is not empty. Anything else is a
// finding: a crash or a sanitizer report, a hang or runaway memory (libFuzzer's -timeout and
// -rss_limit_mb), or an exception that is not a tessera::Error (std::bad_alloc, a library's
// own exception, std::out_of_range ...), which a program would print as a bare "ERROR:
// std::bad_alloc". A finding aborts with the message on standard error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "tessera/core/target.hpp"

#define TESSERA_FUZZ_INIT()                            \
  static void tessera_fuzz_init();                     \
  extern "C" int LLVMFuzzerInitialize(int*, char***) { \
    tessera::fuzz::start();                            \
    tessera_fuzz_init();                               \
    return 0;                                          \
  }                                                    \
  static void tessera_fuzz_init()

#define TESSERA_FUZZ_HARNESS(data, size)                                              \
  static void tessera_fuzz_one(const std::uint8_t* data, std::size_t size);           \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    tessera::fuzz::run_one([&] { tessera_fuzz_one(data, size); });                    \
    return 0;                                                                         \
  }                                                                                   \
  static void tessera_fuzz_one(const std::uint8_t* data, std::size_t size)

namespace tessera::fuzz {

// Initialises MPI (one rank, MPI_THREAD_FUNNELED) once for the process, remembers standard
// error for findings, and moves into a private temporary folder (removed at exit), where the
// harness's files and whatever the parsed input writes end up.
void start();

// Runs one input: a tessera::Error with a message is the expected outcome of bad input; any
// other exception is a finding.
void run_one(const std::function<void()>& body);

// Aborts with "tessera fuzz finding: <what>" on the standard error the process started with.
[[noreturn]] void finding(const std::string& what);

// Counts an event of a harness's own (an input it skipped, and why); the counts are printed on
// standard error at exit, as "tessera fuzz: <count> <what>".
void count(const char* what);

// The private folder (start() made it the working directory).
const std::string& work_folder();

// Writes `bytes` to `name` in the private folder and returns the path.
std::string write_file(const std::string& name, std::string_view bytes);

// The source tree's file at `relative` (TESSERA_SOURCE_DIR/relative), read whole; empty when
// it cannot be read.
std::string source_file(const std::string& relative);

// The machine the harnesses that need a runtime simulate: one GC200 IPU cut down to 4 tiles of
// its 624 KiB, so that the tiles' memory bounds what an input can allocate.
Target tiny_target();

// The input as text.
inline std::string_view text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace tessera::fuzz
