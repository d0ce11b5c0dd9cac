#include "pallas/gpu/LaunchTemplate.h"

#include <gtest/gtest.h>

using namespace pallas::gpu;

namespace {
const LaunchValues kValues{"/opt/py/bin/python",
                           "/srv/runner.py",
                           {"--file", "/home/me/my kernels/k.py", "--mode", "interpret"}};
using Argv = std::vector<std::string>;
} // namespace

TEST(LaunchTemplate, DefaultExpandsToSeparateWords) {
  EXPECT_EQ(expandLaunchTemplate(kDefaultLaunchTemplate, kValues),
            (Argv{"/opt/py/bin/python", "/srv/runner.py", "--file", "/home/me/my kernels/k.py",
                  "--mode", "interpret"}));
}

TEST(LaunchTemplate, PrefixCommands) {
  EXPECT_EQ(expandLaunchTemplate("srun --gpus=1 {python} {runner} {args}", kValues).front(),
            "srun");
  Argv env = expandLaunchTemplate("env A=1 'B=two words' {python} {runner}", kValues);
  EXPECT_EQ(env, (Argv{"env", "A=1", "B=two words", "/opt/py/bin/python", "/srv/runner.py"}));
}

TEST(LaunchTemplate, EmbeddedPlaceholdersAreShellQuoted) {
  Argv argv = expandLaunchTemplate("ssh gpu-box \"cd /w && {python} {runner} {args}\"", kValues);
  ASSERT_EQ(argv.size(), 3u);
  EXPECT_EQ(argv[2], "cd /w && /opt/py/bin/python /srv/runner.py --file '/home/me/my kernels/k.py' "
                     "--mode interpret");
}

TEST(LaunchTemplate, OtherBracesStay) {
  Argv argv = expandLaunchTemplate("bash -c 'echo ${HOME}; {python} {runner}'", kValues);
  EXPECT_EQ(argv[2], "echo ${HOME}; /opt/py/bin/python /srv/runner.py");
}

TEST(LaunchTemplate, BadTemplatesThrow) {
  EXPECT_THROW(expandLaunchTemplate("{python} {args}", kValues), LaunchTemplateError);
  EXPECT_THROW(expandLaunchTemplate("ssh 'box {runner}", kValues), LaunchTemplateError);
  EXPECT_THROW(expandLaunchTemplate("ssh \"box {runner}", kValues), LaunchTemplateError);
  EXPECT_THROW(expandLaunchTemplate("{runner} \\", kValues), LaunchTemplateError);
}

// Issue 15: the documented `ssh gpu-box {cmd}` / `srun --gpus=1 {cmd}` work;
// {cmd} is the whole run command.
TEST(LaunchTemplate, CmdIsTheWholeCommand) {
  EXPECT_EQ(expandLaunchTemplate("srun --gpus=1 {cmd}", kValues),
            (Argv{"srun", "--gpus=1", "/opt/py/bin/python", "/srv/runner.py", "--file",
                  "/home/me/my kernels/k.py", "--mode", "interpret"}));
  // ssh passes its words to the remote shell joined: the embedded form quotes.
  Argv ssh = expandLaunchTemplate("ssh gpu-box \"cd /w && {cmd}\"", kValues);
  ASSERT_EQ(ssh.size(), 3u);
  EXPECT_EQ(ssh[2], "cd /w && /opt/py/bin/python /srv/runner.py --file '/home/me/my kernels/k.py' "
                    "--mode interpret");
  // `ssh gpu-box {cmd}`: ssh joins its words for the remote shell, so {cmd}
  // is one shell-quoted line there.
  EXPECT_EQ(expandLaunchTemplate("ssh gpu-box {cmd}", kValues),
            (Argv{"ssh", "gpu-box",
                  "/opt/py/bin/python /srv/runner.py --file '/home/me/my kernels/k.py' --mode "
                  "interpret"}));
}

TEST(LaunchTemplate, ShellQuote) {
  EXPECT_EQ(shellQuote("plain/path-1.py"), "plain/path-1.py");
  EXPECT_EQ(shellQuote("a b"), "'a b'");
  EXPECT_EQ(shellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(shellQuote(""), "''");
}
