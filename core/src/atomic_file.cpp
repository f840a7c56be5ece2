#include "tessera/core/atomic_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tessera/core/error.hpp"

namespace tessera {

std::string partial_path(const std::string& path) { return path + ".part"; }

void publish(const std::string& path) {
  const std::string part = partial_path(path);
  std::error_code ec;
  std::filesystem::rename(part, path, ec);
  if (ec) throw Error("cannot rename '" + part + "' to '" + path + "': " + ec.message());
}

void publish_copy(const std::string& path) {
  // The copy is itself written aside and renamed, so that PATH is replaced in one step.
  const std::string part = partial_path(path), copy = partial_path(path) + ".copy";
  std::error_code ec;
  std::filesystem::copy_file(part, copy, std::filesystem::copy_options::overwrite_existing, ec);
  if (!ec) std::filesystem::rename(copy, path, ec);
  if (ec) {
    std::filesystem::remove(copy);
    throw Error("cannot publish '" + part + "' as '" + path + "': " + ec.message());
  }
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string part = partial_path(path);
  {
    std::ofstream f(part, std::ios::binary | std::ios::trunc);
    if (!f) throw Error("cannot write '" + part + "': " + std::strerror(errno));
    f << text;
    f.flush();
    if (!f) {
      std::remove(part.c_str());
      throw Error("writing '" + part + "' failed: " + std::strerror(errno));
    }
  }
  try {
    publish(path);
  } catch (const Error&) {
    std::remove(part.c_str());
    throw;
  }
}

}  // namespace tessera
