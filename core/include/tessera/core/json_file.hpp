// JSON input files (target overrides, MCMC data and initial values), read one way.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera {

// Parses the JSON file at `path`. `what` names the file's role in messages ("data file");
// `hint`, if given, follows the message for a file that cannot be opened (e.g. what the option
// takes). Throws FormatError naming `what` and `path`: cannot open, not valid JSON (with the
// parser's line and column), or a number out of the range of a double (such as 1e999).
nlohmann::json read_json_file(const std::string& path, const std::string& what,
                              const std::string& hint = "");

// The same, collective over `comm`: rank 0 reads the file and sends its bytes to every rank
// (read_on_root, shared_input.hpp), which all parse the same text, so every rank gets the same
// value or the same error (marked collective). Ranks started in different folders, or with a
// different file under the same name, thus cannot diverge.
nlohmann::json read_json_file(MPI_Comm comm, const std::string& path, const std::string& what,
                              const std::string& hint = "");

}  // namespace tessera
