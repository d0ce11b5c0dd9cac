// The runner end to end: the real runner script in the real Python with JAX
// on the CPU, through the launch template, with real kernels from kernels/.
#include "pallas/gpu/Runner.h"

#include "pallas/gpu/Process.h"

#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace pallas::gpu;
using namespace std::chrono_literals;
using Status = RunResult::Status;

namespace {

std::string kernel(const std::string& name) {
  return std::string(PALLAS_TEST_KERNELS) + "/" + name;
}

class Runner : public ::testing::Test {
protected:
  void SetUp() override {
    if (access(PALLAS_TEST_PYTHON, X_OK) != 0)
      GTEST_FAIL() << "no Python at " << PALLAS_TEST_PYTHON << " (run scripts/bootstrap.sh)";
  }
  RunRequest request(const std::string& file, const std::string& entry, RunMode mode) {
    RunRequest r;
    r.file = kernel(file);
    r.entry = entry;
    r.mode = mode;
    r.python = PALLAS_TEST_PYTHON;
    r.runner = PALLAS_TEST_RUNNER;
    r.repetitions = 3;
    r.timeout = 120s;
    return r;
  }
  // What the failure message should show: the whole report.
  static std::string why(const RunResult& result) { return result.report(); }
};

bool jaxSeesGpu(const RunResult& result) {
  for (const auto& device : result.environment.value("devices", nlohmann::json::array()))
    if (device.value("platform", "") == "gpu" || device.value("platform", "") == "cuda")
      return true;
  return false;
}

int lineOf(const std::string& file, const std::string& needle) {
  std::ifstream in(file);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.find(needle) != std::string::npos)
      return number;
  }
  return -1;
}

int childPid(const std::string& text) {
  const auto at = text.find("child ");
  return at == std::string::npos ? 0 : std::atoi(text.c_str() + at + 6);
}

} // namespace

TEST_F(Runner, InterpretRunsForRealWithTheMarkedEntry) {
  std::vector<Progress> events;
  RunResult result = runKernel(request("add.py", "", RunMode::Interpret),
                               [&](const Progress& p) { events.push_back(p); });
  ASSERT_EQ(result.status, Status::Succeeded) << why(result);
  EXPECT_EQ(result.entry, "main"); // found through `# pallas-lsp: entry`
  ASSERT_EQ(result.modes.size(), 1u);
  const ModeResult& mode = result.modes[0];
  EXPECT_EQ(mode.mode, "interpret");
  EXPECT_EQ(mode.runs, 3);
  ASSERT_TRUE(mode.compileSeconds && mode.runSecondsMedian);
  EXPECT_GT(*mode.compileSeconds, 0.0);
  ASSERT_EQ(mode.outputs.size(), 2u);
  const OutputSummary& sum = mode.outputs[0];
  EXPECT_EQ(sum.path, "['sum']");
  EXPECT_EQ(sum.shape, (std::vector<std::int64_t>{16, 128}));
  EXPECT_EQ(sum.dtype, "float32");
  EXPECT_EQ(sum.checksum.size(), 16u);
  // x = arange(2048) / 7, y = 1: sum(x + 2y) = 2047 * 2048 / 2 / 7 + 4096.
  ASSERT_TRUE(sum.sum);
  EXPECT_NEAR(*sum.sum, 2047.0 * 2048 / 2 / 7 + 4096, 0.5);
  // Progress in order: started, compiling, running..., finished.
  ASSERT_GE(events.size(), 4u);
  EXPECT_EQ(events.front().phase, Phase::Started);
  EXPECT_EQ(events.back().phase, Phase::Finished);
  bool compiling = false, running = false;
  for (const Progress& p : events) {
    compiling |= p.phase == Phase::Compiling;
    if (p.phase == Phase::Running) {
      EXPECT_TRUE(compiling) << "running before compiling";
      running = true;
    }
  }
  EXPECT_TRUE(compiling && running);
  EXPECT_TRUE(result.processGroupGone);
}

