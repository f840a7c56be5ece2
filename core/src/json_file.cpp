#include "tessera/core/json_file.hpp"

#include <fstream>
#include <sstream>

#include "tessera/core/shared_input.hpp"

namespace tessera {

namespace {

nlohmann::json parse(const std::string& text, const std::string& path, const std::string& what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw FormatError(what + " '" + path + "' is not valid JSON: " + e.what());
  } catch (const nlohmann::json::out_of_range& e) {  // a number beyond double, such as 1e999
    throw FormatError(what + " '" + path + "' holds a number out of range: " + e.what());
  }
}

}  // namespace

nlohmann::json read_json_file(const std::string& path, const std::string& what,
                              const std::string& hint) {
  std::ifstream in(path);
  if (!in) throw FormatError("cannot open " + what + " '" + path + "'" + hint);
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path, what);
}

nlohmann::json read_json_file(MPI_Comm comm, const std::string& path, const std::string& what,
                              const std::string& hint) {
  const SharedFile file = read_on_root(comm, path);
  try {
    if (!file.ok) throw FormatError("cannot open " + what + " '" + path + "'" + hint);
    return parse(file.bytes, path, what);
  } catch (Error& e) {
    e.set_collective();
    throw;
  }
}

}  // namespace tessera
