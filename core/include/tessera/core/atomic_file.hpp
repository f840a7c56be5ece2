// Output files that are either complete or absent.
#pragma once

#include <string>

namespace tessera {

// Writes `text` to `path` through a temporary file and a rename, so that a
// reader never sees a half-written file. Throws Error naming the path.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace tessera