TEST_F(Runner, CompiledWithoutACapableGpuFailsClearly) {
  RunResult result = runKernel(request("add.py", "main", RunMode::Compiled));
  if (jaxSeesGpu(result))
    GTEST_SKIP() << "JAX sees a GPU here; device-check.sh covers compiled runs";
  ASSERT_EQ(result.status, Status::Failed) << why(result);
  ASSERT_EQ(result.modes.size(), 1u);
  ASSERT_TRUE(result.modes[0].error);
  EXPECT_EQ(result.modes[0].error->type, "NoCapableGPU");
  EXPECT_NE(result.message.find("compute capability 9.0 or newer"), std::string::npos)
      << result.message;
}

TEST_F(Runner, CompareTwoPathsThatRunOnCpu) {
  RunRequest r = request("add.py", "main", RunMode::Compare);
  r.compareFirst = RunMode::Interpret;
  r.compareSecond = RunMode::GpuInterpret;
  RunResult result = runKernel(r);
  ASSERT_EQ(result.status, Status::Succeeded) << why(result);
  ASSERT_EQ(result.modes.size(), 2u);
  EXPECT_EQ(result.modes[1].mode, "gpu-interpret");
  ASSERT_EQ(result.comparisons.size(), 2u);
  for (const Comparison& c : result.comparisons) {
    EXPECT_TRUE(c.comparable) << c.path << " " << c.note;
    ASSERT_TRUE(c.maxAbsDiff && c.maxRelDiff);
    EXPECT_LT(*c.maxRelDiff, 1e-5) << c.path;
  }
  // The input passed through unchanged: exactly equal on both paths.
  EXPECT_EQ(result.comparisons[1].path, "['x']");
  EXPECT_EQ(*result.comparisons[1].maxAbsDiff, 0.0);
  // Each comparison's heat map (gpu/README.md) arrives, and toJson passes it
  // on unchanged: x is 16x128, so 16x64 cells of 1x2 elements, all zero.
  const nlohmann::json& heat = result.comparisons[1].heatMap;
  ASSERT_TRUE(heat.is_object()) << result.document.dump().substr(0, 2000);
  EXPECT_EQ(heat["grid"], nlohmann::json({16, 64}));
  EXPECT_EQ(heat["block"], nlohmann::json({1, 2}));
  EXPECT_EQ(heat["max"], 0.0);
  EXPECT_EQ(result.toJson()["comparisons"][1]["heat_map"], heat);
  EXPECT_TRUE(result.comparisons[0].heatMap.is_object());
}

TEST_F(Runner, CompareReportsTheCompiledSidesFailure) {
  RunResult result = runKernel(request("mgpu_kernel.py", "main", RunMode::Compare));
  if (jaxSeesGpu(result))
    GTEST_SKIP() << "JAX sees a GPU here";
  ASSERT_EQ(result.status, Status::Failed) << why(result);
  ASSERT_EQ(result.modes.size(), 2u);
  EXPECT_EQ(result.modes[0].mode, "compiled");
  ASSERT_TRUE(result.modes[0].error);
  EXPECT_EQ(result.modes[0].error->type, "NoCapableGPU");
  EXPECT_TRUE(result.modes[1].ok) << why(result); // the interpreted side still ran
  EXPECT_EQ(result.modes[1].outputs.size(), 2u);
  EXPECT_TRUE(result.comparisons.empty());
  EXPECT_NE(result.stdoutText.find("hello from the entry"), std::string::npos);
}

TEST_F(Runner, UserErrorsCarryTheUsersFrames) {
  RunResult result = runKernel(request("faults.py", "raise_in_user_code", RunMode::Interpret));
  ASSERT_EQ(result.status, Status::Failed) << why(result);
  ASSERT_TRUE(result.modes.at(0).error);
  const PythonError& error = *result.modes[0].error;
  EXPECT_EQ(error.type, "ValueError");
  EXPECT_NE(error.message.find("bad values"), std::string::npos);
  const Frame* frame = error.innermostUserFrame();
  ASSERT_NE(frame, nullptr) << error.traceback;
  EXPECT_EQ(frame->function, "helper");
  EXPECT_EQ(frame->line, lineOf(kernel("faults.py"), "raise ValueError"));
  for (const Frame& f : error.frames)
    if (f.file.find("pallas_lsp_runner.py") != std::string::npos ||
        f.file.find("site-packages") != std::string::npos)
      EXPECT_FALSE(f.user) << f.file;
}

