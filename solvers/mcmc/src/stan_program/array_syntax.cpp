#include "array_syntax.hpp"

#include <cctype>
#include <cstddef>

namespace tessera::mcmc {

namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The index just past the bracket that closes the one at `open` (text[open] is '[' or '<'),
// counting (), [] and <> inside; npos when it is not closed.
std::size_t past_closing(const std::string& text, std::size_t open) {
  const char opening = text[open], closing = opening == '[' ? ']' : '>';
  int depth = 0, parentheses = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(') ++parentheses;
    if (c == ')') --parentheses;
    if (parentheses > 0) continue;  // `upper = (a < b)` holds no bracket of ours
    if (c == opening) ++depth;
    if (c == closing && --depth == 0) return i + 1;
  }
  return std::string::npos;
}

std::size_t skip_space(const std::string& text, std::size_t i) {
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  return i;
}

std::size_t past_identifier(const std::string& text, std::size_t i) {
  while (i < text.size() && identifier_char(text[i])) ++i;
  return i;
}

// Rewrites the declaration starting at `at` (the word `array`) into `out`; returns the index
// just past what it consumed, or npos (nothing written) when it is not one it knows.
std::size_t rewrite_one(const std::string& text, std::size_t at, std::string& out) {
  const std::size_t open = skip_space(text, at + 5);
  if (open >= text.size() || text[open] != '[') return std::string::npos;
  const std::size_t dims_end = past_closing(text, open);
  if (dims_end == std::string::npos) return std::string::npos;
  const std::string dims = text.substr(open, dims_end - open);  // with its brackets
  const std::size_t type_begin = skip_space(text, dims_end);
  std::size_t type_end = past_identifier(text, type_begin);
  if (type_end == type_begin) return std::string::npos;
  for (char opening : {'<', '['}) {  // a constraint, then a size (vector<lower=0>[K])
    const std::size_t next = skip_space(text, type_end);
    if (next < text.size() && text[next] == opening) {
      type_end = past_closing(text, next);
      if (type_end == std::string::npos) return std::string::npos;
    }
  }
  // A line break between the size and the type stays before the type: lines stay lines.
  const std::string gap = text.substr(dims_end, type_begin - dims_end);
  const std::string type = (gap.find('\n') != std::string::npos ? gap : std::string()) +
                           text.substr(type_begin, type_end - type_begin);
  bool unsized = true;
  for (char c : dims.substr(1, dims.size() - 2))
    if (c != ',' && !std::isspace(static_cast<unsigned char>(c))) unsized = false;
  if (unsized) {  // a function argument's type: real[,]
    out += type + dims;
    return type_end;
  }
  const std::size_t name_begin = skip_space(text, type_end);
  const std::size_t name_end = past_identifier(text, name_begin);
  if (name_end == name_begin) return std::string::npos;
  out += type + text.substr(type_end, name_begin - type_end) +
         text.substr(name_begin, name_end - name_begin) + dims;
  return name_end;
}

}  // namespace

std::string with_old_array_syntax(const std::string& program, int& rewrites) {
  rewrites = 0;
  std::string out;
  out.reserve(program.size());
  std::size_t i = 0;
  while (i < program.size()) {
    const char c = program[i];
    // Comments and strings are copied as they are.
    if (program.compare(i, 2, "//") == 0 || c == '#') {
      const std::size_t end = program.find('\n', i);
      const std::size_t stop = end == std::string::npos ? program.size() : end;
      out.append(program, i, stop - i);
      i = stop;
      continue;
    }
    if (program.compare(i, 2, "/*") == 0) {
      const std::size_t end = program.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? program.size() : end + 2;
      out.append(program, i, stop - i);
      i = stop;
      continue;
    }
    if (c == '"') {
      const std::size_t end = program.find('"', i + 1);
      const std::size_t stop = end == std::string::npos ? program.size() : end + 1;
      out.append(program, i, stop - i);
      i = stop;
      continue;
    }
    if (identifier_char(c)) {
      const std::size_t end = past_identifier(program, i);
      if (end - i == 5 && program.compare(i, 5, "array") == 0) {
        const std::size_t next = rewrite_one(program, i, out);
        if (next != std::string::npos) {
          ++rewrites;
          i = next;
          continue;
        }
      }
      out.append(program, i, end - i);
      i = end;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace tessera::mcmc
