// interrupt.h: Ctrl-C (SIGINT) and SIGTERM (kill, a batch scheduler or a shutdown) as a request
// to stop cleanly: the first one sets a flag the training loop checks after each step (it then
// saves a checkpoint and exits); a second one ends the process as usual. Leaves out: SIGHUP.
#pragma once

namespace scratchgpt {

void install_stop_handler();  // idempotent
bool stop_requested();
void request_stop();  // what the handler does; tests call it directly
void clear_stop_request();

}  // namespace scratchgpt