TEST_F(Runner, InlineMgpuUnderInterpretReportsTheDischargeError) {
  RunResult result = runKernel(request("inline_mgpu.py", "main", RunMode::Interpret));
  ASSERT_EQ(result.status, Status::Failed) << why(result);
  const PythonError& error = *result.modes.at(0).error;
  EXPECT_EQ(error.type, "NotImplementedError");
  EXPECT_NE(error.message.find("inline_mgpu_p does not support discharge"), std::string::npos)
      << error.message;
  const Frame* frame = error.innermostUserFrame();
  ASSERT_NE(frame, nullptr);
  EXPECT_NE(frame->file.find("inline_mgpu.py"), std::string::npos);
}

TEST_F(Runner, SetupErrors) {
  RunResult args = runKernel(request("add.py", "takes_args", RunMode::Interpret));
  ASSERT_EQ(args.status, Status::Failed);
  ASSERT_TRUE(args.setupError);
  EXPECT_EQ(args.setupError->type, "EntryTakesArguments");

  RunResult missing = runKernel(request("add.py", "no_such_function", RunMode::Interpret));
  ASSERT_TRUE(missing.setupError);
  EXPECT_EQ(missing.setupError->type, "EntryNotFound");

  RunResult unmarked = runKernel(request("faults.py", "", RunMode::Interpret));
  ASSERT_TRUE(unmarked.setupError);
  EXPECT_NE(unmarked.setupError->message.find("pallas-lsp: entry"), std::string::npos);
}

TEST_F(Runner, AbortIsACrashWithItsOutput) {
  RunResult result = runKernel(request("faults.py", "crash_abort", RunMode::Interpret));
  ASSERT_EQ(result.status, Status::Crashed) << why(result);
  EXPECT_EQ(result.signal, SIGABRT);
  EXPECT_NE(result.message.find("SIGABRT"), std::string::npos) << result.message;
  EXPECT_NE(result.stdoutText.find("about to abort"), std::string::npos);
  EXPECT_TRUE(result.processGroupGone);
}

TEST_F(Runner, SegfaultIsACrash) {
  RunResult result = runKernel(request("faults.py", "crash_segfault", RunMode::Interpret));
  ASSERT_EQ(result.status, Status::Crashed) << why(result);
  EXPECT_EQ(result.signal, SIGSEGV);
  EXPECT_TRUE(result.processGroupGone);
}

TEST_F(Runner, HardExitIsACrash) {
  RunResult result = runKernel(request("faults.py", "exit_hard", RunMode::Interpret));
  ASSERT_EQ(result.status, Status::Crashed) << why(result);
  EXPECT_EQ(result.exitCode, 3);
  EXPECT_NE(result.message.find("exited with status 3"), std::string::npos);
}

TEST_F(Runner, HangIsKilledAtTheTimeoutWithItsChildren) {
  RunRequest r = request("faults.py", "hang_with_child", RunMode::Interpret);
  r.timeout = 12s;
  RunResult result = runKernel(r);
  ASSERT_EQ(result.status, Status::TimedOut) << why(result);
  EXPECT_NE(result.message.find("timeout"), std::string::npos);
  const int child = childPid(result.stdoutText);
  ASSERT_GT(child, 0) << result.stdoutText;
  EXPECT_FALSE(processAlive(child));
  EXPECT_TRUE(result.processGroupGone);
}

TEST_F(Runner, CancelKillsTheProcessGroup) {
  CancelToken cancel;
  RunResult result = runKernel(
      request("faults.py", "hang", RunMode::Interpret),
      [&](const Progress& p) {
        if (p.phase == Phase::Compiling)
          cancel.cancel(); // the entry hangs while being traced
      },
      &cancel);
  ASSERT_EQ(result.status, Status::Cancelled) << why(result);
  EXPECT_TRUE(result.processGroupGone);
  EXPECT_LT(result.wallSeconds, 60.0);
}

TEST_F(Runner, MegabytesOfOutputAreCapped) {
  RunResult result = runKernel(request("faults.py", "flood", RunMode::Interpret));
  ASSERT_EQ(result.status, Status::Succeeded) << result.message;
  EXPECT_TRUE(result.outputTruncated);
  EXPECT_LT(result.stdoutText.size(), 512u * 1024);
  EXPECT_NE(result.stdoutText.find("END-OF-FLOOD"), std::string::npos); // the tail is kept
}

