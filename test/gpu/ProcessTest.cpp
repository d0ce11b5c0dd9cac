// The supervised process with real children (sh, sleep, python): output,
// the result channel, caps, signals, timeout, cancellation, rlimit, and the
// sweep of the process group.
#include "pallas/gpu/Process.h"

#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace pallas::gpu;
using namespace std::chrono_literals;

namespace {

ProcessSpec shell(const std::string& script) {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", script};
  return spec;
}

// The pid printed as "child N" by the script.
int childPid(const std::string& text) {
  const auto at = text.find("child ");
  return at == std::string::npos ? 0 : std::atoi(text.c_str() + at + 6);
}

} // namespace

TEST(Process, CapturesStreamsAndExitCode) {
  ProcessOutcome outcome = runSupervised(shell("echo out; echo err >&2; exit 7"));
  EXPECT_EQ(outcome.end, ProcessOutcome::End::Exited);
  EXPECT_EQ(outcome.exitCode, 7);
  EXPECT_EQ(outcome.out.text(), "out\n");
  EXPECT_EQ(outcome.err.text(), "err\n");
  EXPECT_TRUE(outcome.groupGone);
}

TEST(Process, ResultChannelOnFd3IsSeparate) {
  ProcessSpec spec = shell("echo user; echo '{\"a\":1}' >&3; printf 'tail' >&3");
  spec.resultChannel = ResultChannel::Fd3;
  std::vector<std::string> lines;
  spec.onResultLine = [&](std::string_view line) { lines.emplace_back(line); };
  ProcessOutcome outcome = runSupervised(spec);
  EXPECT_EQ(outcome.out.text(), "user\n");
  EXPECT_EQ(outcome.result, "{\"a\":1}\ntail");
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "tail"}));
}

TEST(Process, ResultChannelOnStdout) {
  ProcessSpec spec = shell("echo result; echo user >&2");
  spec.resultChannel = ResultChannel::Stdout;
  ProcessOutcome outcome = runSupervised(spec);
  EXPECT_EQ(outcome.result, "result\n");
  EXPECT_EQ(outcome.out.text(), "");
  EXPECT_EQ(outcome.err.text(), "user\n");
}

TEST(Process, OutputIsCappedHeadAndTail) {
  ProcessSpec spec = shell("echo FIRST; yes | head -c 50000000; echo; echo LAST");
  spec.outputHeadCap = 1024;
  spec.outputTailCap = 4096;
  ProcessOutcome outcome = runSupervised(spec);
  EXPECT_EQ(outcome.exitCode, 0);
  EXPECT_TRUE(outcome.out.truncated());
  EXPECT_GT(outcome.out.totalBytes(), 50000000u);
  const std::string text = outcome.out.text();
  EXPECT_LT(text.size(), 6000u);
  EXPECT_EQ(text.rfind("FIRST\n", 0), 0u);
  EXPECT_NE(text.find("bytes omitted"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 5), "LAST\n");
}

TEST(Process, CrashBySignalIsReported) {
  ProcessOutcome outcome = runSupervised(shell("kill -SEGV $$"));
  EXPECT_EQ(outcome.end, ProcessOutcome::End::Signaled);
  EXPECT_EQ(outcome.signal, SIGSEGV);
  EXPECT_EQ(signalName(outcome.signal), "SIGSEGV");
}

TEST(Process, TimeoutKillsTheWholeGroup) {
  ProcessSpec spec = shell("sleep 300 & echo child $!; wait");
  spec.timeout = 500ms;
  ProcessOutcome outcome = runSupervised(spec);
  EXPECT_EQ(outcome.end, ProcessOutcome::End::TimedOut);
  const int child = childPid(outcome.out.text());
  ASSERT_GT(child, 0) << outcome.out.text();
  EXPECT_FALSE(processAlive(child));
  EXPECT_TRUE(outcome.groupGone);
  EXPECT_FALSE(processGroupAlive(outcome.processGroup));
  EXPECT_LT(outcome.wallSeconds, 30.0);
}

