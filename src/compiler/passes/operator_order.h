#pragma once
// Operator order: the operators of a graph with branches may run in any topological order (every
// producer before its consumers), and the order decides which tensors are live together, so it
// decides the arena. This ranks orders for the pipeline (compiler/pipeline/compile.cc), which
// plans the best ones and keeps the order whose plan is smallest.
//
// An order is a permutation of the graph's operator indices: order[step] is the operator that
// runs at that step. Tensor indices never change, only the operators' order.

#include <cstdint>
#include <span>
#include <vector>

#include "compiler/ir/graph.h"
#include "mote/kernels/scratch.h"

namespace mote::passes {

// Per operator, the operators that must run before it: the producers of its inputs, and the
// operator before it that touched the same state (variable tensor), whose reads and writes keep
// the model's order.
std::vector<std::vector<int32_t>> operator_predecessors(const ir::Graph& graph);

// True when the graph's own order is its only topological order (a chain: every operator needs
// the one before it), so there is nothing to search.
bool has_one_order(const ir::Graph& graph);

// True when `order` is a permutation of the operators that keeps every predecessor first.
bool is_topological_order(const ir::Graph& graph, std::span<const int32_t> order);

// The graph with its operators in `order` (which must be topological).
ir::Graph reordered(const ir::Graph& graph, std::span<const int32_t> order);

// The graph's own order: 0, 1, ..., n - 1.
std::vector<int32_t> model_order(const ir::Graph& graph);

struct OrderLimits {
  // Up to this many topological orders, all are enumerated (exact); beyond, local moves from the
  // model's order (a budgeted heuristic).
  uint64_t max_enumerated = 4096;
  // Lower bounds computed by the local moves, in all.
  uint64_t max_moves = 4096;
  // Orders placed by the greedy planners, best lower bounds first.
  uint64_t max_placed = 64;
};

struct RankedOrder {
  std::vector<int32_t> order;
  uint64_t lower_bound = 0;   // planner::lower_bound of the order's memory problem
  uint64_t greedy_arena = 0;  // the smallest arena of first-fit, best-fit and chain-fit
};

struct OrderRanking {
  // The orders placed, best first: smallest greedy arena, then smallest lower bound, then the
  // order found first (the model's order is found first, so it wins ties).
  std::vector<RankedOrder> ranked;
  uint64_t considered = 0;  // orders whose lower bound was computed
  bool exhaustive = false;  // they were all the topological orders there are
};

// Ranks the topological orders of `graph` by the arena of its memory problem for `extension`,
// `alignment` and overlaps (as passes::build_memory_problem builds it). Orders are priced by the
// lower bound first; those whose bound is below the best greedy arena so far are placed by the
// greedy planners (deterministic, milliseconds). Deterministic for a given graph and limits.
OrderRanking rank_orders(const ir::Graph& graph, kernels::Extension extension, uint32_t alignment,
                         bool with_overlaps, const OrderLimits& limits = {});

}  // namespace mote::passes
