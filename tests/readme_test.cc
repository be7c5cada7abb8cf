// README.md as a user follows it: every ```sh block runs, in order, in a scratch copy of the
// checkout (symbolic links to the source tree, `build` pointing at this build), after the blocks
// marked <!-- file: PATH --> are written there. Then:
//   - every command succeeds (`# not run in tests` skips a line; `# needs firmware` runs only in
//     builds with the Cortex-M firmware);
//   - every line of a ```text block appears in the output of the ```sh block above it (except
//     lines with "..." and lines starting with "wrote "; `mote demo`'s firmware lines only in
//     builds with firmware; and blocks marked <!-- output of: COMMAND -->, checked as below);
//   - docs/demo-plan.svg is the picture `mote demo` draws now;
//   - the operator list names every operator the compiler imports;
//   - the memory table equals what mote_memory_bench prints (when the shared models are there);
//   - in README.md, targets/cortex-m/README.md and bench/*.md, every block marked
//     <!-- output of: COMMAND --> is exactly what COMMAND prints now (run by bash in a scratch
//     folder, with $MOTE the mote binary, $SHARED the shared models folder, $SRC the checkout,
//     $PLANNER_BENCH the planner benchmark; a block needing what this build lacks is skipped).
//     `MOTE_REFRESH_DOCS=1 ctest -R ReadmeFigures` rewrites the blocks instead (one command).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/graph.h"

namespace mote {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSkipMarker = "# not run in tests";
constexpr const char* kFirmwareMarker = "# needs firmware";

struct Block {
  std::string language;  // "sh", "text", "cpp", ...
  std::string text;
  std::string comment;   // the <!-- ... --> line right before the fence, if any
  int line = 0;          // of the opening fence, 1-based
};

struct Command {
  std::string text;
  int block = 0;  // index into blocks
  bool skipped = false;
  std::string why_skipped;
  int status = -1;
  std::string output;  // stdout and stderr
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  const size_t end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

std::vector<Block> parse_blocks(const std::string& markdown) {
  std::vector<Block> blocks;
  std::stringstream lines(markdown);
  std::string line, previous;
  int number = 0;
  Block* open = nullptr;
  while (std::getline(lines, line)) {
    ++number;
    if (open != nullptr) {
      if (line == "```") {
        open = nullptr;
      } else {
        open->text += line + "\n";
      }
      continue;
    }
    if (line.starts_with("```")) {
      Block block;
      block.language = trim(line.substr(3));
      block.line = number;
      const std::string p = trim(previous);
      if (p.starts_with("<!--") && p.ends_with("-->")) block.comment = p;
      blocks.push_back(block);
      open = &blocks.back();
    }
    previous = line;
  }
  return blocks;
}

// "<!-- file: kws-app/main.cc -->" -> "kws-app/main.cc".
std::string file_target(const Block& block) {
  const std::string prefix = "<!-- file:";
  if (!block.comment.starts_with(prefix)) return "";
  return trim(block.comment.substr(prefix.size(), block.comment.size() - prefix.size() - 3));
}

// "<!-- output of: build/mote ... -->" -> "build/mote ...".
std::string output_command(const std::string& comment) {
  const std::string prefix = "<!-- output of:";
  if (!comment.starts_with(prefix)) return "";
  return trim(comment.substr(prefix.size(), comment.size() - prefix.size() - 3));
}

// Shell commands of an sh block; lines ending in a backslash continue on the next one.
std::vector<std::string> split_commands(const std::string& text) {
  std::vector<std::string> commands;
  std::stringstream lines(text);
  std::string line, current;
  while (std::getline(lines, line)) {
    if (!current.empty()) current += "\n";
    current += line;
    if (!line.empty() && line.back() == '\\') continue;
    if (!trim(current).empty()) commands.push_back(current);
    current.clear();
  }
  if (!trim(current).empty()) commands.push_back(current);
  return commands;
}

class Readme : public ::testing::Test {
 protected:
  // Not SetUpTestSuite: only the test that needs the commands should pay for them.
  static fs::path scratch() { return fs::path(MOTE_TEST_TMP_DIR) / "checkout"; }