TEST(Process, TermIgnoredEscalatesToKill) {
  ProcessSpec spec = shell("trap '' TERM; echo ready; while :; do sleep 1; done");
  spec.timeout = 300ms;
  spec.killGrace = 300ms;
  ProcessOutcome outcome = runSupervised(spec);
  EXPECT_EQ(outcome.end, ProcessOutcome::End::TimedOut);
  EXPECT_EQ(outcome.signal, SIGKILL);
  EXPECT_TRUE(outcome.groupGone);
}

TEST(Process, CancelFromAnotherThreadKillsTheGroup) {
  CancelToken cancel;
  ProcessSpec spec = shell("sleep 300 & echo child $!; wait");
  std::thread canceller([&] {
    std::this_thread::sleep_for(300ms);
    cancel.cancel();
  });
  ProcessOutcome outcome = runSupervised(spec, &cancel);
  canceller.join();
  EXPECT_EQ(outcome.end, ProcessOutcome::End::Cancelled);
  const int child = childPid(outcome.out.text());
  ASSERT_GT(child, 0);
  EXPECT_FALSE(processAlive(child));
  EXPECT_TRUE(outcome.groupGone);
}

TEST(Process, StragglersAreSweptAfterANormalExit) {
  // The background sleep keeps stdout open; the run must still end promptly.
  ProcessOutcome outcome = runSupervised(shell("sleep 300 & echo child $!"));
  EXPECT_EQ(outcome.end, ProcessOutcome::End::Exited);
  const int child = childPid(outcome.out.text());
  ASSERT_GT(child, 0);
  EXPECT_FALSE(processAlive(child));
  EXPECT_TRUE(outcome.groupGone);
  EXPECT_LT(outcome.wallSeconds, 30.0);
}

TEST(Process, MemoryLimitApplies) {
  ProcessSpec spec;
  spec.argv = {PALLAS_TEST_PYTHON, "-c", "bytearray(8 << 30)"};
  spec.memoryLimitBytes = 1ull << 30;
  ProcessOutcome outcome = runSupervised(spec);
  EXPECT_EQ(outcome.end, ProcessOutcome::End::Exited);
  EXPECT_NE(outcome.exitCode, 0);
  EXPECT_NE(outcome.err.text().find("MemoryError"), std::string::npos) << outcome.err.text();
}

TEST(Process, SpawnFailuresAreReported) {
  ProcessSpec missing;
  missing.argv = {"pallas-lsp-no-such-command"};
  ProcessOutcome outcome = runSupervised(missing);
  EXPECT_EQ(outcome.end, ProcessOutcome::End::SpawnFailed);
  EXPECT_NE(outcome.spawnError.find("not found"), std::string::npos);

  const std::string plainFile = "/tmp/pallas-gpu-test-not-executable-" + std::to_string(getpid());
  {
    std::ofstream(plainFile) << "#!/bin/sh\necho never\n";
  }
  chmod(plainFile.c_str(), 0644);
  ProcessSpec notExecutable;
  notExecutable.argv = {plainFile};
  outcome = runSupervised(notExecutable);
  unlink(plainFile.c_str());
  EXPECT_EQ(outcome.end, ProcessOutcome::End::SpawnFailed);
  EXPECT_NE(outcome.spawnError.find("Permission denied"), std::string::npos) << outcome.spawnError;
}

TEST(Process, EnvironmentWorkingDirectoryAndStdin) {
  ProcessSpec spec = shell("echo \"$PALLAS_X\"; pwd; cat");
  spec.environment = {"PALLAS_X=forty two"};
  spec.workingDirectory = "/tmp";
  ProcessOutcome outcome = runSupervised(spec);
  EXPECT_EQ(outcome.out.text(), "forty two\n/tmp\n"); // stdin is /dev/null: cat ends at once
}

// An entry of the spec's environment replaces the variable this process
// has by that name, not only follows it: printenv (getenv) reads the first
// entry of a name, a shell or Python the last.
TEST(Process, SpecEnvironmentReplacesOurs) {
  setenv("PALLAS_OVERRIDDEN", "ours", 1);
  ProcessSpec spec;
  spec.argv = {"printenv", "PALLAS_OVERRIDDEN"};
  spec.environment = {"PALLAS_OVERRIDDEN=theirs"};
  ProcessOutcome outcome = runSupervised(spec);
  unsetenv("PALLAS_OVERRIDDEN");
  EXPECT_EQ(outcome.out.text(), "theirs\n");
}

