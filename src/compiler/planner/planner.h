#pragma once
// Placement algorithms behind one entry point. Every plan returned here has passed verify().
//
//   Problem problem = ...;
//   Plan best = plan(problem, Algorithm::kAuto, {.time_limit_ms = 1000});
//   // best.offsets[i] is buffer i's arena offset; best.arena_bytes the arena size.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/planner/problem.h"

namespace mote::planner {

enum class Algorithm : uint8_t {
  kNaive,     // no reuse: buffers one after another (a reference point)
  kFirstFit,  // largest first, lowest gap that fits: TensorFlow Lite Micro's GreedyMemoryPlanner
  kBestFit,   // largest first, smallest gap that fits
  kExact,     // branch and bound over canonical placements, within a time budget
  kAuto,      // the greedy ones, then exact seeded with the best of them (on large problems,
              // 500 movable buffers or more, exact for a share of the budget and a
              // large-neighbourhood search in the rest)
  kChainFit,  // first/best fit with each chain of overlaps placed as one unit
};

std::string_view to_string(Algorithm algorithm);  // "naive", "first-fit", "best-fit", ...
std::optional<Algorithm> algorithm_from_string(std::string_view text);
inline constexpr Algorithm kAllAlgorithms[] = {Algorithm::kNaive, Algorithm::kFirstFit,
                                               Algorithm::kBestFit, Algorithm::kChainFit,
                                               Algorithm::kExact, Algorithm::kAuto};

struct PlanOptions {
  // Wall-clock budget of the exact search (auto: of the whole run). Checked every few hundred
  // search nodes, so it is honoured to within about a millisecond.
  double time_limit_ms = 1000;
  // If non-zero, the exact search also stops after this many nodes: with a node limit that
  // binds before the time limit, results are identical on every machine.
  uint64_t node_limit = 0;
};

struct Plan {
  std::vector<uint64_t> offsets;  // one per buffer, in problem order
  uint64_t arena_bytes = 0;       // a multiple of arena_alignment(problem)
  std::string algorithm;          // what was asked for ("auto", "exact", ...)
  std::string chosen;             // which algorithm produced these offsets (auto: the winner)
  bool optimal = false;           // arena_bytes is proven minimal (it meets the lower bound, or
                                  // the exact search finished)
  double milliseconds = 0;
  uint64_t nodes = 0;             // search nodes explored (0 for the greedy algorithms; auto:
                                  // exact and the large-neighbourhood search together)
  // The problem these offsets place when it is not the one reported with them (the first-fit
  // row: TensorFlow Lite Micro's problem, without Mote's overlaps, in-place kernels or stages).
  std::shared_ptr<const Problem> problem;
};

// The problem plan's offsets place: its own if it has one, else `reported`.
inline const Problem& problem_of(const Plan& plan, const Problem& reported) {
  return plan.problem ? *plan.problem : reported;
}

// Plans problem (which must pass validate(); this throws mote::InputError otherwise). Throws
// std::logic_error if an algorithm ever produced a plan the verifier rejects (a bug).
Plan plan(const Problem& problem, Algorithm algorithm, const PlanOptions& options = {});

// What a report shows: for kAuto, the auto plan followed by each algorithm it ran (naive, the
// greedy ones and exact, each as it came out, then "lns" where it ran); otherwise the one plan.
std::vector<Plan> plan_with_details(const Problem& problem, Algorithm algorithm,
                                    const PlanOptions& options = {});

}  // namespace mote::planner
