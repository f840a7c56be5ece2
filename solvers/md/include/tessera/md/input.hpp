// Input: an interpreter for the subset of LAMMPS's input language md_ipu speaks.
//
// Lines are read as LAMMPS reads them: a trailing '&' continues a line, '#'
// starts a comment outside quotes, $x / ${name} / $(formula) are substituted,
// then the first word names the command. Every error names the command, the
// file and line, and what to do, and is raised identically on every rank.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/md/console.hpp"
#include "tessera/md/expression.hpp"
#include "tessera/md/lattice.hpp"
#include "tessera/md/minimize.hpp"
#include "tessera/md/output_reference.hpp"
#include "tessera/md/random_mars.hpp"
#include "tessera/md/region.hpp"
#include "tessera/md/simulation.hpp"
#include "tessera/md/thermo_output.hpp"

namespace tessera::md {

class Dump;

class Input {
 public:
  // The interpreter owns the system it builds on `runtime` (a script's clear starts anew).
  Input(Runtime& runtime, Console& console);
  ~Input();

  Simulation& sim() { return *sim_; }
  const Simulation& sim() const { return *sim_; }

  // -var NAME VALUE...: an index-style variable defined before the script runs.
  void define_variable(const std::string& name, const std::vector<std::string>& values);
  // Runs a script; `source` names it in messages (a file name or "built-in example").
  void run_script(const std::string& text, const std::string& source);
  void run_file(const std::string& path);

  // A stop signal (tessera/core/stop_signal.hpp, polled after each step of a run and between
  // commands) ends the script early: the run it came in ends after its step, the dumps
  // publish what they hold, and the remaining commands are not run.
  struct Stop {
    int signal = 0;         // 0: the script ran to its end
    std::int64_t step = 0;  // the step the simulation had reached
    std::string where;      // " (FILE, line N: COMMAND)"
  };
  const Stop& stopped() const { return stopped_; }

  // Which of the screen and the log echo each input line: none, screen, log (LAMMPS's
  // default) or both (LAMMPS's -echo and echo command). Throws ConfigError for other words.
  void set_echo(const std::string& style);

 private:
  struct Variable {
    // index, loop, uloop, string, equal, atom, atomfile, format, getenv, internal
    std::string style;
    // index/loop/uloop: the values left, the current first; string/internal: the value;
    // equal and atom: the formula; format: the variable and the format; getenv: the name;
    // atomfile: the file's name.
    std::vector<std::string> values;
    // atomfile: the file's text, where its next set starts, and the values by atom ID of the
    // set read last (an atom it does not list has 0).
    std::shared_ptr<const std::string> text{};
    std::size_t next_set = 0;
    std::shared_ptr<const std::unordered_map<std::int64_t, double>> by_id{};
    bool per_atom() const { return style == "atom" || style == "atomfile"; }
  };
  // Reads the next set of an atomfile variable's file into it; false at the file's end.
  bool read_atomfile_set(const std::string& name, Variable& v);
  struct Jump {
    std::string file, label;
  };

  void execute(const std::string& line);
  // " (FILE, line N: COMMAND)" of the command being run, for error messages.
  std::string location() const;
  // The line without its comment ('#' outside quotes).
  static std::string strip_comment(const std::string& line);
  // $x, ${name} and $(formula) replaced, outside quotes.
  std::string expand(const std::string& text);
  std::string variable_text(const std::string& name);
  double evaluate_formula(const std::string& formula);
  // Atom-style variables as fixes and computes read them (compute.hpp); `depth` stops a
  // variable that refers to itself.
  AtomVariables atom_variables();
  Formula::VectorLookup global_vectors(const std::string& where);
  // One atom's value by id, as LAMMPS's atom value references (x[N], x[v_NAME]; collective);
  // nothing for a name of another form.
  std::optional<double> atom_value(const std::string& name, const std::string& where);
  // The streams of random() and normal() (expression.hpp): every atom-style draw goes atom
  // after atom in id order over ids 1..max_id, as LAMMPS on one processor draws them for atoms
  // numbered 1..N in that order.
  FormulaRandom formula_random();
  void check_current(const OutputReference& ref, const std::string& where) const;
  AtomValues bind_atom_variable(const std::string& name, int depth);
  std::vector<std::string> split(const std::string& line) const;