TEST_F(Runner, MemoryExhaustionUnderTheLimitIsReported) {
  RunRequest r = request("faults.py", "exhaust_memory", RunMode::Interpret);
  r.memoryLimitBytes = 3ull << 30;
  RunResult result = runKernel(r);
  ASSERT_EQ(result.status, Status::Failed) << why(result);
  ASSERT_TRUE(result.modes.at(0).error);
  EXPECT_EQ(result.modes[0].error->type, "MemoryError");
  EXPECT_TRUE(result.processGroupGone);
}

TEST_F(Runner, LeftoverChildrenAreSwept) {
  RunResult result = runKernel(request("faults.py", "leave_child", RunMode::Interpret));
  ASSERT_EQ(result.status, Status::Succeeded) << why(result);
  const int child = childPid(result.stdoutText);
  ASSERT_GT(child, 0);
  EXPECT_FALSE(processAlive(child));
  EXPECT_TRUE(result.processGroupGone);
}

TEST_F(Runner, LaunchTemplateThroughEnvAndBash) {
  RunRequest viaEnv = request("mgpu_kernel.py", "main", RunMode::Interpret);
  viaEnv.launchTemplate = "env PALLAS_TEMPLATE_MARK=via-env {python} {runner} {args}";
  RunResult env = runKernel(viaEnv);
  ASSERT_EQ(env.status, Status::Succeeded) << why(env);
  EXPECT_EQ(env.command.at(0), "env");

  RunRequest viaBash = request("mgpu_kernel.py", "main", RunMode::Interpret);
  viaBash.launchTemplate = "bash -c \"exec {python} {runner} {args}\"";
  RunResult bash = runKernel(viaBash);
  ASSERT_EQ(bash.status, Status::Succeeded) << why(bash);
  EXPECT_EQ(bash.command.size(), 3u);
  EXPECT_NE(bash.stdoutText.find("hello from the entry"), std::string::npos);
}

TEST_F(Runner, StdoutResultChannelForRemoteTemplates) {
  RunRequest r = request("mgpu_kernel.py", "main", RunMode::Interpret);
  r.launchTemplate = "bash -c '{python} {runner} {args} 3>&-'"; // no fd 3 crosses, like ssh
  r.resultChannel = ResultChannel::Stdout;
  std::string live;
  RunResult result = runKernel(r, [&](const Progress& p) {
    if (p.phase == Phase::Output)
      live += p.message;
  });
  ASSERT_EQ(result.status, Status::Succeeded) << why(result);
  // What the entry printed arrives framed on the channel (issue 35): it is
  // the run's stdout, and it was reported as it came.
  EXPECT_NE(result.stdoutText.find("hello from the entry"), std::string::npos) << why(result);
  EXPECT_EQ(result.stderrText.find("hello from the entry"), std::string::npos);
  EXPECT_NE(live.find("hello from the entry"), std::string::npos);
  EXPECT_EQ(resultChannelFor(""), ResultChannel::Fd3);
  EXPECT_EQ(resultChannelFor("{python} {runner} {args}"), ResultChannel::Fd3);
  EXPECT_EQ(resultChannelFor("ssh gpu-box {cmd}"), ResultChannel::Stdout);
}

TEST_F(Runner, LaunchFailures) {
  RunRequest missing = request("add.py", "main", RunMode::Interpret);
  missing.python = "/nonexistent/python3";
  RunResult result = runKernel(missing);
  EXPECT_EQ(result.status, Status::LaunchFailed);
  EXPECT_NE(result.message.find("/nonexistent/python3"), std::string::npos) << result.message;

  RunRequest bad = request("add.py", "main", RunMode::Interpret);
  bad.launchTemplate = "ssh 'unterminated {runner}";
  EXPECT_EQ(runKernel(bad).status, Status::LaunchFailed);
}

TEST_F(Runner, PythonWithoutJax) {
  if (access("/usr/bin/python3", X_OK) != 0)
    GTEST_SKIP() << "no system python3";
  ProcessSpec probe;
  probe.argv = {"/usr/bin/python3", "-c", "import jax"};
  if (runSupervised(probe).exitCode == 0)
    GTEST_SKIP() << "the system python3 has JAX";
  RunRequest r = request("add.py", "main", RunMode::Interpret);
  r.python = "/usr/bin/python3";
  RunResult result = runKernel(r);
  ASSERT_EQ(result.status, Status::Failed) << why(result);
  ASSERT_TRUE(result.setupError);
  EXPECT_EQ(result.setupError->type, "JaxNotFound");
}

