// The `mote` command line: one executable, one subcommand per job.
#include <cstdio>
#include <exception>

#include "compiler/emit/emit.h"
#include "compiler/ir/error.h"
#include "tools/commands.h"

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
