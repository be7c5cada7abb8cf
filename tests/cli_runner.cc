#include "cli_runner.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace mote::cli_testing {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CliResult run_mote(const std::string& mote, const std::string& args, const fs::path& dir,
                   const std::string& redirect) {
  fs::create_directories(dir);
  const fs::path err = dir / "stderr.txt";
  const fs::path out = dir / "stdout.txt";
  // Appended piecewise: gcc 12 warns falsely (-Wrestrict) on "'" + s + "'".
  std::string command = "cd '";
  command += dir.string();
  command += "' && '";
  command += mote;
  command += "' ";
  command += args;
  command += " 2>'";
  command += err.string();
  command += "' ";
  if (redirect.empty()) {
    command += ">'";
    command += out.string();
    command += '\'';
  } else {
    command += redirect;
  }
  const int status = std::system(command.c_str());
  CliResult r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_text(err);
  r.out = redirect.empty() ? read_text(out) : "";
  fs::remove(err);
  fs::remove(out);
  return r;
}

}  // namespace mote::cli_testing