TEST_F(Runner, DoctorEnvironment) {
  nlohmann::json env = inspectPythonEnvironment(PALLAS_TEST_PYTHON);
  ASSERT_FALSE(env.contains("error")) << env.dump();
  EXPECT_TRUE(env["jax"].is_string());
  EXPECT_FALSE(env["devices"].empty());
  nlohmann::json missing = inspectPythonEnvironment("/nonexistent/python3");
  EXPECT_TRUE(missing.contains("error"));
}

// ---- issue 14, item 10 ------------------------------------------------------------

TEST_F(Runner, ChildrenThatLeaveTheProcessGroupAreKilled) {
  RunResult result = runKernel(request("faults.py", "escape_the_group", RunMode::Interpret));
  ASSERT_EQ(result.status, Status::Succeeded) << why(result);
  std::vector<int> pids;
  for (size_t at = result.stdoutText.find("escaped "); at != std::string::npos;
       at = result.stdoutText.find("escaped ", at + 1))
    pids.push_back(std::atoi(result.stdoutText.c_str() + at + 8));
  ASSERT_EQ(pids.size(), 2u) << result.stdoutText;
  for (int pid : pids)
    EXPECT_FALSE(processAlive(pid)) << pid;
}

TEST_F(Runner, AForgedResultLineIsNotASuccess) {
  RunResult result = runKernel(request("faults.py", "fake_result", RunMode::Interpret));
  EXPECT_EQ(result.status, Status::ProtocolError) << why(result);
  EXPECT_FALSE(result.ok());
  EXPECT_NE(result.message.find("without this run's secret"), std::string::npos) << result.message;
  result = runKernel(request("faults.py", "fake_result_then_fail", RunMode::Interpret));
  ASSERT_EQ(result.status, Status::Failed) << why(result);
  ASSERT_TRUE(result.modes.at(0).error);
  EXPECT_EQ(result.modes[0].error->message, "the real outcome");
  EXPECT_FALSE(result.document.contains("secret"));
}

TEST_F(Runner, KilledLikeByTheOomKillerSaysSo) {
  RunResult result =
      runKernel(request("faults.py", "killed_like_by_the_oom_killer", RunMode::Interpret));
  ASSERT_EQ(result.status, Status::Crashed) << why(result);
  EXPECT_EQ(result.signal, SIGKILL);
  EXPECT_NE(result.message.find("SIGKILL"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("out-of-memory killer"), std::string::npos) << result.message;
  EXPECT_NE(result.stdoutText.find("about to be killed"), std::string::npos);
  EXPECT_TRUE(result.processGroupGone);
}

// The report names each compared output's worst element, from its heat map.
TEST(RunReport, ComparisonNamesTheWorstElement) {
  RunResult result;
  result.status = RunResult::Status::Succeeded;
  Comparison differs;
  differs.path = "[0]";
  differs.comparable = true;
  differs.maxAbsDiff = 0.25;
  differs.maxRelDiff = 0.2;
  differs.heatMap = nlohmann::json::parse(
      R"({"differing": 1, "worst": {"index": [1, 0], "first": 1.25, "second": "nan"}})");
  Comparison equal = differs;
  equal.path = "[1]";
  equal.heatMap["differing"] = 0;
  Comparison odd = differs; // a map not of the documented shape is ignored, never thrown on
  odd.path = "[2]";
  odd.heatMap = nlohmann::json::parse(R"({"differing": "many", "worst": {"index": 3}})");
  result.comparisons = {differs, equal, odd};
  std::string report = result.report();
  EXPECT_NE(report.find(
                "compare out[0]: max |a-b| = 0.25, max rel = 0.2; worst at [1, 0]: 1.25 vs nan\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("compare out[1]: max |a-b| = 0.25, max rel = 0.2\n"), std::string::npos)
      << report;
  EXPECT_NE(report.find("compare out[2]: max |a-b| = 0.25, max rel = 0.2\n"), std::string::npos)
      << report;
}
