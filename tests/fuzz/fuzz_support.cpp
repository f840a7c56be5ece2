#include "fuzz_support.hpp"

#include <fcntl.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <typeinfo>

#include "tessera/core/error.hpp"
#include "tessera/core/stop_signal.hpp"

namespace tessera::fuzz {
namespace {

int report_fd = 2;
std::string folder;
// TESSERA_FUZZ_VERBOSE set: every refusal's message is shown (to see what inputs reach).
const bool verbose = std::getenv("TESSERA_FUZZ_VERBOSE") != nullptr;

// The files the harness's initialisation left in the private folder, with what they hold:
// each input starts from exactly these (an input's own files are removed after it, and a
// fixture it replaced is written back), so that an input's outcome never depends on the
// inputs run before it.
struct Fixture {
  std::string bytes;
  std::filesystem::file_time_type written;
};
std::map<std::string, Fixture> fixtures;
bool fixtures_taken = false;

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void take_fixtures() {
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (!entry.is_regular_file()) continue;
    fixtures[entry.path().filename()] = {read_whole(entry.path()), entry.last_write_time()};
  }
  fixtures_taken = true;
}

void restore_folder() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const auto it = fixtures.find(entry.path().filename());
    if (it == fixtures.end()) {
      std::filesystem::remove_all(entry.path(), ec);
    } else if (!entry.is_regular_file(ec) || entry.last_write_time(ec) != it->second.written) {
      std::filesystem::remove_all(entry.path(), ec);
      write_file(it->first, it->second.bytes);
      it->second.written = std::filesystem::last_write_time(entry.path(), ec);
    }
  }
  for (auto& [name, fixture] : fixtures)
    if (!std::filesystem::exists(folder + "/" + name, ec)) {
      write_file(name, fixture.bytes);
      fixture.written = std::filesystem::last_write_time(folder + "/" + name, ec);
    }
}

// Never destroyed: print_counts reads it at exit, after the static destructors may have run.
std::map<std::string, long>& counts() {
  static auto* c = new std::map<std::string, long>;
  return *c;
}

void print_counts() {
  for (const auto& [what, n] : counts()) {
    const std::string line = "tessera fuzz: " + std::to_string(n) + " " + what + "\n";
    [[maybe_unused]] const ssize_t written = write(report_fd, line.data(), line.size());
  }
}

void remove_folder() {
  std::error_code ec;
  if (!folder.empty()) std::filesystem::remove_all(folder, ec);
}

}  // namespace

void start() {
  static bool started = false;
  if (started) return;
  started = true;
  report_fd = dup(2);
  if (report_fd < 0) report_fd = 2;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // Open MPI unloads its components at MPI_Finalize; LeakSanitizer's check at exit then cannot
    // name the library of what they kept (lsan.supp suppresses them by name).
    setenv("OMPI_MCA_mca_base_component_disable_dlclose", "1", 0);
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    std::atexit([] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized) MPI_Finalize();
    });
  }
  // A tmpfs where there is one: the parsers' outputs are synced to disk (atomic_file.hpp).
  std::string base = "/dev/shm";
  if (const char* tmp = std::getenv("TMPDIR")) base = tmp;
  if (access(base.c_str(), W_OK) != 0) base = "/tmp";
  std::string pattern = base + "/tessera-fuzz-XXXXXX";
  if (!mkdtemp(pattern.data())) finding("cannot make a temporary folder under " + base);
  folder = pattern;
  if (chdir(folder.c_str()) != 0) finding("cannot enter " + folder);
  std::atexit(remove_folder);
  std::atexit(print_counts);
}

void count(const char* what) { ++counts()[what]; }

void run_one(const std::function<void()>& body) {
  if (!fixtures_taken) take_fixtures();
  // A bound on an input's steps and commands some harnesses set (request_stop) must not
  // outlive the input.
  struct Reset {
    ~Reset() {
      clear_stop_request();
      restore_folder();
    }
  } reset;
  try {
    body();
  } catch (const Error& e) {
    if (std::strlen(e.what()) == 0) finding("a tessera::Error without a message");
    if (verbose) {
      const std::string line = std::string("refused: ") + e.what() + "\n";
      [[maybe_unused]] const ssize_t written = write(report_fd, line.data(), line.size());
    }
  } catch (const std::exception& e) {
    finding(std::string("an exception that is not a tessera::Error escaped (") + typeid(e).name() +
            "): " + e.what());
  } catch (...) {
    finding("an exception that is not a std::exception escaped");
  }
}

void finding(const std::string& what) {
  const std::string line = "tessera fuzz finding: " + what + "\n";
  [[maybe_unused]] const ssize_t written = write(report_fd, line.data(), line.size());
  std::abort();
}

const std::string& work_folder() { return folder; }

std::string write_file(const std::string& name, std::string_view bytes) {
  const std::string path = folder + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) finding("cannot write the harness's own file " + path);
  return path;
}

Target tiny_target() {
  Target t = Target::preset("gc200");
  t.tiles_per_ipu = 4;
  return t;
}

std::string source_file(const std::string& relative) {
  return read_whole(std::string(TESSERA_SOURCE_DIR) + "/" + relative);
}

}  // namespace tessera::fuzz
