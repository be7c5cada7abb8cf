#include "compiler/target/code_size.h"

#include <algorithm>
#include <sstream>

namespace mote::target {
namespace internal {
extern const char kCodeSizes[];
}  // namespace internal

std::optional<CodeEstimate> estimate_code(std::string_view cpu,
                                          const std::vector<std::string>& kinds) {
  // Rows: cpu, unit, bytes, kinds ("Add,Sub"; "-" for the runtime's own units).
  std::istringstream rows(internal::kCodeSizes);
  std::string line;
  CodeEstimate estimate;
  std::vector<std::string> covered;
  bool any = false;
  while (std::getline(rows, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string row_cpu, unit, unit_kinds;
    uint64_t bytes = 0;
    if (!std::getline(fields, row_cpu, '\t') || row_cpu != cpu) continue;
    std::getline(fields, unit, '\t');
    fields >> bytes >> unit_kinds;
    any = true;
    if (unit_kinds == "-") {
      estimate.runtime_bytes += bytes;
      continue;
    }
    std::istringstream list(unit_kinds);
    bool used = false;
    for (std::string kind; std::getline(list, kind, ',');) {
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) continue;
      used = true;
      covered.push_back(kind);
    }
    if (used) estimate.kernel_bytes += bytes;
  }
  if (!any) return std::nullopt;
  for (const std::string& kind : kinds) {
    if (std::find(covered.begin(), covered.end(), kind) == covered.end() &&
        std::find(estimate.unmeasured.begin(), estimate.unmeasured.end(), kind) ==
            estimate.unmeasured.end()) {
      estimate.unmeasured.push_back(kind);
    }
  }
  return estimate;
}

}  // namespace mote::target
