#include "dump_reader.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "tessera/core/error.hpp"

namespace tessera::md {

namespace {
std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool starts_with(const std::string& text, const char* prefix) {
  return text.compare(0, std::strlen(prefix), prefix) == 0;
}
}  // namespace

bool DumpReader::open(std::size_t file) {
  in_.close();
  in_.clear();
  file_ = file;
  line_number_ = 0;
  if (file >= files_.size()) return false;
  in_.open(files_[file]);
  if (!in_)
    throw ConfigError("cannot open dump file '" + files_[file] + "': " + std::strerror(errno));
  return true;
}

bool DumpReader::line(std::string& text) {
  if (!std::getline(in_, text)) return false;
  ++line_number_;
  if (!text.empty() && text.back() == '\r') text.pop_back();
  return true;
}

void DumpReader::fail(const std::string& what) const {
  throw FormatError("dump file '" + files_[file_] + "', line " + std::to_string(line_number_) +
                    ": " + what);
}

std::optional<std::int64_t> DumpReader::read_step() {
  std::string text;
  // dump_modify units yes and time yes put their items before the step.
  while (true) {
    if (!line(text)) return std::nullopt;
    const bool units = starts_with(text, "ITEM: UNITS"),
               time = starts_with(text, "ITEM: TIME") && !starts_with(text, "ITEM: TIMESTEP");
    if (!units && !time) break;
    if (!line(text)) fail("the file ends inside a snapshot's header");
  }
  if (!starts_with(text, "ITEM: TIMESTEP"))
    fail("expected 'ITEM: TIMESTEP', found '" + text.substr(0, 60) +
         "'; read_dump and rerun read LAMMPS's native text dumps (dump atom or custom)");
  if (!line(text)) fail("the file ends after ITEM: TIMESTEP");
  const auto words = words_of(text);
  char* end = nullptr;
  errno = 0;
  const long long step = words.size() == 1 ? std::strtoll(words[0].c_str(), &end, 10) : -1;
  if (words.size() != 1 || *end != '\0' || errno != 0 || step < 0)
    fail("'" + text.substr(0, 60) + "' is not a timestep");
  step_ = step;
  return step;
}

DumpHeader DumpReader::header() {
  DumpHeader h;
  h.step = step_;
  std::string text;
  if (!line(text) || !starts_with(text, "ITEM: NUMBER OF ATOMS"))
    fail("expected 'ITEM: NUMBER OF ATOMS'");
  if (!line(text)) fail("the file ends after ITEM: NUMBER OF ATOMS");
  {
    char* end = nullptr;
    errno = 0;
    const auto words = words_of(text);
    const long long n = words.size() == 1 ? std::strtoll(words[0].c_str(), &end, 10) : -1;
    if (words.size() != 1 || *end != '\0' || errno != 0 || n < 0)
      fail("'" + text.substr(0, 60) + "' is not a number of atoms");
    h.atoms = n;
  }
  if (!line(text) || !starts_with(text, "ITEM: BOX BOUNDS")) fail("expected 'ITEM: BOX BOUNDS'");
  h.bounds = text.size() > 16 ? text.substr(17) : "";
  const auto bound_words = words_of(h.bounds);
  h.triclinic = !bound_words.empty() && bound_words[0] == "xy";
  for (std::size_t d = 0; d < 3; ++d) {
    if (!line(text)) fail("the file ends inside BOX BOUNDS");
    const auto words = words_of(text);
    if (words.size() < 2) fail("a BOX BOUNDS line needs lo and hi");
    char* end_lo = nullptr;
    char* end_hi = nullptr;
    h.lo[d] = std::strtod(words[0].c_str(), &end_lo);
    h.hi[d] = std::strtod(words[1].c_str(), &end_hi);
    if (*end_lo != '\0' || *end_hi != '\0' || !(h.hi[d] > h.lo[d]))
      fail("'" + text.substr(0, 60) + "' is not a box bound lo < hi");
  }
  if (!line(text) || !starts_with(text, "ITEM: ATOMS"))
    fail("expected 'ITEM: ATOMS' and the column labels");
  h.labels = words_of(text.substr(11));
  return h;
}

std::vector<double> DumpReader::atoms(const DumpHeader& h, const std::vector<std::size_t>& columns) {
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(h.atoms) * columns.size());
  std::string text;
  std::vector<const char*> starts;
  for (std::int64_t a = 0; a < h.atoms; ++a) {
    if (!line(text))
      fail("the file ends after " + std::to_string(a) + " of the snapshot's " +
           std::to_string(h.atoms) + " atoms");
    // The words' starts, in place.
    starts.clear();
    const char* p = text.c_str();
    while (*p) {
      while (*p == ' ' || *p == '\t') ++p;
      if (!*p) break;
      starts.push_back(p);
      while (*p && *p != ' ' && *p != '\t') ++p;
    }
    if (starts.size() != h.labels.size())
      fail("an atom line has " + std::to_string(starts.size()) + " values for " +
           std::to_string(h.labels.size()) + " labels");
    for (std::size_t c : columns) {
      char* end = nullptr;
      const double v = std::strtod(starts[c], &end);
      if (end == starts[c] || (*end != '\0' && *end != ' ' && *end != '\t'))
        fail("column " + h.labels[c] + " has '" + std::string(starts[c], std::strcspn(starts[c], " \t")) +
             "', not a number");
      values.push_back(v);
    }
  }
  return values;
}

void DumpReader::skip() {
  const DumpHeader h = header();
  std::string text;
  for (std::int64_t a = 0; a < h.atoms; ++a)
    if (!line(text)) fail("the file ends inside a snapshot");
}

std::optional<std::int64_t> DumpReader::seek(std::int64_t request, bool exact) {
  std::optional<std::int64_t> found;
  for (std::size_t f = 0; open(f); ++f) {
    while (auto step = read_step()) {
      if (*step >= request) {
        found = step;
        break;
      }
      skip();
    }
    if (found) break;
  }
  if (found && exact && *found != request) return std::nullopt;
  return found;
}

std::optional<std::int64_t> DumpReader::next(std::int64_t current, std::int64_t last, int every,
                                             int skip_count) {
  int taken = 0;
  for (std::size_t f = file_; f < files_.size(); ++f) {
    if (f != file_ && !open(f)) break;
    while (auto step = read_step()) {
      if (*step > last) return std::nullopt;
      if (*step <= current) {
        skip();
        continue;
      }
      if (taken == skip_count) taken = 0;
      ++taken;
      if ((every > 0 && *step % every != 0) || taken < skip_count) {
        skip();
        continue;
      }
      return step;
    }
  }
  return std::nullopt;
}

}  // namespace tessera::md
