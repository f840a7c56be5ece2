#include "tessera/md/fix_print.hpp"

#include <fstream>
#include <sstream>

#include "arguments.hpp"
#include "tessera/core/atomic_file.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixPrint::FixPrint(const FixArguments& a)
    : Fix(a.id, a.group), substitute_(a.substitute), console_(a.print) {
  const std::string what = "fix " + a.id + " print";
  const char* usage = "fix ID GROUP print N TEXT [file F | append F] [screen yes|no] [title T]";
  arguments::need(a.args, 2, usage);
  if (a.args[0].rfind("v_", 0) == 0)
    arguments::bad(what + ": N as a variable (" + a.args[0] + ") is not supported; give a number");
  every_ = static_cast<int>(arguments::integer(what + " N", a.args[0], 1, arguments::int_max));
  text_ = a.args[1];
  bool append = false;
  std::string title = "# Fix print output for fix " + a.id;
  for (std::size_t k = 2; k < a.args.size(); k += 2) {
    const std::string& key = a.args[k];
    if (key != "file" && key != "append" && key != "screen" && key != "title")
      arguments::bad(what + ": unknown keyword '" + key + "' (quote the text if it has spaces); " +
                     "usage: " + usage);
    if (k + 1 >= a.args.size()) arguments::bad(what + ": keyword " + key + " needs a value");
    const std::string& value = a.args[k + 1];
    if (key == "file" || key == "append") {
      file_ = value;
      append = key == "append";
    } else if (key == "screen") {
      screen_ = arguments::yes_no(what + " screen", value);
    } else {
      title = value;
    }
  }
  if (!substitute_ || !console_) arguments::bad(what + ": needs the input's variables");
  if (file_.empty() || !a.sim || a.sim->runtime().rank() != 0) return;
  check_output_path(file_);
  if (append) {
    std::ifstream before(file_, std::ios::binary);
    std::ostringstream text;
    text << before.rdbuf();
    contents_ = text.str();
  }
  contents_ += title + "\n";
  AtomicFile out(file_, AtomicFile::Start::empty);
  out.write(contents_);
  out.commit();
}

// LAMMPS's FixPrint::setup: a run that starts at a multiple of N prints its first step.
void FixPrint::setup(Simulation& sim) {
  if (sim.step() % every_ == 0) print(sim);
}

void FixPrint::end_of_step(Simulation& sim) { print(sim); }

void FixPrint::print(Simulation& sim) {
  const std::string line = substitute_(text_) + "\n";
  if (sim.runtime().rank() != 0) return;
  if (screen_) console_(line);
  if (file_.empty()) return;
  contents_ += line;
  AtomicFile out(file_, AtomicFile::Start::empty);
  out.write(contents_);
  out.commit();
}

}  // namespace tessera::md