  // Commands, each looked up by its name in commands().
  using Command = void (Input::*)(const std::vector<std::string>&);
  static const std::map<std::string, Command>& commands();
  void units(const std::vector<std::string>& a);
  void dimension(const std::vector<std::string>& a);
  void boundary(const std::vector<std::string>& a);
  void box(const std::vector<std::string>& a);
  void warn_large_skew();
  void atom_style(const std::vector<std::string>& a);
  void read_data_command(const std::vector<std::string>& a);
  void write_data_command(const std::vector<std::string>& a);
  void read_restart_command(const std::vector<std::string>& a);
  void write_restart_command(const std::vector<std::string>& a);
  void dielectric(const std::vector<std::string>& a);
  void timestep(const std::vector<std::string>& a);
  void unfix(const std::vector<std::string>& a);
  void thermo(const std::vector<std::string>& a);
  void thermo_style(const std::vector<std::string>& a);
  void undump(const std::vector<std::string>& a);
  void echo(const std::vector<std::string>& a);
  void reset_timestep(const std::vector<std::string>& a);
  void processors(const std::vector<std::string>& a);
  void newton(const std::vector<std::string>& a);
  void shell(const std::vector<std::string>& a);
  void atom_modify(const std::vector<std::string>& a);
  // newton, comm_modify: refused with the reason.
  void decomposition_command(const std::vector<std::string>& a);
  void lattice(const std::vector<std::string>& a);
  void region(const std::vector<std::string>& a);
  // The region with this ID; throws ConfigError naming `command` when there is none.
  const Region& find_region(const std::string& id, const std::string& command) const;
  void create_box(const std::vector<std::string>& a);
  void create_atoms(const std::vector<std::string>& a);
  void create_single_atom(std::int32_t type, const std::vector<std::string>& a);
  void mass(const std::vector<std::string>& a);
  void velocity(const std::vector<std::string>& a);
  void pair_style(const std::vector<std::string>& a);
  void pair_coeff(const std::vector<std::string>& a);
  void pair_modify(const std::vector<std::string>& a);
  void kspace_style(const std::vector<std::string>& a);
  // Molecular topology's commands (input_molecular.cpp).
  void bond_style(const std::vector<std::string>& a);
  void bond_coeff(const std::vector<std::string>& a);
  void angle_style(const std::vector<std::string>& a);
  void angle_coeff(const std::vector<std::string>& a);
  void dihedral_style(const std::vector<std::string>& a);
  void dihedral_coeff(const std::vector<std::string>& a);
  void improper_style(const std::vector<std::string>& a);
  void improper_coeff(const std::vector<std::string>& a);
  void special_bonds(const std::vector<std::string>& a);
  void kspace_modify(const std::vector<std::string>& a);
  void neighbor(const std::vector<std::string>& a);
  void neigh_modify(const std::vector<std::string>& a);
  void fix(const std::vector<std::string>& a);
  void compute(const std::vector<std::string>& a);
  void compute_modify(const std::vector<std::string>& a);
  void fix_modify(const std::vector<std::string>& a);
  void delete_atoms(const std::vector<std::string>& a);
  void uncompute(const std::vector<std::string>& a);
  void thermo_modify(const std::vector<std::string>& a);
  void dump(const std::vector<std::string>& a);
  void dump_modify(const std::vector<std::string>& a);
  void run(const std::vector<std::string>& a);
  void min_style(const std::vector<std::string>& a);
  void min_modify(const std::vector<std::string>& a);
  void minimize(const std::vector<std::string>& a);
  // One run of `n` steps; `summary`: print the loop time and performance lines after it.
  void run_chunk(long long n, const Simulation::RunOptions& options, bool summary);
  std::vector<Dump*> dump_list() const;
  // A run ended by an error: publishes the dumps' complete frames, or none if a dump's write
  // failed.
  void end_dumps_after_error();
  void variable(const std::vector<std::string>& a);
  void print(const std::vector<std::string>& a);
  void log(const std::vector<std::string>& a);
  void group(const std::vector<std::string>& a);
  void set(const std::vector<std::string>& a);
  void displace_atoms(const std::vector<std::string>& a);
  void change_box(const std::vector<std::string>& a);
  void read_dump(const std::vector<std::string>& a);
  void rerun(const std::vector<std::string>& a);
  void replicate(const std::vector<std::string>& a);
  // A set keyword's value: a number, or an atom-style variable's value for the atom (the one
  // source set_value bound for the keyword).
  struct SetValue {
    double constant = 0;
    bool variable = false;
    double of(const Simulation::AtomChange& c) const { return variable ? c.values[0] : constant; }
  };
  SetValue set_value(const std::string& key, const std::string& word,
                     std::vector<AtomValues>& sources);
  void balance(const std::vector<std::string>& a);
  void comm_style(const std::vector<std::string>& a);
  // Script control: next, label, jump, include, if.
  void next(const std::vector<std::string>& a);
  void label(const std::vector<std::string>& a);
  void jump(const std::vector<std::string>& a);
  void include(const std::vector<std::string>& a);
  void if_command(const std::vector<std::string>& a);
  bool condition(const std::string& text);
  // The lines of one file (run_script keeps its name and restores the caller's); a jump
  // replaces them.
  void run_lines(std::vector<std::string> lines);

  // A fresh system with LAMMPS's defaults, its thermo output and dumps none (start and clear).
  void start_simulation();
  void clear(const std::vector<std::string>& a);

  Runtime& runtime_;
  std::unique_ptr<Simulation> sim_;
  Console& console_;
  std::shared_ptr<ThermoOutput> thermo_;
  std::map<std::string, Variable> variables_;
  std::map<std::string, std::shared_ptr<const Region>> regions_;
  std::map<std::string, std::shared_ptr<Dump>> dumps_;
  Lattice lattice_;
  std::optional<RandomMars> random_equal_, random_atom_;  // made at their first draw
  bool warned_unintegrated_ = false;
  MinSettings min_;  // min_style and min_modify
  std::string source_;
  int line_number_ = 0;
  std::string last_command_;  // as substituted, for messages
  Stop stopped_;
  bool echo_screen_ = false, echo_log_ = true;
  std::optional<Jump> jump_;     // set by jump, taken by run_lines after the command
  bool skip_next_jump_ = false;  // a next ran a variable out
  int depth_ = 0;                // files being read (include nests them)
  int running_every_ = 0;        // run every's commands are being run
};

}  // namespace tessera::md
