#include "qemu_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace mote::cortex_m {
namespace {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::optional<uint64_t> number_after(const std::string& line, const std::string& prefix) {
  if (!line.starts_with(prefix)) return std::nullopt;
  const std::string rest = line.substr(prefix.size());
  if (rest.empty() || !std::isdigit(static_cast<unsigned char>(rest[0]))) return std::nullopt;
  return std::strtoull(rest.c_str(), nullptr, 10);
}

}  // namespace

std::optional<std::string> qemu_board(std::string_view cpu) {
  if (cpu == "cortex-m55") return "mps3-an547";
  if (cpu == "cortex-m4") return "mps2-an386";
  if (cpu == "cortex-m7") return "mps2-an500";
  if (cpu == "cortex-m33") return "mps2-an505";
  if (cpu == "cortex-m3") return "mps2-an385";
  return std::nullopt;
}

std::optional<fs::path> find_qemu() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(dir) / "qemu-system-arm";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

fs::path expected_runner_image(const fs::path& firmware_dir, std::string_view cpu,
                               std::string_view model) {
  return firmware_dir / ("firmware-" + std::string(cpu)) / ("run_" + std::string(model) + ".elf");
}

std::optional<fs::path> find_runner_image(const fs::path& firmware_dir, std::string_view cpu,
                                          std::string_view model) {
  const fs::path expected = expected_runner_image(firmware_dir, cpu, model);
  const fs::path dir = expected.parent_path();
  for (const fs::path& candidate : {expected, dir / ("runner_" + std::string(model) + ".elf")}) {
    if (fs::is_regular_file(candidate)) return candidate;
  }
  std::vector<std::string> words;
  std::stringstream split{std::string(model)};
  for (std::string word; std::getline(split, word, '_');) {
    if (!word.empty()) words.push_back(word);
  }
  std::error_code error;
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("runner") || !name.ends_with(".elf")) continue;
    if (std::all_of(words.begin(), words.end(),
                    [&](const std::string& w) { return name.find(w) != std::string::npos; })) {
      found.push_back(entry.path());
    }
  }
  if (found.empty()) return std::nullopt;
  std::sort(found.begin(), found.end());
  return found.front();
}

std::optional<QemuRun> run_qemu(const fs::path& qemu, std::string_view board,
                                const fs::path& image, int timeout_seconds,
                                const fs::path& working_dir) {
  // timeout(1) stops a hung image (status 124); -icount shift=0 is one instruction per
  // nanosecond of virtual time (targets/cortex-m/README.md).
  const std::string command =
      (working_dir.empty() ? std::string() : "cd " + shell_quote(working_dir.string()) + " && ") +
      "timeout --kill-after=5 " + std::to_string(timeout_seconds) + " " +
      shell_quote(qemu.string()) + " -machine " + shell_quote(std::string(board)) +
      " -nographic -monitor none -serial null -icount shift=0 -semihosting-config " +
      shell_quote("enable=on,target=native,arg=" + image.filename().string()) + " -kernel " +
      shell_quote(image.string()) + " </dev/null 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  QemuRun run;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) run.output.append(buffer, n);
  const int status = pclose(pipe);
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

RunnerOutput parse_runner_output(std::string_view output) {
  RunnerOutput parsed;
  std::stringstream lines{std::string(output)};
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with("I mote: ")) parsed.memory_lines.push_back(line);
    if (auto v = number_after(line, "I mote: arena_planned: ")) parsed.arena_planned = v;
    if (auto v = number_after(line, "I mote: instructions: ")) parsed.instructions = v;
    if (auto v = number_after(line, "I mote: static_ram: ")) parsed.static_ram = v;
    if (auto v = number_after(line, "I mote: stack_peak: ")) parsed.stack_peak = v;
    if (line.starts_with("output ")) {
      const size_t space = line.find(' ', 7);
      if (space != std::string::npos) parsed.outputs_hex.push_back(line.substr(space + 1));
    }
    if (line == "outputs match expected") parsed.outputs_match_expected = true;
    if (line.starts_with("error: ") || line.starts_with("fault: ")) {
      if (parsed.error_line.empty()) parsed.error_line = line;
    }
  }
  return parsed;
}

