// A main for the fuzz harnesses outside libFuzzer: runs LLVMFuzzerTestOneInput once on every
// file named on the command line (folders: every file inside, sorted). A finding aborts, as it
// would under libFuzzer; exit status 0 means every input passed (and, with --min-runs N, that at
// least N of them were programs that loaded and ran).
//   fuzz_program_load [--min-runs N] build/fuzz/seeds/fuzz_program_load crash-1234

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  size_t min_runs = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--min-runs" && i + 1 < argc) {
      min_runs = std::stoul(argv[++i]);
      continue;
    }
    const fs::path arg = argv[i];
    if (fs::is_directory(arg)) {
      std::vector<fs::path> inside;
      for (const auto& entry : fs::directory_iterator(arg)) {
        if (entry.is_regular_file()) inside.push_back(entry.path());
      }
      std::sort(inside.begin(), inside.end());
      files.insert(files.end(), inside.begin(), inside.end());
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
    return 2;
  }
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", file.c_str());
      return 2;
    }
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
    std::fprintf(stderr, "%s (%zu bytes)\n", file.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  const mote::fuzz::Counters& c = mote::fuzz::counters();
  std::fprintf(stderr, "%zu inputs passed; %zu programs loaded, %zu ran\n", files.size(),
               c.programs_loaded, c.programs_run);
  if (c.programs_run < min_runs) {
    std::fprintf(stderr, "expected at least %zu programs to run\n", min_runs);
    return 1;
  }
  return 0;
}
