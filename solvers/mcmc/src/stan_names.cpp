#include "stan_names.hpp"

#include <charconv>

namespace tessera::mcmc {

std::string number_text(double v) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
  return {buffer, end};
}

std::string dotted(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '[' || c == ',')
      out += '.';
    else if (c != ']' && c != ' ')
      out += c;
  }
  return out;
}

std::string bracketed(const std::string& name) {
  const std::size_t dot = name.find('.');
  if (dot == std::string::npos) return name;
  std::string out = name.substr(0, dot) + "[";
  for (std::size_t i = dot + 1; i < name.size(); ++i) out += name[i] == '.' ? ',' : name[i];
  return out + "]";
}

}  // namespace tessera::mcmc
