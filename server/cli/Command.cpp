#include "Command.h"

#include <algorithm>

namespace pallas::cli {

static std::vector<Command>& registry() {
  static std::vector<Command> commands; // function-local: safe static init order
  return commands;
}

void registerCommand(Command command) {
  auto& commands = registry();
  commands.push_back(std::move(command));
  std::sort(commands.begin(), commands.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
}

const std::vector<Command>& registeredCommands() {
  return registry();
}

} // namespace pallas::cli