  static void RunReadme() {
    blocks_ = parse_blocks(read_text(fs::path(MOTE_SOURCE_DIR) / "README.md"));
    commands_.clear();
    // A scratch checkout: the source tree's entries as links, this build as build/. Only its own
    // folder is cleared: ReadmeFigures runs in a sibling one, perhaps at the same time.
    fs::remove_all(scratch());
    fs::create_directories(scratch());
    for (const auto& entry : fs::directory_iterator(MOTE_SOURCE_DIR)) {
      const std::string name = entry.path().filename().string();
      if (name == ".git" || name.starts_with("build")) continue;
      fs::create_directory_symlink(entry.path(), scratch() / name);
    }
    fs::create_directory_symlink(MOTE_BINARY_DIR, scratch() / "build");

    for (const Block& block : blocks_) {
      const std::string target = file_target(block);
      if (target.empty()) continue;
      fs::create_directories((scratch() / target).parent_path());
      std::ofstream(scratch() / target, std::ios::binary) << block.text;
    }

    for (size_t b = 0; b < blocks_.size(); ++b) {
      if (blocks_[b].language != "sh") continue;
      for (const std::string& text : split_commands(blocks_[b].text)) {
        Command command;
        command.text = text;
        command.block = static_cast<int>(b);
        if (text.find(kSkipMarker) != std::string::npos) {
          command.skipped = true;
          command.why_skipped = "marked";
        } else if (text.find(kFirmwareMarker) != std::string::npos && !MOTE_README_FIRMWARE) {
          command.skipped = true;
          command.why_skipped = "this build has no Cortex-M firmware";
        } else {
          run(command);
        }
        commands_.push_back(command);
      }
    }
  }

