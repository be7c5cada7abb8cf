#pragma once
// Size and work figures of a graph, as `mote inspect` reports them.

#include <cstdint>

#include "compiler/ir/graph.h"

namespace mote::ir {

// (Multiply-accumulates come from each operator's definition: ops::operator_macs.)

// Bytes of the constant tensors the operator reads (each tensor once).
int64_t operator_constant_bytes(const Graph& graph, const Operator& op);
// Bytes of every constant tensor of the graph (each once, used or not).
int64_t constant_bytes(const Graph& graph);
// Bytes of every non-constant tensor the graph reads or writes (graph inputs and outputs and
// operator inputs and outputs, each once): what a planner without any reuse would need.
int64_t activation_bytes(const Graph& graph);

}  // namespace mote::ir
