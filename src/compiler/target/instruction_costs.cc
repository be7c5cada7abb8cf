#include "compiler/target/instruction_costs.h"

#include <sstream>
#include <string>

#include "compiler/target/target.h"

namespace mote::target {
namespace internal {
extern const char kInstructionCosts[];
}  // namespace internal

namespace {

// Rows: extension, kernel (an operator kind, "other" or "row call"), variant ("whole",
// "in-place" or "-"), unit ("mac", "element" or "call"), instructions per unit.
struct Row {
  std::string extension, kernel, variant, unit;
  double instructions = 0;
};

template <typename Visit>
void for_each_row(Visit&& visit) {
  std::istringstream rows(internal::kInstructionCosts);
  std::string line;
  while (std::getline(rows, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Row row;
    std::getline(fields, row.extension, '\t');
    std::getline(fields, row.kernel, '\t');
    std::getline(fields, row.variant, '\t');
    std::getline(fields, row.unit, '\t');
    fields >> row.instructions;
    visit(row);
  }
}

}  // namespace

std::optional<KernelCost> kernel_cost(kernels::Extension extension, std::string_view op_type,
                                      bool in_place) {
  const std::string_view name = extension_name(extension);
  const std::string_view variant = in_place ? "in-place" : "whole";
  std::optional<KernelCost> found, other;
  for_each_row([&](const Row& row) {
    if (row.extension != name) return;
    const KernelCost cost{row.unit == "mac", row.instructions};
    if (row.kernel == op_type && row.variant == variant) found = cost;
    if (row.kernel == "other") other = cost;
  });
  return found ? found : other;
}

std::optional<double> row_call_cost(kernels::Extension extension) {
  const std::string_view name = extension_name(extension);
  std::optional<double> cost;
  for_each_row([&](const Row& row) {
    if (row.extension == name && row.kernel == "row call") cost = row.instructions;
  });
  return cost;
}

}  // namespace mote::target
