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

// A stop as if `signal` had arrived, asked by the program itself (an embedding application's
// stop button, a test's or a fuzz harness's bound on the work of one input): stop_requested
// reports it from the `after_polls`-th next poll on this process on (0: the next poll), whether
// or not stop_on_signals was called. A poll counts down the same on every rank of a program
// that requests the same stop on every rank, so the stop is deterministic (a bound in steps and
// commands, not in time); once a rank has called request_stop or stop_on_signals its polls are
// collective, so call it on every rank.
void request_stop(int signal, long after_polls = 0);

// Forgets a stop requested or received so far (the next input of an embedding program starts
// afresh); the handlers of stop_on_signals stay as they are (a second signal still ends the
// process if one arrived before).
void clear_stop_request();

// 128 + signal.
int stop_exit_code(int signal);

// "SIGINT", "SIGTERM", else "signal N".
std::string signal_name(int signal);

}  // namespace tessera
