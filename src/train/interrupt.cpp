// interrupt.cpp: see interrupt.h.
//
// The handler runs on an alternate signal stack (sigaltstack + SA_ONSTACK), never on the stack of
// the code it interrupts. This is not optional: oneDNN's JIT GEMM kernels (Debian 12's oneDNN 2.7;
// fixed upstream later) point rsp at a heap buffer while they run, so a signal frame pushed on
// "the stack" there overwrites the heap. That was the crash a Ctrl-C could cause with the oneDNN
// backend ("corrupted size vs. prev_size" in dnnl_sgemm's free, then no checkpoint). The thread
// pool's workers block these signals (core/thread_pool.cpp), so the signal lands on the thread that
// installed the handler and its alternate stack.
#include "train/interrupt.h"

#include <csignal>
#include <cstdlib>

namespace scratchgpt {

namespace {
volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop_signal(int sig) {
  g_stop = 1;
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);  // a second one ends the process at once
}

// One alternate signal stack per thread that installs the handler (sigaltstack is per thread).
void use_alternate_signal_stack() {
  constexpr size_t kSize = 64 * 1024;  // well above SIGSTKSZ and MINSIGSTKSZ on x86-64
  thread_local void* stack = nullptr;
  if (stack != nullptr) return;
  stack = std::malloc(kSize);
  if (stack == nullptr) return;
  stack_t ss{};
  ss.ss_sp = stack;
  ss.ss_size = kSize;
  ss.ss_flags = 0;
  sigaltstack(&ss, nullptr);
}
}  // namespace

void install_stop_handler() {
  use_alternate_signal_stack();
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_ONSTACK;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() { return g_stop != 0; }
void request_stop() { g_stop = 1; }
void clear_stop_request() { g_stop = 0; }

}  // namespace scratchgpt
