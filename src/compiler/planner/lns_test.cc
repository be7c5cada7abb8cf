// The large-neighbourhood search: valid plans, never worse than its start, fixed buffers kept,
// progress on a dense puzzle, the same result on every run. Node limits only (no assertion
// depends on the clock: the deadlines are far away).
#include <gtest/gtest.h>

#include "compiler/planner/algorithms.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/planner.h"
#include "compiler/planner/random_problems.h"
#include "compiler/planner/verify.h"

namespace mote::planner {
namespace {

using internal::Clock;

Clock::time_point far_away() { return Clock::now() + std::chrono::hours(1); }

std::vector<uint64_t> greedy_start(const Problem& problem) {
  std::vector<uint64_t> first = internal::place_first_fit(problem);
  std::vector<uint64_t> best = internal::place_best_fit(problem);
  return internal::arena_bytes(problem, best) < internal::arena_bytes(problem, first) ? best : first;
}

// Checks what improve_lns promises and returns the arena of its plan.
uint64_t check_lns(const Problem& problem, const std::vector<uint64_t>& start, uint64_t node_limit,
                   const std::string& what) {
  internal::LnsOptions options;
  options.node_limit = node_limit;
  const internal::LnsResult result =
      internal::improve_lns(problem, start, lower_bound(problem).bytes, options, far_away());
  Plan plan;
  plan.offsets = result.offsets;
  plan.arena_bytes = internal::arena_bytes(problem, result.offsets);
  EXPECT_EQ(verify(problem, plan), std::nullopt) << what;
  EXPECT_LE(plan.arena_bytes, internal::arena_bytes(problem, start)) << what;
  EXPECT_LE(result.nodes, node_limit) << what;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    if (b.fixed_offset) {
      EXPECT_EQ(result.offsets[i], *b.fixed_offset) << what << ": buffer " << i;
    }
    if (aligned_size(b) == 0) {
      EXPECT_EQ(result.offsets[i], start[i]) << what << ": buffer " << i;
    }
  }
  return plan.arena_bytes;
}

TEST(LnsTest, SmallProblemsStayValidAndNeverGetWorse) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const uint32_t alignment = uint32_t{1} << (seed % 7);
    const Problem p = random_small_problem(4 + seed % 9, seed, /*allow_fixed=*/true, alignment);
    validate(p);
    check_lns(p, greedy_start(p), 5'000, "small seed " + std::to_string(seed));
    // No reuse at all: plenty to improve.
    const uint64_t after = check_lns(p, internal::place_naive(p), 5'000, "small naive seed " + std::to_string(seed));
    const uint64_t naive = internal::arena_bytes(p, internal::place_naive(p));
    if (naive > lower_bound(p).bytes) {
      EXPECT_LT(after, naive) << "seed " << seed;
    }
  }
}

TEST(LnsTest, KeepsFixedBuffersAndMixedAlignments) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    Problem p = random_tight_problem(150, seed, nullptr, Density::kDense);
    // Mixed alignments (sizes are multiples of 16 already), and every tenth buffer fixed where
    // the greedy plan puts it.
    for (size_t i = 0; i < p.buffers.size(); i += 3) p.buffers[i].alignment = 64;
    const std::vector<uint64_t> plan = greedy_start(p);
    for (size_t i = 0; i < p.buffers.size(); i += 10) p.buffers[i].fixed_offset = plan[i];
    validate(p);
    check_lns(p, plan, 100'000, "dense 150 seed " + std::to_string(seed));
  }
  const Problem loose = random_loose_problem(300, 3);
  check_lns(loose, internal::place_naive(loose), 100'000, "loose 300");
}

TEST(LnsTest, ImprovesADenseProblemWithinANodeBudget) {
  // 200 buffers cut from a full rectangle: the greedy plans end well above it.
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const Problem p = random_tight_problem(200, seed, nullptr, Density::kDense);
    const std::vector<uint64_t> start = greedy_start(p);
    const uint64_t before = internal::arena_bytes(p, start);
    const uint64_t after = check_lns(p, start, 200'000, "dense 200 seed " + std::to_string(seed));
    EXPECT_LT(after, before) << "seed " << seed;
    // At least a third of the way from the greedy plan to the bound (the optimum here).
    const uint64_t bound = lower_bound(p).bytes;
    EXPECT_LE(after - bound, (before - bound) * 2 / 3) << "seed " << seed << ": " << before << " -> " << after;
  }
}

TEST(LnsTest, IsTheSameOnEveryRun) {
  const Problem p = random_tight_problem(200, 4, nullptr, Density::kDense);
  const std::vector<uint64_t> start = greedy_start(p);
  internal::LnsOptions options;
  options.node_limit = 50'000;
  const uint64_t bound = lower_bound(p).bytes;
  const internal::LnsResult a = internal::improve_lns(p, start, bound, options, far_away());
  const internal::LnsResult b = internal::improve_lns(p, start, bound, options, far_away());
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.moves, b.moves);
}

TEST(LnsTest, StopsAtTheBound) {
  // A plan at the lower bound is returned as it is, without a move.
  const Problem p = random_tight_problem(40, 2);
  std::vector<uint64_t> packing;
  random_tight_problem(40, 2, &packing);
  internal::LnsOptions options;
  options.node_limit = 10'000;
  const internal::LnsResult result =
      internal::improve_lns(p, packing, lower_bound(p).bytes, options, far_away());
  EXPECT_EQ(result.offsets, packing);
  EXPECT_EQ(result.moves, 0u);
}

TEST(LnsTest, AutoRunsItOnLargeProblemsOnly) {
  PlanOptions options;
  options.time_limit_ms = 600'000;  // the node limit binds
  options.node_limit = 30'000;
  // A dense cut packing with one buffer 16 bytes larger: no longer a perfect packing (exact's
  // guillotine decomposition at the bound does not apply), and exact proves nothing.
  Problem large = random_tight_problem(600, 1, nullptr, Density::kDense);
  large.buffers[0].size += 16;
  const std::vector<Plan> plans = plan_with_details(large, Algorithm::kAuto, options);
  ASSERT_EQ(plans.size(), 6u);
  EXPECT_EQ(plans.back().algorithm, "lns");
  EXPECT_LE(plans.back().arena_bytes, plans[4].arena_bytes);  // never worse than exact's
  EXPECT_EQ(plans[0].arena_bytes, std::min(plans[4].arena_bytes, plans[5].arena_bytes));
  EXPECT_LE(plans[0].nodes, options.node_limit);
  EXPECT_EQ(verify(large, plans[0]), std::nullopt);
  // The same plan again: the budget splits by nodes, not by the clock.
  EXPECT_EQ(plan(large, Algorithm::kAuto, options).offsets, plans[0].offsets);

  const Problem small = random_tight_problem(200, 1, nullptr, Density::kDense);
  EXPECT_EQ(plan_with_details(small, Algorithm::kAuto, options).size(), 5u);
}

}  // namespace
}  // namespace mote::planner
