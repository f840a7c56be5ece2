// The deterministic mutational run of a fuzz harness (fuzz_replay_<harness> in the default
// suite): every input file, then `--mutations` seeded mutants of each, through the harness
// (LLVMFuzzerTestOneInput), with no fuzzing engine and no sanitizer needed.
//
//   fuzz_replay_<harness> [--mutations N] [--seed S] [--timeout SECONDS] PATH...
//
// PATH is a file or a folder of files (the seed corpus, the kept regression inputs). A mutant
// is 1 to 4 stacked edits of an input: a flipped bit, a byte set to a random or a boundary
// value, a byte inserted or deleted, a run of bytes duplicated or removed, a number replaced by
// a boundary value (0, -1, 2^31, 1e308, nan, ...), or the input's lines up to a point spliced
// with the lines of another input from a point on. The random numbers come from splitmix64
// seeded with (S, input index, mutant index), so a run is the same on every machine.
//
// A finding (a crash, an abort of the harness) is reported with the input's file and mutant
// number, and the mutant is written to replay-crash-<harness> in the working folder, to be
// kept under tests/fuzz/regressions/<harness>/; a mutant that runs longer than --timeout
// seconds (default 20) is reported the same way. Standard output and error of the parsers are
// discarded (they report bad input as they should) unless TESSERA_FUZZ_VERBOSE is set, which
// also shows every refusal; the summary goes to standard error.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
};

const char* const boundary_numbers[] = {"0",
                                        "-1",
                                        "1",
                                        "2147483647",
                                        "2147483648",
                                        "-2147483649",
                                        "9223372036854775807",
                                        "1e308",
                                        "-1e308",
                                        "1e-320",
                                        "nan",
                                        "inf",
                                        "-0",
                                        "4294967296",
                                        "18446744073709551616",
                                        "0.5"};
const unsigned char boundary_bytes[] = {0,   1,   0x7f, 0x80, 0xff, '\n', ' ', '#', '"', '&',
                                        '$', '{', '}',  ',',  '[',  ']',  ':', '-', '.', 'e'};

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < s.size()) {
    const std::size_t end = s.find('\n', at);
    const std::size_t stop = end == std::string::npos ? s.size() : end + 1;
    lines.push_back(s.substr(at, stop - at));
    at = stop;
  }
  return lines;
}

void mutate_once(std::string& s, const std::string& other, Rng& rng) {
  switch (rng.below(9)) {
    case 0:  // flip a bit
      if (!s.empty()) s[rng.below(s.size())] ^= static_cast<char>(1u << rng.below(8));
      break;
    case 1:  // set a byte to a random value
      if (!s.empty()) s[rng.below(s.size())] = static_cast<char>(rng.next() & 0xff);
      break;
    case 2:  // set a byte to a boundary value
      if (!s.empty())
        s[rng.below(s.size())] =
            static_cast<char>(boundary_bytes[rng.below(sizeof boundary_bytes)]);
      break;
    case 3:  // insert a byte
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(rng.below(s.size() + 1)),
               static_cast<char>(rng.next() & 0xff));
      break;
    case 4:  // delete a byte
      if (!s.empty()) s.erase(rng.below(s.size()), 1);
      break;
    case 5: {  // duplicate a run of bytes
      if (s.empty()) break;
      const std::size_t from = rng.below(s.size()),
                        n = 1 + rng.below(std::min<std::size_t>(64, s.size() - from));
      s.insert(rng.below(s.size() + 1), s.substr(from, n));
      break;
    }
    case 6: {  // remove a run of bytes
      if (s.empty()) break;
      const std::size_t from = rng.below(s.size());
      s.erase(from, 1 + rng.below(std::min<std::size_t>(64, s.size() - from)));
      break;
    }
    case 7: {  // replace a number by a boundary value
      std::vector<std::pair<std::size_t, std::size_t>> numbers;
      for (std::size_t i = 0; i < s.size();) {
        if (std::isdigit(static_cast<unsigned char>(s[i]))) {
          std::size_t j = i;
          while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.' ||
                                  s[j] == 'e' || s[j] == 'E'))
            ++j;
          numbers.emplace_back(i, j - i);
          i = j;
        } else {
          ++i;
        }
      }
      if (numbers.empty()) break;
      const auto [at, n] = numbers[rng.below(numbers.size())];
      s.replace(at, n, boundary_numbers[rng.below(std::size(boundary_numbers))]);
      break;
    }
    default: {  // splice: this input's lines up to a point, another's from a point on
      const std::vector<std::string> a = lines_of(s), b = lines_of(other);
      std::string spliced;
      const std::size_t keep = rng.below(a.size() + 1), from = rng.below(b.size() + 1);
      for (std::size_t i = 0; i < keep; ++i) spliced += a[i];
      for (std::size_t i = from; i < b.size(); ++i) spliced += b[i];
      s = spliced;
      break;
    }
  }
}

