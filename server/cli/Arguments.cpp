#include "Arguments.h"

#include "Command.h"

namespace pallas::cli {

bool Arguments::next() {
  ++at_;
  if (at_ >= args_.size())
    return false;
  const std::string& arg = args_[at_];
  option_ = false;
  hasInline_ = false;
  name_.clear();
  inlineValue_.clear();
  if (arg == "--" && !optionsDone_) {
    optionsDone_ = true;
    return next();
  }
  if (optionsDone_ || arg.empty() || arg[0] != '-' || arg == "-")
    return true;
  option_ = true;
  name_ = arg;
  if (size_t eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
    name_ = arg.substr(0, eq);
    inlineValue_ = arg.substr(eq + 1);
    hasInline_ = true;
  }
  return true;
}

std::string Arguments::value() {
  if (hasInline_)
    return inlineValue_;
  if (at_ + 1 >= args_.size())
    throw UsageError{name_ + " needs a value"};
  return args_[++at_];
}

void Arguments::flag() const {
  if (hasInline_)
    throw UsageError{name_ + " takes no value"};
}

void Arguments::unknown() const {
  throw UsageError{command_ + ": unknown option '" + current() + "'"};
}

} // namespace pallas::cli
