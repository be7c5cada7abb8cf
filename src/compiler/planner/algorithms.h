#pragma once
// The placement algorithms behind plan(). Internal to the planner library (and its tests).

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/planner/planner.h"
#include "compiler/planner/problem.h"

namespace mote::planner::internal {

using Clock = std::chrono::steady_clock;

// Each returns one offset per buffer. Fixed buffers keep their offsets; zero-size buffers that
// are not fixed sit at 0.
std::vector<uint64_t> place_naive(const Problem& problem);
std::vector<uint64_t> place_first_fit(const Problem& problem);
std::vector<uint64_t> place_best_fit(const Problem& problem);
// First-fit and best-fit (the smaller) with each chain of overlaps placed as one unit, its
// members at offsets chosen together (forward and backward overlaps alternating); greedy_order
// otherwise.
std::vector<uint64_t> place_chain_fit(const Problem& problem);

// TensorFlow Lite Micro's order: fixed buffers first (in problem order), then the others by
// aligned size, largest first, equal sizes in reverse problem order.
std::vector<size_t> greedy_order(const Problem& problem);

struct ExactResult {
  std::vector<uint64_t> offsets;
  bool optimal = false;  // the search proved no smaller arena exists
  uint64_t nodes = 0;
};

// Branch and bound; seed (if given) is the plan to beat. Stops at the deadline or after
// options.node_limit nodes, returning the best plan found.
ExactResult place_exact(const Problem& problem, const std::vector<uint64_t>* seed,
                        const PlanOptions& options, Clock::time_point deadline);

// align_up(max(offset + aligned size), arena alignment).
uint64_t arena_bytes(const Problem& problem, const std::vector<uint64_t>& offsets);

}  // namespace mote::planner::internal
