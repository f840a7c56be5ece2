// What the md harnesses share: a fresh simulation on the tiny target per input, the files the
// project's own md inputs name (as fixtures in the private folder), and the script runner.
#pragma once

#include <string>
#include <string_view>

namespace tessera::fuzz {

// Puts into the private folder the files the project's md inputs read, under the names they
// use: eight.data (also as lj4000.data and data.lmp), forces.data, water_192.data, model.yaml
// (corpus/deepmd_model/tiny.yaml) and md.restart (written here by a 32-atom run).
void md_fixtures();

// Runs `script` with md's Input on a fresh Simulation of the tiny target (one thread), with
// the -var variables the project's inputs expect (data, restart, model, out, ...). The script's
// steps and commands are bounded by `polls` (request_stop), and a script that names a file
// outside the private folder (a word beginning with '/' or holding "..") is not run: an input
// must not write anywhere else.
void run_md_script(std::string_view script, long polls = 300);

}  // namespace tessera::fuzz
