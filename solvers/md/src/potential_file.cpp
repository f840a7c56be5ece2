#include "potential_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <utility>

#include "tessera/core/error.hpp"

namespace tessera::md {

namespace {

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

}  // namespace

PotentialFile::PotentialFile(std::string text, std::string path, std::string kind)
    : text_(std::move(text)), path_(std::move(path)), kind_(std::move(kind)) {
  // LAMMPS's utils::get_potential_units: the word after "UNITS:" on the first line.
  const std::string first = text_.substr(0, text_.find('\n'));
  const auto words = words_of(first);
  for (std::size_t k = 0; k + 1 < words.size(); ++k)
    if (words[k] == "UNITS:") units_tag_ = words[k + 1];
}

bool PotentialFile::next_line(std::string& line) {
  if (at_ >= text_.size()) return false;
  const std::size_t end = text_.find('\n', at_);
  line = text_.substr(at_, end == std::string::npos ? std::string::npos : end - at_);
  at_ = end == std::string::npos ? text_.size() : end + 1;
  ++line_number_;
  return true;
}

void PotentialFile::fail(const std::string& what) const {
  throw FormatError(kind_ + " " + path_ + ", line " + std::to_string(line_number_) + ": " + what);
}

void PotentialFile::skip_line() {
  std::string line;
  if (!next_line(line)) fail("the file ends inside its header");
}

std::vector<std::string> PotentialFile::values(std::size_t n) {
  auto words = next_values(n);
  if (!words) fail("the file ends where " + std::to_string(n) + " values were expected");
  return std::move(*words);
}

std::optional<std::vector<std::string>> PotentialFile::next_values(std::size_t n) {
  std::vector<std::string> words;
  std::string line;
  while (words.empty() || words.size() < n) {
    if (!next_line(line)) {
      if (words.empty()) return std::nullopt;
      fail("the file ends inside an entry: " + std::to_string(words.size()) + " of its " +
           std::to_string(n) + " values");
    }
    for (auto& w : words_of(line.substr(0, line.find('#')))) words.push_back(std::move(w));
  }
  return words;
}

std::vector<double> PotentialFile::doubles(std::size_t n) {
  std::vector<double> out;
  out.reserve(n);
  std::string line;
  while (out.size() < n) {
    if (!next_line(line))
      fail("the file ends after " + std::to_string(out.size()) + " of " + std::to_string(n) +
           " values of a table");
    for (const auto& w : words_of(line.substr(0, line.find('#')))) {
      if (out.size() == n) break;
      out.push_back(number(w));
    }
  }
  return out;
}

double PotentialFile::number(const std::string& word) const {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(word.c_str(), &end);
  if (word.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    fail("expected a number, found '" + word + "'");
  return v;
}

int PotentialFile::integer(const std::string& word) const {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(word.c_str(), &end, 10);
  if (word.empty() || *end != '\0' || errno == ERANGE || v < -2147483647L || v > 2147483647L)
    fail("expected an integer, found '" + word + "'");
  return static_cast<int>(v);
}

PotentialFile open_potential(const PairContext& context, const std::string& path,
                             const std::string& kind) {
  const char* folder = std::getenv("LAMMPS_POTENTIALS");
  if (folder == nullptr || *folder == '\0' || std::filesystem::exists(path))
    return {context.read_file(path, kind, ""), path, kind};
  const std::string there =
      (std::filesystem::path(folder) / std::filesystem::path(path).filename()).string();
  if (!std::filesystem::exists(there))
    return {context.read_file(path, kind,
                              " (nor is it in $LAMMPS_POTENTIALS, " + std::string(folder) + ")"),
            path, kind};
  return {context.read_file(there, kind, ""), there, kind};
}

double energy_conversion(const PotentialFile& file, const std::string& units) {
  const std::string& tag = file.units_tag();
  if (tag.empty() || tag == units) return 1.0;
  constexpr double kcal_mol_per_ev = 23.060549;
  if (tag == "metal" && units == "real") return kcal_mol_per_ev;
  if (tag == "real" && units == "metal") return 1.0 / kcal_mol_per_ev;
  throw ConfigError("potential file " + file.path() + " is in units " + tag +
                    ", the simulation in units " + units +
                    "; LAMMPS converts only between metal and real");
}

}  // namespace tessera::md