// What a crash handler reports: the input being run.
const char* harness_name = "harness";
std::string current_label;
std::string current_input;
int report_fd = 2;

void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = write(fd, p, n);
    if (w <= 0) return;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

// Where report_current writes: replay-crash-<harness> in the folder the program started in
// (the harness moves into a private folder of its own).
char crash_path[4096] = "replay-crash";

// Writes the input being run to crash_path and says so; async-signal-safe.
void report_current(const char* what) {
  const char* path = crash_path;
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    write_all(fd, current_input.data(), current_input.size());
    close(fd);
  }
  const char* parts[] = {"fuzz_replay: ",      what, " on ", current_label.c_str(),
                         "; the input is in ", path, "\n"};
  for (const char* p : parts) write_all(report_fd, p, std::strlen(p));
}

extern "C" void on_fatal_signal(int number) {
  report_current(number == SIGALRM ? "timeout" : "crash (a fatal signal)");
  std::signal(number, SIG_DFL);
  if (number == SIGALRM) number = SIGABRT;
  std::raise(number);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "fuzz_replay: %s\nusage: fuzz_replay_<harness> [--mutations N] [--seed S] "
               "[--timeout SECONDS] PATH...\n",
               why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  long mutations = 100;
  std::uint64_t seed = 1;
  unsigned timeout = 20;
  std::vector<std::filesystem::path> files;
  std::string name = std::filesystem::path(argv[0]).filename();
  static std::string harness = name.rfind("fuzz_replay_", 0) == 0 ? name.substr(12) : name;
  harness_name = harness.c_str();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    if (a == "--mutations") {
      mutations = std::stol(value());
    } else if (a == "--seed") {
      seed = std::stoull(value());
    } else if (a == "--timeout") {
      timeout = static_cast<unsigned>(std::stoul(value()));
    } else if (std::filesystem::is_directory(a)) {
      std::vector<std::filesystem::path> in_folder;
      for (const auto& e : std::filesystem::directory_iterator(a))
        if (e.is_regular_file()) in_folder.push_back(e.path());
      std::sort(in_folder.begin(), in_folder.end());
      files.insert(files.end(), in_folder.begin(), in_folder.end());
    } else if (std::filesystem::is_regular_file(a)) {
      files.emplace_back(a);
    } else {
      usage(("no such file or folder: " + a).c_str());
    }
  }
  if (files.empty()) usage("no inputs");
  std::vector<std::string> inputs;
  for (const auto& f : files) inputs.push_back(read_file(f));

  report_fd = dup(2);
  std::snprintf(crash_path, sizeof crash_path, "%s/replay-crash-%s",
                std::filesystem::current_path().c_str(), harness_name);
  LLVMFuzzerInitialize(&argc, &argv);
  // The parsers' own messages about bad input are expected: discard them.
  if (!std::getenv("TESSERA_FUZZ_VERBOSE")) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
  }
  for (int s : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGALRM}) std::signal(s, on_fatal_signal);

  const auto start = std::chrono::steady_clock::now();
  long runs = 0;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    for (long m = 0; m <= mutations; ++m) {
      current_input = inputs[k];
      if (m > 0) {
        Rng rng{seed * 0x100000001b3ULL ^ (k << 32) ^ static_cast<std::uint64_t>(m)};
        const std::size_t edits = 1 + rng.below(4);
        for (std::size_t e = 0; e < edits; ++e)
          mutate_once(current_input, inputs[rng.below(inputs.size())], rng);
      }
      current_label = files[k].string() + (m > 0 ? " mutant " + std::to_string(m) : "");
      alarm(timeout);
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(current_input.data()),
                             current_input.size());
      alarm(0);
      ++runs;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char line[256];
  std::snprintf(line, sizeof line,
                "fuzz_replay_%s: %ld inputs (%zu files, %ld mutants each, seed %llu) in %.1f s, "
                "no finding\n",
                harness_name, runs, inputs.size(), mutations, static_cast<unsigned long long>(seed),
                seconds);
  write_all(report_fd, line, std::strlen(line));
  return 0;
}