  static void run(Command& command) {
    const fs::path script = fs::path(MOTE_TEST_TMP_DIR) / "command.sh";
    std::ofstream(script) << command.text << "\n";
    const std::string shell = "cd '" + scratch().string() +
                              "' && timeout 600 bash -e -o pipefail '" + script.string() +
                              "' 2>&1";
    FILE* pipe = popen(shell.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) command.output.append(buffer, n);
    const int status = pclose(pipe);
    command.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  static std::vector<Block> blocks_;
  static std::vector<Command> commands_;
};

std::vector<Block> Readme::blocks_;
std::vector<Command> Readme::commands_;

// One test: the commands build on each other, and ctest runs each test in its own process.
TEST_F(Readme, CommandsRunAndPrintWhatItShows) {
  RunReadme();
  int ran = 0;
  for (const Command& command : commands_) {
    if (command.skipped) {
      std::printf("skipped (%s): %s\n", command.why_skipped.c_str(), command.text.c_str());
      continue;
    }
    ++ran;
    EXPECT_EQ(command.status, 0) << "README.md line " << blocks_[command.block].line << ": "
                                 << command.text << "\n"
                                 << command.output;
  }
  // The demo and the walk-through at least.
  EXPECT_GE(ran, 8);

  // Sample outputs.
  int checked = 0;
  for (size_t b = 1; b < blocks_.size(); ++b) {
    if (blocks_[b].language != "text" || blocks_[b - 1].language != "sh") continue;
    // A block marked <!-- output of: COMMAND --> is COMMAND's, checked below.
    if (!output_command(blocks_[b].comment).empty()) continue;
    std::string output;
    bool all_ran = true;
    for (const Command& command : commands_) {
      if (command.block != static_cast<int>(b - 1)) continue;
      all_ran &= !command.skipped;
      output += command.output;
    }
    if (!all_ran) continue;
    std::stringstream lines(blocks_[b].text);
    std::string line;
    bool firmware_lines = false;  // "  firmware ..." and the lines indented below it
    while (std::getline(lines, line)) {
      if (line.starts_with("  firmware ")) {
        firmware_lines = true;
      } else if (!line.starts_with("                 ")) {
        firmware_lines = false;
      }
      if (trim(line).empty() || line.find("...") != std::string::npos ||
          line.starts_with("wrote ") || (firmware_lines && !MOTE_README_FIRMWARE)) {
        continue;
      }
      ++checked;
      EXPECT_NE(("\n" + output).find("\n" + line + "\n"), std::string::npos)
          << "README.md block at line " << blocks_[b].line << ": no output line\n"
          << line << "\nin\n"
          << output;
    }
  }
  EXPECT_GE(checked, 20);

  // The picture.
  const fs::path drawn = scratch() / "demo-plan.svg";
  ASSERT_TRUE(fs::exists(drawn)) << "the README's `build/mote demo` did not write demo-plan.svg";
  EXPECT_EQ(read_text(fs::path(MOTE_SOURCE_DIR) / "docs" / "demo-plan.svg"), read_text(drawn))
      << "docs/demo-plan.svg is stale: refresh it with\n"
      << "  (cd /tmp && <build>/mote demo --no-firmware) && cp /tmp/demo-plan.svg docs/";
}

TEST_F(Readme, OperatorListNamesEveryImportedOperator) {
  const std::string readme = read_text(fs::path(MOTE_SOURCE_DIR) / "README.md");
  const size_t section = readme.find("## Supported operators");
  ASSERT_NE(section, std::string::npos);
  const std::string text = readme.substr(section, readme.find("\n## ", section + 1) - section);
  int count = 0;
  for (int i = 0; i < 256; ++i) {
    const std::string name(ir::to_string(static_cast<ir::OpType>(i)));
    if (name == "UNKNOWN") break;
    ++count;
    EXPECT_NE(text.find("`" + name + "`"), std::string::npos) << name;
  }
  EXPECT_GE(count, 18);
}

TEST_F(Readme, MemoryTableIsWhatTheBenchmarkPrints) {
  if (std::string(MOTE_MEMORY_BENCH).empty()) GTEST_SKIP() << "built without benchmarks";
  if (!fs::is_directory(fs::path(MOTE_SHARED_DIR) / "models")) {
    GTEST_SKIP() << "no shared models in " << MOTE_SHARED_DIR;
  }
  const std::string readme = read_text(fs::path(MOTE_SOURCE_DIR) / "README.md");
  // The table follows its marker comment directly; it is not a fenced block.
  const size_t marker = readme.find("<!-- memory table:");
  ASSERT_NE(marker, std::string::npos);
  std::stringstream rows(readme.substr(readme.find('\n', marker) + 1));
  const std::string command = std::string("'") + MOTE_MEMORY_BENCH + "' --shared '" +
                              MOTE_SHARED_DIR + "' --markdown - 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string printed;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) printed.append(buffer, n);
  ASSERT_EQ(pclose(pipe), 0);
  std::string row;
  int checked = 0;
  while (std::getline(rows, row) && row.starts_with("|")) {
    ++checked;
    EXPECT_NE(printed.find(row + "\n"), std::string::npos)
        << "README row not printed by mote_memory_bench (rerun bench/memory/run.sh and update "
           "README.md):\n"
        << row;
  }
  EXPECT_GE(checked, 3);
}

// The documents whose figures the marked blocks check.
std::vector<fs::path> documents_with_figures() {
  const fs::path source(MOTE_SOURCE_DIR);
  std::vector<fs::path> files = {source / "README.md",
                                 source / "targets" / "cortex-m" / "README.md"};
  for (const auto& entry : fs::directory_iterator(source / "bench")) {
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  }
  return files;
}

// What `command` prints (stdout) in a fresh scratch folder, and its exit status.
std::pair<int, std::string> run_in_scratch(const std::string& command) {
  const fs::path folder = fs::path(MOTE_TEST_TMP_DIR) / "figures";
  fs::remove_all(folder);
  fs::create_directories(folder);
  std::ofstream(folder / "command.sh") << command << "\n";
  const std::string shell = "cd '" + folder.string() + "' && MOTE='" + MOTE_BINARY_DIR +
                            "/mote' SHARED='" + MOTE_SHARED_DIR + "' SRC='" + MOTE_SOURCE_DIR +
                            "' PLANNER_BENCH='" + MOTE_PLANNER_BENCH +
                            "' timeout 600 bash -e -o pipefail command.sh";
  FILE* pipe = popen(shell.c_str(), "r");
  if (pipe == nullptr) return {-1, ""};
  std::string output;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST(ReadmeFigures, MarkedBlocksAreWhatTheirCommandsPrintNow) {
  const bool refresh = std::getenv("MOTE_REFRESH_DOCS") != nullptr;
  const bool shared = fs::is_directory(fs::path(MOTE_SHARED_DIR) / "models");
  int checked = 0;
  for (const fs::path& file : documents_with_figures()) {
    std::string text = read_text(file);
    bool changed = false;
    // Last block first: a refreshed block may change the line numbers of those after it.
    const std::vector<Block> blocks = parse_blocks(text);
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
      const Block& block = *it;
      const std::string command = output_command(block.comment);
      if (command.empty()) continue;
      if (!shared && command.find("$SHARED") != std::string::npos) continue;
      if (std::string(MOTE_PLANNER_BENCH).empty() &&
          command.find("$PLANNER_BENCH") != std::string::npos) {
        continue;
      }
      const auto [status, printed] = run_in_scratch(command);
      ASSERT_EQ(status, 0) << file << " line " << block.line << ": " << command << "\n" << printed;
      ++checked;
      if (printed == block.text) continue;
      if (refresh) {
        // The block's text follows its opening fence line.
        size_t at = 0;
        for (int line = 1; line <= block.line; ++line) at = text.find('\n', at) + 1;
        text.replace(at, block.text.size(), printed);
        changed = true;
        continue;
      }
      ADD_FAILURE() << file << " line " << block.line << " is stale; `" << command
                    << "` prints now:\n"
                    << printed << "(MOTE_REFRESH_DOCS=1 ctest -R ReadmeFigures rewrites it)";
    }
    if (changed) std::ofstream(file, std::ios::binary) << text;
  }
  EXPECT_GE(checked, shared ? 2 : 0);
}

}  // namespace
}  // namespace mote
