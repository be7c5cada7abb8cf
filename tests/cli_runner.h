#pragma once
// Runs the `mote` executable as a user's shell would, for the CLI tests.
#include <filesystem>
#include <string>

namespace mote::cli_testing {

struct CliResult {
  int status = -1;  // exit status; -1 when the command did not exit normally
  std::string out;
  std::string err;
};

// Runs `'<mote>' ARGS` in `dir` (created if needed), stderr and stdout captured in files there;
// `redirect` replaces the capture of stdout (for example "> /dev/full"). ctest runs the cases in
// parallel processes, so each case should have its own `dir`.
CliResult run_mote(const std::string& mote, const std::string& args,
                   const std::filesystem::path& dir, const std::string& redirect = "");

std::string read_text(const std::filesystem::path& path);

}  // namespace mote::cli_testing
