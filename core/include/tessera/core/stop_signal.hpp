// Clean stops on SIGINT and SIGTERM.
//
// A program that runs for long calls stop_on_signals() once (on every rank). From then on the
// first SIGINT or SIGTERM only sets a flag, and the program polls stop_requested(comm)
// between steps; a second signal ends the process at once, as the signal's default action
// does. When the poll says stop, the program finishes the step it is in, publishes the
// outputs that are complete, says so, and exits with stop_exit_code(signal) = 128 + signal,
// the status a shell shows for a process ended by that signal (130 for SIGINT, 143 for
// SIGTERM), so that a script sees the run did not finish.
#pragma once

#include <mpi.h>

#include <string>

namespace tessera {

// Installs the handlers for SIGINT and SIGTERM (idempotent). A signal that was ignored when
// the program started (nohup, a background job of a shell script) stays ignored.
void stop_on_signals();

// Collective over `comm`: the signal that asked some rank to stop, the same on every rank
// (the largest if several arrived), or 0. Without stop_on_signals it is 0 and costs nothing.
int stop_requested(MPI_Comm comm);

// 128 + signal.
int stop_exit_code(int signal);

// "SIGINT", "SIGTERM", else "signal N".
std::string signal_name(int signal);

}  // namespace tessera
