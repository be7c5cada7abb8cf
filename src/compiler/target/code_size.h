#pragma once
// An estimate of the code a program brings into a firmware image besides its own bytes: the
// runtime and the kernels of its operator kinds, per CPU, from targets/cortex-m/code_sizes.tsv
// (what the runner images of the firmware build keep of each unit, .text and .rodata; measured
// and checked by targets/cortex-m/code-size-table.sh). An estimate: a unit counts whole, as the
// most any runner kept of it, and a user's own firmware (its main, its drivers) comes on top.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mote::target {

struct CodeEstimate {
  uint64_t runtime_bytes = 0;  // the units every image holds (loader, executor, ...)
  uint64_t kernel_bytes = 0;   // the units of the program's operator kinds
  std::vector<std::string> unmeasured;  // kinds no measured unit registers
  uint64_t total() const { return runtime_bytes + kernel_bytes; }
};

// For a canonical CPU name (target::Cpu::name) and the program's operator kinds as the schema
// names them ("Conv2D"); nullopt for a CPU the table has no measurements of.
std::optional<CodeEstimate> estimate_code(std::string_view cpu,
                                          const std::vector<std::string>& kinds);

}  // namespace mote::target
