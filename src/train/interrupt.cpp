// interrupt.cpp: see interrupt.h.
#include "train/interrupt.h"

#include <csignal>

namespace scratchgpt {

namespace {
volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop_signal(int sig) {
  g_stop = 1;
  std::signal(sig, SIG_DFL);  // a second one ends the process at once
}
}  // namespace

void install_stop_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() { return g_stop != 0; }
void request_stop() { g_stop = 1; }
void clear_stop_request() { g_stop = 0; }

}  // namespace scratchgpt
