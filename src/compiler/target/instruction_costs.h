#pragma once
// What a program's kernels cost in instructions on a CPU, as measured: per operator kind,
// instructions per MAC (or per output element for operators without MACs), the in-place
// depthwise kernel apart, and what one call of a row-streamed stage adds. From
// targets/cortex-m/instruction_costs.tsv, which bench/instruction_costs.sh measures under QEMU
// (cortex-m4 for dsp, cortex-m55 for mve) and its ctest keeps current. The planner's
// `--optimize balanced` weighs a smaller arena against these estimates.

#include <optional>
#include <string_view>

#include "mote/kernels/scratch.h"

namespace mote::target {

struct KernelCost {
  bool per_mac = true;  // else per output element
  double instructions = 0;
};

// The measured cost of `op_type` (ir::to_string's names, "CONV_2D"), in place for the
// depthwise kernel that runs one channel plane at a time; the extension's mean of the
// operators measured per element for a kind not measured. nullopt when the extension has no
// measurements at all (scalar CPUs: no QEMU board runs them here).
std::optional<KernelCost> kernel_cost(kernels::Extension extension, std::string_view op_type,
                                      bool in_place = false);

// Instructions one kernel call of a row-streamed stage adds to running its operators whole
// (the row kernels' set-up, the stage's schedule); nullopt when unmeasured.
std::optional<double> row_call_cost(kernels::Extension extension);

}  // namespace mote::target
