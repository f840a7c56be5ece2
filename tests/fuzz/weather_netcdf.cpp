// Fuzz harness: NetCDF inputs of weather_ipu: the last record of an output (--initial,
// --restart: weather::read_last_record) and the elevation grid (--topography FILE.nc:
// weather::read_elevation_netcdf).
//
// weather_ipu reads these files in a child process (isolated_call), because the libraries
// under the readers crash on damaged files: netCDF-C 4.9.0 on the first mutant of a classic
// file (SIGSEGV in NC_hashmapadd from nc_get_NC, nc_open; ncdump crashes alike), HDF5 on
// NetCDF-4 metadata (an invalid free in H5G__link_release_table). Here the parsers run in this
// process (netcdf_readers.hpp), so that the fuzzer sees their coverage and finds the faults of
// Tessera's code rather than the libraries': an input is first read whole by netCDF-C alone
// (ncdump, in a process of its own) and skipped when that dies or hangs, and inputs holding the
// HDF5 signature are skipped outright (HDF5 crashes too often to leave anything else to find).
#include <fcntl.h>
#include <netcdf.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "netcdf_input.hpp"
#include "netcdf_readers.hpp"

namespace {

// netCDF-C's own ncdump reads the whole file (its header, every attribute, every variable's
// data) in a process of its own, `command` run by sh with the file as $0; false when it dies
// (a signal), or runs for more than 0.5 s (it loops for ever on some files) and is killed. (A
// fork of this process would not do: the fuzzer's malloc limit and crash handlers would report
// the library's faults from the child.)
bool ncdump_survives(const std::string& path, const char* shell_command) {
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  for (int fd : {1, 2}) posix_spawn_file_actions_addopen(&files, fd, "/dev/null", O_WRONLY, 0);
  char sh[] = "sh", c[] = "-c";
  std::string command = shell_command, file = path;
  char* argv[] = {sh, c, command.data(), file.data(), nullptr};
  pid_t child = 0;
  const int failed = posix_spawnp(&child, sh, &files, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&files);
  if (failed)
    tessera::fuzz::finding("cannot run ncdump (netcdf-bin): " + std::string(std::strerror(failed)));
  int status = 0;
  for (int waited = 0;; ++waited) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (waited >= 5000 || done < 0) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return false;
    }
    usleep(100);
  }
  return !WIFSIGNALED(status);
}

// netCDF-C does not check every allocation, so whether a header that asks for gigabytes
// crashes it depends on whether the memory is there: an ncdump without a limit crashed after a
// 4 GB calloc succeeded where one limited failed cleanly, and the other way round under the
// harness's ceiling (2 GiB, weather_netcdf.options, where malloc returns NULL). The library
// survives an input when ncdump survives it both without and with that ceiling.
bool library_survives(const std::string& path) {
  return ncdump_survives(path, "exec ncdump \"$0\"") &&
         ncdump_survives(path, "ulimit -v 2097152 && exec ncdump \"$0\"");
}

// The grid the file says it has (its x and y dimensions), else 8 x 6.
std::pair<int, int> grid_of(const std::string& path) {
  int nc = 0, nx = 8, ny = 6;
  if (nc_open(path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) return {nx, ny};
  for (auto [name, n] : {std::pair{"x", &nx}, std::pair{"y", &ny}}) {
    int dim = 0;
    std::size_t length = 0;
    if (nc_inq_dimid(nc, name, &dim) == NC_NOERR && nc_inq_dimlen(nc, dim, &length) == NC_NOERR &&
        length >= 1 && length <= 1000)
      *n = static_cast<int>(length);
  }
  nc_close(nc);
  return {nx, ny};
}

}  // namespace

TESSERA_FUZZ_INIT() {}

TESSERA_FUZZ_HARNESS(data, size) {
  using namespace tessera;
  static const char hdf5[] = "\x89HDF\r\n\x1a\n";
  const std::string_view bytes = fuzz::text(data, size);
  if (bytes.find(std::string_view(hdf5, 8)) != std::string_view::npos)
    return fuzz::count("inputs skipped: NetCDF-4 (HDF5)");
  const std::string path = fuzz::write_file("input.nc", bytes);
  if (!library_survives(path))
    return fuzz::count("inputs skipped: netCDF-C alone crashed or hung on them");
  const auto [nx, ny] = grid_of(path);
  // A failing library call (NcStatus) is a clean refusal, as the public readers report it.
  try {
    weather::read_last_record_here(
        path, nx, ny, {"h", "u_face", "v_face"},
        {"tracer_mass", "h_previous", "u_face_previous", "v_face_previous", "tracer_mass_previous"},
        {"x", "y", "lon", "lat"}, "checkpoint");
  } catch (const Error&) {
  } catch (const weather::NcStatus&) {
  }
  // The 3-D model's: ps and T from the record, the face winds on model levels.
  try {
    weather::read_last_record_here(path, nx, ny, {"ps", "u_face", "v_face", "T"},
                                   {"ps_previous", "u_face_previous", "T_previous"}, {"lon", "lat"},
                                   "checkpoint");
  } catch (const Error&) {
  } catch (const weather::NcStatus&) {
  }
  try {
    weather::read_elevation_netcdf_here(path);
  } catch (const weather::NcStatus&) {
  }
}
