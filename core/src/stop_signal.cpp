#include "tessera/core/stop_signal.hpp"

#include <atomic>
#include <csignal>

namespace tessera {
namespace {

// Written by the handler (in whichever thread the signal lands), read between steps.
std::atomic<int> received{0};
static_assert(std::atomic<int>::is_always_lock_free);
bool installed = false;

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
}

int stop_requested(MPI_Comm comm) {
  if (!installed) return 0;
  int signal = received.load();
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
