// The `mote` command line: one executable, one subcommand per job.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "tools/commands.h"

namespace {

// After a failed parse, the first argument the command line does not know, as the whole message
// ("unknown option --bogus" says more than whatever CLI11 checked first, "model is required");
// "" when every argument is known (the parse failed for another reason, which CLI11 gives).
std::string unknown_argument(const CLI::App& app, int argc, char** argv) {
  const CLI::App* command = nullptr;
  std::string problem;
  for (int i = 1; i < argc && problem.empty(); ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (command == nullptr && arg[0] != '-') {
      std::string names;
      for (const CLI::App* sub : app.get_subcommands({})) {
        if (sub->get_name() == arg) command = sub;
        names += (names.empty() ? "" : ", ") + sub->get_name();
      }
      if (command == nullptr) problem = "unknown command '" + arg + "'; the commands: " + names;
      continue;
    }
    // Options only: "-" (stdout) and negative numbers are values.
    if (arg.size() < 2 || arg[0] != '-') continue;
    char* end = nullptr;
    std::strtod(arg.c_str(), &end);
    if (*end == '\0') continue;
    const std::string name = arg.substr(0, arg.find('='));
    if ((command == nullptr || command->get_option_no_throw(name) == nullptr) &&
        app.get_option_no_throw(name) == nullptr) {
      problem = "unknown option " + name;
    }
  }
  if (problem.empty()) return "";
  const std::string help = command == nullptr ? "mote --help" : "mote " + command->get_name() + " --help";
  return "error: " + problem + "\nRun `" + help + "` for the options.\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Mote: int8 neural networks on Cortex-M with every byte of RAM planned ahead of time.\n"
      "Start with: mote demo\n"
      "Example: mote inspect model.tflite"};
  app.require_subcommand(1);
  // Parse errors read as every other error: "error: ...", then where the options are explained.
  app.failure_message([](const CLI::App* top, const CLI::Error& e) {
    const auto chosen = top->get_subcommands();
    const std::string help =
        chosen.empty() ? "mote --help" : "mote " + chosen.front()->get_name() + " --help";
    return "error: " + std::string(e.what()) + "\nRun `" + help + "` for the options.\n";
  });
  app.set_version_flag("--version", "mote 0.1.0");
  mote::tools::add_inspect_command(app);
  mote::tools::add_plan_command(app);
  mote::tools::add_compile_command(app);
  mote::tools::add_run_command(app);
  mote::tools::add_analyze_command(app);
  mote::tools::add_validate_command(app);
  mote::tools::add_demo_command(app);
  try {
    app.parse(argc, argv);
    // Text printed to stdout must have arrived (a full disk, `> /dev/full`).
    mote::emit::flush_stdout();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0) {
      const std::string unknown = unknown_argument(app, argc, argv);
      if (!unknown.empty()) {
        std::fputs(unknown.c_str(), stderr);
        return mote::tools::kExitBadInput;
      }
    }
    return app.exit(e) == 0 ? mote::tools::kExitOk : mote::tools::kExitBadInput;
  } catch (const mote::tools::CommandExit& e) {
    return e.status;
  } catch (const mote::InputError& e) {
    // Subcommands prefix the file name themselves where one applies.
    std::fprintf(stderr, "error: %s\n", e.what());
    return mote::tools::kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    return mote::tools::kExitInternal;
  }
  return mote::tools::kExitOk;
}
