#include "tessera/core/atomic_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "tessera/core/error.hpp"

namespace tessera {

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw Error("cannot write '" + tmp + "': " + std::strerror(errno));
    f << text;
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      throw Error("writing '" + tmp + "' failed: " + std::strerror(errno));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw Error("cannot rename '" + tmp + "' to '" + path + "': " + why);
  }
}

}  // namespace tessera
