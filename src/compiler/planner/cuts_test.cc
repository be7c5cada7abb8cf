// The guillotine decomposition (decide_cuts): every plan it returns is valid and fits the
// capacity; it finds the bound of cut packings within a node budget, and nothing where a step is
// not full or a buffer is fixed; the same result on every run. Node limits only (the deadlines
// are far away).
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

// Checks a plan the decomposition found: valid, movable buffers within capacity, fixed ones kept.
void check_plan(const Problem& problem, const std::vector<uint64_t>& offsets, uint64_t capacity,
                const std::string& what) {
  Plan plan;
  plan.offsets = offsets;
  plan.arena_bytes = internal::arena_bytes(problem, offsets);
  ASSERT_EQ(verify(problem, plan), std::nullopt) << what;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    if (b.fixed_offset) {
      EXPECT_EQ(offsets[i], *b.fixed_offset) << what << ": buffer " << i;
    } else if (aligned_size(b) > 0) {
      EXPECT_LE(offsets[i] + aligned_size(b), capacity) << what << ": buffer " << i;
    }
  }
}

internal::CutsResult cuts(const Problem& problem, uint64_t capacity, uint64_t node_limit) {
  internal::CutsOptions options;
  options.node_limit = node_limit;
  return internal::decide_cuts(problem, capacity, options, far_away());
}

// The decomposition finds the bound of the dense 1,000-buffer cut packing of `seed` within
// `node_limit` nodes.
void expect_dense_1000_at_bound(uint64_t seed, uint64_t node_limit) {
  const Problem dense = random_tight_problem(1000, seed, nullptr, Density::kDense);
  const uint64_t bound = lower_bound(dense).bytes;
  const internal::CutsResult result = cuts(dense, bound, node_limit);
  ASSERT_TRUE(result.offsets.has_value()) << "dense 1000 seed " << seed;
  check_plan(dense, *result.offsets, bound, "dense 1000 seed " + std::to_string(seed));
}

TEST(CutsTest, ExactProvesTightProblemsWithIt) {
  // Cut packings of 1,000 buffers: the decomposition at the bound inside the exact search
  // finds the optimum (the bound) within the node limit.
  PlanOptions options;
  options.time_limit_ms = 600'000;
  options.node_limit = 400'000;
  for (uint64_t seed : {3, 5}) {  // exact alone: 69,216 and 68,496 bytes in 200,000 nodes
    const Problem p = random_tight_problem(1000, seed);
    const Plan exact = plan(p, Algorithm::kExact, options);
    EXPECT_EQ(exact.arena_bytes, lower_bound(p).bytes) << "seed " << seed;
    EXPECT_TRUE(exact.optimal) << "seed " << seed;
  }
}

TEST(CutsTest, FindsTheBoundOfDenseCutPackings) {
  // Guillotine cut packings (every step full at the bound): the decomposition finds them.
  for (uint64_t seed : {1, 3, 4, 5}) {
    const Problem dense = random_tight_problem(200, seed, nullptr, Density::kDense);
    const uint64_t bound = lower_bound(dense).bytes;
    const internal::CutsResult result = cuts(dense, bound, 20'000);
    ASSERT_TRUE(result.offsets.has_value()) << "dense 200 seed " << seed;
    check_plan(dense, *result.offsets, bound, "dense 200 seed " + std::to_string(seed));
    EXPECT_LE(result.nodes, 20'000u);
  }
  for (uint64_t seed : {1, 5}) {  // exact alone does not get there (bench/planner.md)
    expect_dense_1000_at_bound(seed, 100'000);
  }
}

TEST(CutsTest, RestartsFindWhatTheFirstOrdersMiss) {
  // The first two orders (fewest buffers in A first, then most first) get lost below a wrong
  // choice: with half of 2,000,000 nodes each they find nothing. Restarts in orders varied at
  // random find the bound in about 116,000.
  expect_dense_1000_at_bound(16, 1'000'000);
}

TEST(CutsTest, RestartsBackwardInTimeFindWhatForwardOnesMiss) {
  // No forward attempt, however shuffled, finds the bound in 5,000,000 nodes: the first attempt
  // backward in time (the seventh) finds it after about 400,000 (seed 17 behaves alike).
  expect_dense_1000_at_bound(4, 1'000'000);
}

TEST(CutsTest, OnlyPerfectPackingsWithoutFixedBuffers) {
  Problem p = random_tight_problem(200, 1, nullptr, Density::kDense);
  const uint64_t bound = lower_bound(p).bytes;
  // Above the bound no step is full: no plan, at once.
  EXPECT_FALSE(cuts(p, bound + 16, 20'000).offsets.has_value());
  EXPECT_FALSE(cuts(p, bound - 16, 20'000).offsets.has_value());
  // A fixed buffer: not handled.
  std::vector<uint64_t> packing;
  Problem fixed = random_tight_problem(200, 1, &packing, Density::kDense);
  fixed.buffers[3].fixed_offset = packing[3];
  EXPECT_FALSE(cuts(fixed, bound, 20'000).offsets.has_value());
  // Model-like problems leave steps below the bound.
  const Problem loose = random_loose_problem(200, 1);
  EXPECT_FALSE(cuts(loose, lower_bound(loose).bytes, 20'000).offsets.has_value());
  // Deterministic.
  const internal::CutsResult a = cuts(p, bound, 20'000), b = cuts(p, bound, 20'000);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.nodes, b.nodes);
}

TEST(CutsTest, AlignmentsAreKept) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::vector<uint64_t> packing;
    Problem p = random_tight_problem(300, seed, &packing);
    for (size_t i = 0; i < p.buffers.size(); ++i) {
      if (packing[i] % 64 == 0 && p.buffers[i].size % 64 == 0) p.buffers[i].alignment = 64;
    }
    const uint64_t bound = lower_bound(p).bytes;
    const internal::CutsResult result = cuts(p, bound, 50'000);
    if (result.offsets) check_plan(p, *result.offsets, bound, "seed " + std::to_string(seed));
  }
}

TEST(CutsTest, ExactProvesDenseProblemsWithIt) {
  // Dense cut packings of 1,000 buffers: exact alone ends 17 % above the bound in 1 s.
  PlanOptions options;
  options.time_limit_ms = 600'000;
  options.node_limit = 400'000;
  const Problem p = random_tight_problem(1000, 1, nullptr, Density::kDense);
  const Plan exact = plan(p, Algorithm::kExact, options);
  EXPECT_EQ(exact.arena_bytes, lower_bound(p).bytes);
  EXPECT_TRUE(exact.optimal);
}

}  // namespace
}  // namespace mote::planner
