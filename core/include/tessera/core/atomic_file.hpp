// Output files that are either complete or absent.
//
// One convention for every writer: a file is written under partial_path(PATH) = PATH.part and
// only then appears under PATH, by a rename (publish) or, for a file that keeps growing (a
// trajectory between runs), by renaming a complete copy (publish_copy). A reader never sees a
// half-written PATH; a crash leaves PATH.part behind, never a truncated PATH.
#pragma once

#include <string>

#include "tessera/core/error.hpp"

namespace tessera {

// PATH.part: where PATH is written before it is published.
std::string partial_path(const std::string& path);

// Renames PATH.part to PATH. Throws Error naming both paths.
void publish(const std::string& path);

// Publishes a complete copy of PATH.part as PATH and keeps PATH.part for more output.
// Throws Error naming both paths.
void publish_copy(const std::string& path);

// Writes `text` to PATH.part and publishes it. Throws Error naming the path.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace tessera
