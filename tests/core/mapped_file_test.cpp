// mapped_file_test.cpp: MappedFile and load_safetensors refuse what is not a regular file at once,
// naming it: a FIFO used to block the open forever (waiting for a writer), a directory or device
// is refused too. Each open runs in a child process the test kills after 20 s, so the test fails
// instead of hanging if the blocking open comes back.
#include "core/mapped_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "core/check.h"
#include "core/safetensors.h"
#include "scratch_dir.h"

using namespace scratchgpt;
namespace fs = std::filesystem;

namespace {

std::string fresh_dir(const std::string& name) { return test::scratch_dir(name); }

// Runs f in a child; the child's Error message comes back through a pipe. A child still running
// after 20 s is killed and reported as "hung".
std::string error_in_child(const std::function<void()>& f) {
  int p[2];
  if (::pipe(p) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(p[0]);
    std::string msg = "no error";
    try {
      f();
    } catch (const Error& e) {
      msg = e.what();
    }
    if (::write(p[1], msg.data(), msg.size()) < 0) ::_exit(2);
    ::_exit(0);
  }
  ::close(p[1]);
  int status = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (::waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > end) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      ::close(p[0]);
      return "hung";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) msg.append(buf, static_cast<size_t>(n));
  ::close(p[0]);
  return msg;
}

}  // namespace

TEST(MappedFile, MapsARegularFile) {
  const std::string d = fresh_dir("plain");
  std::ofstream(d + "/f", std::ios::binary) << "bytes";
  const MappedFile m(d + "/f");
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(m.data()), m.size()), "bytes");
  std::ofstream(d + "/empty", std::ios::binary).flush();
  EXPECT_EQ(MappedFile(d + "/empty").size(), 0u);
}

TEST(MappedFile, AFifoOrDeviceIsRefusedAtOnceNamingIt) {
  const std::string d = fresh_dir("fifo");
  const std::string fifo = d + "/model.safetensors";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  std::string e = error_in_child([&] { MappedFile m(fifo); });
  EXPECT_NE(e.find("'" + fifo + "' is a FIFO (named pipe), not a regular file"), std::string::npos)
      << e;
  e = error_in_child([&] { load_safetensors(fifo); });
  EXPECT_NE(e.find(fifo), std::string::npos) << e;
  EXPECT_NE(e.find("FIFO"), std::string::npos) << e;
  e = error_in_child([&] { MappedFile m("/dev/zero"); });
  EXPECT_NE(e.find("a character device"), std::string::npos) << e;
  e = error_in_child([&] { MappedFile m(d); });
  EXPECT_NE(e.find("a directory"), std::string::npos) << e;
  e = error_in_child([&] { MappedFile m(d + "/none"); });
  EXPECT_NE(e.find("cannot open '" + d + "/none'"), std::string::npos) << e;
}
