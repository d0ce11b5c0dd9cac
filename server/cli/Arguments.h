// The one reader of a subcommand's arguments: options as "--name value" or
// "--name=value", flags, and positional arguments ("-" is positional; "--"
// ends the options). Every usage error is a UsageError worded the same way
// for every subcommand.
//
//   Arguments args("run", argv);
//   while (args.next()) {
//     if (!args.isOption()) file = args.current();
//     else if (args.is("--entry")) entry = args.value();
//     else if (args.is("--json")) args.flag(), json = true;
//     else args.unknown();
//   }
#pragma once

#include <string>
#include <vector>

namespace pallas::cli {

class Arguments {
public:
  Arguments(std::string command, const std::vector<std::string>& args)
      : command_(std::move(command)), args_(args) {}

  // Moves to the next argument; false when there is none.
  bool next();
  // The argument as given ("--format=json", "file.py").
  const std::string& current() const { return args_[at_]; }
  // Whether it is an option (starts with '-', is not "-", and came before "--").
  bool isOption() const { return option_; }
  // Whether it is option `name` ("--format" matches "--format=json" too).
  bool is(const std::string& name) const { return option_ && name_ == name; }
  bool isAny(const std::string& a, const std::string& b) const { return is(a) || is(b); }
  // The option's name without "=value".
  const std::string& name() const { return name_; }
  // The option's value: after '=', else the next argument ("NAME needs a
  // value" when there is none).
  std::string value();
  // Says that the option takes no value ("NAME takes no value" for "--x=1").
  void flag() const;
  // "<command>: unknown option 'ARG'".
  [[noreturn]] void unknown() const;

private:
  std::string command_;
  const std::vector<std::string>& args_;
  size_t at_ = static_cast<size_t>(-1);
  bool optionsDone_ = false;
  bool option_ = false;
  std::string name_;
  std::string inlineValue_;
  bool hasInline_ = false;
};

} // namespace pallas::cli
