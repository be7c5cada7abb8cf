#pragma once
// Instructions a plan's choices cost on the target CPU, estimated from the measured kernel
// costs (target/instruction_costs.h): an inference run whole, what in-place depthwise kernels
// add, what a row-streamed stage adds. `--optimize balanced` keeps a smaller arena only where
// its estimate stays within the budget. nullopt wherever the CPU's kernels are unmeasured.

#include <optional>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/passes/row_stages.h"
#include "mote/kernels/scratch.h"

namespace mote::pipeline {

// One inference of `graph`, every operator on its whole-tensor kernel.
std::optional<double> estimated_instructions(const ir::Graph& graph, kernels::Extension extension);

// What running the operators marked in `in_place` (indexed like graph.operators) on the in-place
// depthwise kernel adds to running them whole.
std::optional<double> in_place_extra(const ir::Graph& graph, const std::vector<bool>& in_place,
                                     kernels::Extension extension);

// What streaming `stage` of `graph` adds: one row call's cost per call of its schedule, and the
// weight loads a member with rows narrower than its kernel's block of pixels no longer shares.
std::optional<double> stage_extra(const ir::Graph& graph, const passes::RowStage& stage,
                                  kernels::Extension extension);

}  // namespace mote::pipeline
