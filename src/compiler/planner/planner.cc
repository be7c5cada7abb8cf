#include "compiler/planner/planner.h"

#include <algorithm>
#include <stdexcept>

#include "compiler/planner/algorithms.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/verify.h"

namespace mote::planner {

std::string_view to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kNaive: return "naive";
    case Algorithm::kFirstFit: return "first-fit";
    case Algorithm::kBestFit: return "best-fit";
    case Algorithm::kExact: return "exact";
    case Algorithm::kAuto: return "auto";
    case Algorithm::kChainFit: return "chain-fit";
  }
  return "?";
}

std::optional<Algorithm> algorithm_from_string(std::string_view text) {
  for (Algorithm algorithm : kAllAlgorithms) {
    if (text == to_string(algorithm)) return algorithm;
  }
  return std::nullopt;
}

namespace {

using internal::Clock;

// Problems with at least this many movable buffers (and no overlaps) get the large-neighbourhood
// search in auto, after the exact search has had about this many milliseconds.
constexpr size_t kLnsMinBuffers = 500;
constexpr double kLnsExactMs = 500;
// Where every step is exactly full at the bound (a perfect packing), the exact search gets this
// share of the budget instead (its guillotine decomposition half of it): only that
// decomposition reaches the bound there. On dense 1,000-buffer problems in 10 s, 0.9 solved no
// more than 0.6 (20 of 32 each, bench/planner.md), and the plans it did not solve ended higher
// (the large-neighbourhood search then has 1 s, not 4).
constexpr double kLnsExactPerfectShare = 0.6;

double elapsed_ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Plan finish(const Problem& problem, uint64_t bound, std::vector<uint64_t> offsets,
            Algorithm algorithm, bool proven, Clock::time_point start) {
  Plan plan;
  plan.arena_bytes = internal::arena_bytes(problem, offsets);
  plan.offsets = std::move(offsets);
  plan.algorithm = std::string(to_string(algorithm));
  plan.chosen = plan.algorithm;
  plan.optimal = proven || plan.arena_bytes <= bound;
  plan.milliseconds = elapsed_ms(start);
  if (auto error = verify(problem, plan)) {
    throw std::logic_error("planner: " + plan.algorithm + " made an invalid plan: " + *error);
  }
  return plan;
}

Plan run_one(const Problem& problem, uint64_t bound, Algorithm algorithm,
             const PlanOptions& options, const std::vector<uint64_t>* seed) {
  const Clock::time_point start = Clock::now();
  switch (algorithm) {
    case Algorithm::kNaive:
      return finish(problem, bound, internal::place_naive(problem), algorithm, false, start);
    case Algorithm::kFirstFit:
      // TensorFlow Lite Micro's rule on its own problem: every output apart from its inputs.
      // Those plans hold with the overlaps too.
      return finish(problem, bound, internal::place_first_fit(without_overlaps(problem)),
                    algorithm, false, start);
    case Algorithm::kBestFit:
      return finish(problem, bound, internal::place_best_fit(problem), algorithm, false, start);
    case Algorithm::kChainFit:
      return finish(problem, bound, internal::place_chain_fit(problem), algorithm, false, start);
    case Algorithm::kExact:
    case Algorithm::kAuto: {
      const auto deadline =
          start + std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double, std::milli>(options.time_limit_ms));
      internal::ExactResult result = internal::place_exact(problem, seed, options, deadline);
      Plan plan = finish(problem, bound, std::move(result.offsets), Algorithm::kExact,
                         result.optimal, start);
      plan.nodes = result.nodes;
      return plan;
    }
  }
  throw std::logic_error("planner: unknown algorithm");
}

}  // namespace

