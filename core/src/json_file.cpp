#include "tessera/core/json_file.hpp"

#include <fstream>

namespace tessera {

nlohmann::json read_json_file(const std::string& path, const std::string& what,
                              const std::string& hint) {
  std::ifstream in(path);
  if (!in) throw FormatError("cannot open " + what + " '" + path + "'" + hint);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw FormatError(what + " '" + path + "' is not valid JSON: " + e.what());
  } catch (const nlohmann::json::out_of_range& e) {
    throw FormatError(what + " '" + path + "' holds a number out of range: " + e.what());
  }
}

}  // namespace tessera