fs::path executable_dir() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::current_path() : self.parent_path();
}

fs::path generic_runner_image(const fs::path& firmware_dir, std::string_view cpu) {
  return firmware_dir / ("firmware-" + std::string(cpu)) / "validate_runner.elf";
}

std::vector<fs::path> firmware_dirs(const fs::path& firmware_dir) {
  if (!firmware_dir.empty()) return {firmware_dir};
  const fs::path self = executable_dir();
  return {self, (self / ".." / "lib" / "mote" / "firmware").lexically_normal()};
}

RunnerSearch find_generic_runner(std::string_view cpu, const fs::path& firmware_dir) {
  RunnerSearch search;
  for (const fs::path& dir : firmware_dirs(firmware_dir)) {
    const fs::path image = generic_runner_image(dir, cpu);
    search.looked_at.push_back(image);
    if (fs::is_regular_file(image)) {
      search.image = image;
      break;
    }
  }
  return search;
}

RunnerSearch find_model_runner(std::string_view cpu, std::string_view model,
                               const fs::path& firmware_dir) {
  RunnerSearch search;
  for (const fs::path& dir : firmware_dirs(firmware_dir)) {
    search.looked_at.push_back(expected_runner_image(dir, cpu, model));
    search.image = find_runner_image(dir, cpu, model);
    if (search.image) break;
  }
  return search;
}

std::string missing_runner_reason(std::string_view cpu, const RunnerSearch& search) {
  std::string looked;
  for (const fs::path& path : search.looked_at) {
    looked += (looked.empty() ? "" : " or ") + path.string();
  }
  std::string reason = "no runner image for " + std::string(cpu) + " at " + looked + "; ";
  // MOTE_FIRMWARE_CPUS_BUILT: the CPUs this Mote's build made runner images for, ","-separated
  // (targets/cortex-m/CMakeLists.txt); undefined when it built no firmware.
#if defined(MOTE_FIRMWARE_CPUS_BUILT)
  const std::string built = MOTE_FIRMWARE_CPUS_BUILT;
#else
  const std::string built;
#endif
  bool has_cpu = false;
  std::stringstream names(built);
  for (std::string name; std::getline(names, name, ',');) has_cpu = has_cpu || name == cpu;
  if (has_cpu) {
    reason += "this Mote's build makes them for " + built + ": build them (target firmware-" +
              std::string(cpu) + "), install them with the tool (cmake --install BUILD --prefix "
              "PREFIX puts them in PREFIX/lib/mote/firmware), or give --firmware-dir DIR";
  } else {
    std::string cpus = built.empty() ? "" : built + ";";
    std::replace(cpus.begin(), cpus.end(), ',', ';');
    reason += "build Mote with the firmware for it (-DMOTE_BUILD_FIRMWARE=ON "
              "-DMOTE_FIRMWARE_CPUS=\"" + cpus + std::string(cpu) + "\"; this build made " +
              (built.empty() ? "no firmware" : "runner images for " + built + " only") + ")";
  }
  return reason;
}

std::vector<uint64_t> parse_operator_instructions(std::string_view output) {
  std::vector<uint64_t> counts;
  std::stringstream lines{std::string(output)};
  std::string line;
  const std::string prefix = "I mote: op ";
  while (std::getline(lines, line)) {
    if (!line.starts_with(prefix) || !line.ends_with(" instructions")) continue;
    size_t index = 0;
    size_t value = 0;
    if (std::sscanf(line.c_str() + prefix.size(), "%zu", &index) != 1 || index != counts.size()) {
      return {};
    }
    const size_t colon = line.rfind(": ");
    if (colon == std::string::npos || std::sscanf(line.c_str() + colon + 2, "%zu", &value) != 1) {
      return {};
    }
    counts.push_back(value);
  }
  return counts;
}

}  // namespace mote::cortex_m
