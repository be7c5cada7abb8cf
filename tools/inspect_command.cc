#include "compiler/ir/error.h"
#include "tools/commands.h"

namespace mote::tools {

void add_inspect_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("inspect", "Print a .tflite model's operators, shapes and sizes");
  cmd->callback([] { throw mote::InputError("inspect: not implemented yet"); });
}

}  // namespace mote::tools