TEST(Process, ChildDoesNotInheritOurDescriptors) {
  // An fd of this process without CLOEXEC must not leak into the child.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ProcessOutcome outcome = runSupervised(shell("ls /proc/self/fd | sort -n | tr '\\n' ' '"));
  close(fds[0]);
  close(fds[1]);
  // 0, 1, 2 and the fd ls itself opens for the directory listing.
  EXPECT_EQ(outcome.out.text(), "0 1 2 3 ") << outcome.out.text();
}

TEST(CappedBuffer, KeepsEverythingUnderTheCap) {
  CappedBuffer buffer(4, 4);
  buffer.append("abc");
  buffer.append("defg");
  EXPECT_FALSE(buffer.truncated());
  EXPECT_EQ(buffer.text(), "abcdefg");
  buffer.append("hijkl");
  EXPECT_TRUE(buffer.truncated());
  EXPECT_EQ(buffer.text(), "abcd\n[... 4 bytes omitted ...]\nijkl");
}

// ---- issue 14, item 10: what leaves the process group still goes ---------------

namespace {
std::vector<int> pidsAfter(const std::string& text, const std::string& tag) {
  std::vector<int> pids;
  for (size_t at = text.find(tag); at != std::string::npos; at = text.find(tag, at + 1))
    pids.push_back(std::atoi(text.c_str() + at + tag.size()));
  return pids;
}
} // namespace

TEST(Process, ChildrenThatLeaveTheGroupAreKilled) {
  // setsid (a new session) and a double fork (the parent exits at once, so
  // the grandchild is an orphan in another session): neither is in the
  // run's process group, both must be gone when the run ends. Their stdio
  // goes to /dev/null so the pipes do not wait for them.
  ProcessOutcome outcome = runSupervised(shell(
      "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo escaped $!;"
      "sh -c 'setsid sleep 301 </dev/null >/dev/null 2>&1 & echo escaped $!';"
      "sh -c '(setsid sh -c \"sleep 302 & echo escaped \\$!; wait\" </dev/null 2>&1 | cat &)';"
      "sleep 0.5; exit 0"));
  EXPECT_EQ(outcome.end, ProcessOutcome::End::Exited);
  EXPECT_EQ(outcome.exitCode, 0);
  std::vector<int> pids = pidsAfter(outcome.out.text(), "escaped ");
  ASSERT_GE(pids.size(), 2u) << outcome.out.text();
  for (int pid : pids)
    EXPECT_FALSE(processAlive(pid)) << pid;
  EXPECT_LT(outcome.wallSeconds, 30.0);
}

TEST(Process, EscapedChildrenAreKilledOnTimeoutToo) {
  ProcessSpec spec = shell("setsid sh -c 'trap \"\" TERM; sleep 300' </dev/null >/dev/null 2>&1 &"
                           "echo escaped $!; trap '' TERM; sleep 300");
  spec.timeout = 1500ms;
  spec.killGrace = 300ms;
  ProcessOutcome outcome = runSupervised(spec);
  EXPECT_EQ(outcome.end, ProcessOutcome::End::TimedOut);
  EXPECT_EQ(outcome.signal, SIGKILL);
  std::vector<int> pids = pidsAfter(outcome.out.text(), "escaped ");
  ASSERT_EQ(pids.size(), 1u) << outcome.out.text();
  EXPECT_FALSE(processAlive(pids[0]));
}

TEST(Process, StdinDataIsGivenThenClosed) {
  ProcessSpec spec = shell("read line; echo got:$line; cat; echo eof");
  spec.stdinData = "s3cret\n";
  ProcessOutcome outcome = runSupervised(spec);
  EXPECT_EQ(outcome.out.text(), "got:s3cret\neof\n");
}

TEST(Process, KilledLikeByTheOomKillerIsReportedAsSigkill) {
  ProcessOutcome outcome = runSupervised(shell("echo before; kill -KILL $$"));
  EXPECT_EQ(outcome.end, ProcessOutcome::End::Signaled);
  EXPECT_EQ(outcome.signal, SIGKILL);
  EXPECT_EQ(outcome.out.text(), "before\n");
  EXPECT_TRUE(outcome.groupGone);
}
