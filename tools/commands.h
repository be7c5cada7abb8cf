#pragma once
// The `mote` subcommands. Each lives in its own <name>_command.cc and registers itself here;
// the logic lives in the libraries, a command only parses options and prints.

#include <CLI/CLI.hpp>

namespace mote::tools {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitMismatch = 1;  // mote validate: the target's kernels differ

// Thrown by a command that ends with a status of its own (after printing what it found).
struct CommandExit {
  int status;
};

void add_inspect_command(CLI::App& app);
void add_plan_command(CLI::App& app);
void add_compile_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_demo_command(CLI::App& app);
void add_analyze_command(CLI::App& app);
void add_validate_command(CLI::App& app);

}  // namespace mote::tools
