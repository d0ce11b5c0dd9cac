// The launch template: how the runner's command line is built, so a run can
// go to the local Python, a remote GPU box or a Slurm cluster without code
// changes:
//   {python} {runner} {args}                        (the default)
//   srun --gpus=1 {cmd}                             ({cmd} = {python} {runner} {args})
//   ssh gpu-box "cd /work && {python} {runner} {args}"
//   srun --gpus=1 --time=5 {python} {runner} {args}
//   env CUDA_VISIBLE_DEVICES=1 {python} {runner} {args}
//
// The template is split into words like a POSIX shell would ('...' and "..."
// quotes, backslash escapes). A word that is exactly {python}, {runner} or
// {args} becomes that value verbatim ({args}: one word per argument). Inside
// a longer word (such as the quoted command of ssh or bash -c) each value is
// inserted shell-quoted, so it survives the second shell. Any other {...}
// text is left as written (so `${HOME}` keeps working).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pallas::gpu {

inline constexpr std::string_view kDefaultLaunchTemplate = "{python} {runner} {args}";

struct LaunchValues {
  std::string python;
  std::string runner;
  std::vector<std::string> args;
};

struct LaunchTemplateError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws LaunchTemplateError for an unterminated quote, a trailing backslash,
// an empty template, or a template without {runner} or {cmd} (the run could not work).
std::vector<std::string> expandLaunchTemplate(std::string_view launchTemplate,
                                              const LaunchValues& values);

// 'it'\''s' style single quoting; bare words that need none stay bare.
std::string shellQuote(std::string_view word);

} // namespace pallas::gpu
