#include "tessera/core/stop_signal.hpp"

#include <atomic>
#include <csignal>

namespace tessera {
namespace {

// Written by the handler (in whichever thread the signal lands), read between steps.
std::atomic<int> received{0};
static_assert(std::atomic<int>::is_always_lock_free);
bool installed = false;  // the handlers
// stop_on_signals or request_stop was called: polls are collective from then on.
bool polling = false;
// request_stop: the signal to report and the polls left before it shows (-1: none pending).
std::atomic<int> requested{0};
std::atomic<long> polls_left{-1};

extern "C" void on_stop_signal(int signal) { received.store(signal); }

}  // namespace

void stop_on_signals() {
  if (installed) return;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESETHAND: the second signal takes the default action and ends the process.
  // SA_RESTART: a write or a wait in progress goes on rather than failing with EINTR.
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  for (int signal : {SIGINT, SIGTERM}) {
    // A signal ignored from the start stays ignored (nohup, a shell's background job).
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
    sigaction(signal, &action, nullptr);
  }
  installed = true;
  polling = true;
}

void request_stop(int signal, long after_polls) {
  polls_left.store(after_polls < 0 ? 0 : after_polls);
  requested.store(signal);
  polling = true;
}

void clear_stop_request() {
  requested.store(0);
  polls_left.store(-1);
  received.store(0);
}

int stop_requested(MPI_Comm comm) {
  if (!polling) return 0;
  int signal = received.load();
  if (const int asked = requested.load()) {
    // Counts down to 0 and stays there: the stop shows from that poll on.
    long left = polls_left.load();
    if (left > 0) polls_left.store(left - 1);
    if (left == 0 && asked > signal) signal = asked;
  }
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  if (ranks > 1) MPI_Allreduce(MPI_IN_PLACE, &signal, 1, MPI_INT, MPI_MAX, comm);
  return signal;
}

int stop_exit_code(int signal) { return 128 + signal; }

std::string signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(signal);
}

}  // namespace tessera