namespace {

// Auto's run: the auto plan, then each algorithm it ran (see plan_with_details).
std::vector<Plan> plan_auto(const Problem& problem, uint64_t bound, const PlanOptions& options) {
  const Clock::time_point start = Clock::now();
  std::vector<Plan> details;
  // Chain-fit only where there are overlaps (without, it is first-fit or best-fit).
  std::vector<Algorithm> greedy = {Algorithm::kNaive, Algorithm::kFirstFit, Algorithm::kBestFit};
  if (!problem.overlaps.empty()) greedy.push_back(Algorithm::kChainFit);
  for (Algorithm a : greedy) details.push_back(run_one(problem, bound, a, options, nullptr));
  // Exact, seeded with the best greedy plan (the earlier one on ties), within what is left of
  // the budget.
  const Plan* seed = &details[1];
  for (size_t i = 2; i < details.size(); ++i) {
    if (details[i].arena_bytes < seed->arena_bytes) seed = &details[i];
  }
  // The first-fit row keeps outputs apart (TensorFlow Lite Micro's problem); the same rule with
  // the overlaps is a seed candidate too, though no row of its own.
  std::vector<uint64_t> seed_offsets = seed->offsets;
  if (!problem.overlaps.empty()) {
    std::vector<uint64_t> first_fit = internal::place_first_fit(problem);
    if (internal::arena_bytes(problem, first_fit) < seed->arena_bytes) {
      seed_offsets = std::move(first_fit);
    }
  }
  // On large problems without overlaps, the exact search gets only a share of what is left (the
  // share fixed by the budget alone, so node limits split the same way on every machine), and
  // if it proves nothing, the large-neighbourhood search improves its plan in the rest.
  size_t movable = 0;
  for (const Buffer& b : problem.buffers) movable += !b.fixed_offset && aligned_size(b) > 0;
  const bool large = problem.overlaps.empty() && movable >= kLnsMinBuffers;
  double exact_share = 1.0;
  if (large) {
    exact_share = internal::every_step_full(problem, bound)
                      ? kLnsExactPerfectShare
                      : std::clamp(kLnsExactMs / std::max(options.time_limit_ms, 1.0), 0.1, 0.5);
  }
  PlanOptions exact_options = options;
  exact_options.time_limit_ms =
      std::max(0.0, options.time_limit_ms - elapsed_ms(start)) * exact_share;
  if (large && options.node_limit != 0) {
    exact_options.node_limit =
        std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(options.node_limit) * exact_share));
  }
  Plan exact = run_one(problem, bound, Algorithm::kExact, exact_options, &seed_offsets);
  const uint64_t exact_nodes = exact.nodes;
  const bool exact_proved = exact.optimal;
  const bool improve = large && !exact.optimal && elapsed_ms(start) < options.time_limit_ms &&
                       (options.node_limit == 0 || exact_nodes < options.node_limit);
  details.push_back(std::move(exact));
  if (improve) {
    const Clock::time_point lns_start = Clock::now();
    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double, std::milli>(options.time_limit_ms));
    internal::LnsOptions lns_options;
    if (options.node_limit != 0) lns_options.node_limit = options.node_limit - exact_nodes;
    internal::LnsResult improved = internal::improve_lns(problem, details.back().offsets, bound,
                                                         lns_options, deadline);
    Plan lns = finish(problem, bound, std::move(improved.offsets), Algorithm::kExact, false, lns_start);
    lns.algorithm = lns.chosen = "lns";
    lns.nodes = improved.nodes;
    details.push_back(std::move(lns));
  }

  const Plan* best = &details[1];
  for (size_t i = 2; i < details.size(); ++i) {
    if (details[i].arena_bytes < best->arena_bytes) best = &details[i];
  }
  Plan chosen = *best;
  chosen.algorithm = "auto";
  chosen.chosen = best->chosen;
  // The exact search's proof covers every plan of the same size.
  chosen.optimal = exact_proved || chosen.arena_bytes <= bound;
  chosen.milliseconds = elapsed_ms(start);
  chosen.nodes = exact_nodes + (improve ? details.back().nodes : 0);
  details.insert(details.begin(), std::move(chosen));
  return details;
}

}  // namespace

std::vector<Plan> plan_with_details(const Problem& problem, Algorithm algorithm,
                                    const PlanOptions& options) {
  validate(problem);
  const uint64_t bound = lower_bound(problem).bytes;
  if (algorithm == Algorithm::kAuto) return plan_auto(problem, bound, options);
  if (algorithm == Algorithm::kExact) {
    // The exact search starts where auto starts it (the best greedy plan, chain-fit among them,
    // and on large problems the large-neighbourhood search after it): unseeded, on a problem
    // with overlaps, it would search only plans without them and never beat auto.
    Plan exact = plan_auto(problem, bound, options).front();
    exact.algorithm = std::string(to_string(Algorithm::kExact));
    return {std::move(exact)};
  }
  return {run_one(problem, bound, algorithm, options, nullptr)};
}

Plan plan(const Problem& problem, Algorithm algorithm, const PlanOptions& options) {
  return plan_with_details(problem, algorithm, options).front();
}

}  // namespace mote::planner
