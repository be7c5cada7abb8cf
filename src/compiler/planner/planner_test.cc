// The placement algorithms: TensorFlow Lite Micro's rule, best fit, and properties every plan has.
#include "compiler/planner/planner.h"

#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "compiler/ir/error.h"
#include "compiler/planner/algorithms.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/random_problems.h"
#include "compiler/planner/verify.h"

namespace mote::planner {
namespace {

// Ten convolutions in a chain, each with one scratch buffer as large as its activations.
// Buffers are listed as TFLM adds them: tensors by tensor index, then scratch buffers by
// operator. With swap_numbering, the converter numbered the first two intermediate tensors the
// other way round.
Problem conv_chain(bool swap_numbering) {
  constexpr uint64_t kSize = 1024;
  Problem p;
  p.num_steps = 10;
  std::vector<Buffer> tensors;
  tensors.push_back(buffer("input", kSize, 0, 0, BufferKind::kInput));
  for (int k = 1; k <= 9; ++k) tensors.push_back(buffer("conv" + std::to_string(k - 1) + "/out", kSize, k - 1, k));
  tensors.push_back(buffer("output", kSize, 9, 9, BufferKind::kOutput));
  if (swap_numbering) std::swap(tensors[1], tensors[2]);
  p.buffers = tensors;
  for (int k = 0; k <= 9; ++k) {
    p.buffers.push_back(buffer("conv" + std::to_string(k) + "/scratch", kSize, k, k, BufferKind::kScratch));
  }
  return p;
}

TEST(FirstFitTest, LandsAThirdAboveTheBoundOnAConvChainWhereExactReachesIt) {
  const Problem chain = conv_chain(/*swap_numbering=*/true);
  const uint64_t bound = lower_bound(chain).bytes;
  EXPECT_EQ(bound, 3 * 1024u);  // input, output and scratch of one convolution
  const Plan first_fit = plan(chain, Algorithm::kFirstFit);
  EXPECT_EQ(first_fit.arena_bytes, 4 * 1024u);  // 33% above, as TFLM's planner does
  EXPECT_FALSE(first_fit.optimal);
  for (Algorithm algorithm : {Algorithm::kExact, Algorithm::kAuto}) {
    const Plan best = plan(chain, algorithm);
    EXPECT_EQ(best.arena_bytes, bound) << to_string(algorithm);
    EXPECT_TRUE(best.optimal);
  }
  // In execution order the same rule happens to find the bound: the gap comes from the order
  // of equal sizes alone.
  EXPECT_EQ(plan(conv_chain(false), Algorithm::kFirstFit).arena_bytes, bound);
}

// TFLM's GreedyMemoryPlanner as it is written: fixed buffers first; the others filled into the
// sort arrays from the tail and bubble-sorted by size, largest first; each placed by walking the
// offset-ordered list of placed buffers that live at the same time, taking the first gap that
// holds it. Sizes are the aligned sizes TFLM's allocator passes in. Independent of greedy.cc.
std::vector<uint64_t> tflm_greedy(const Problem& problem) {
  const auto& buffers = problem.buffers;
  const int n = static_cast<int>(buffers.size());
  std::vector<int64_t> sizes, ids;
  std::vector<int64_t> sorted_sizes(n), sorted_ids(n);
  int head = 0, tail = n;
  for (int i = 0; i < n; ++i) {
    const int64_t size = static_cast<int64_t>(aligned_size(buffers[i]));
    const int slot = buffers[i].fixed_offset ? head++ : --tail;
    sorted_sizes[slot] = size;
    sorted_ids[slot] = i;
  }
  for (bool swapped = true; swapped;) {  // bubble sort of the online part, descending
    swapped = false;
    for (int i = head + 1; i < n; ++i) {
      if (sorted_sizes[i - 1] < sorted_sizes[i]) {
        std::swap(sorted_sizes[i - 1], sorted_sizes[i]);
        std::swap(sorted_ids[i - 1], sorted_ids[i]);
        swapped = true;
      }
    }
  }
  std::vector<uint64_t> offsets(n, 0);
  std::vector<int> by_offset;  // placed ids, ordered by offset (new ones after equal offsets)
  for (int k = 0; k < n; ++k) {
    const int id = static_cast<int>(sorted_ids[k]);
    const Buffer& b = buffers[id];
    int64_t candidate = 0;
    if (b.fixed_offset) {
      candidate = static_cast<int64_t>(*b.fixed_offset);
    } else {
      const int64_t size = sorted_sizes[k];
      for (int j : by_offset) {
        const Buffer& other = buffers[j];
        if (other.first_step > b.last_step || b.first_step > other.last_step) continue;
        // One departure: TFLM would let a zero-size buffer above the candidate push it up to
        // its offset; in Mote an empty buffer occupies nothing.
        if (other.size == 0) continue;
        const int64_t gap = static_cast<int64_t>(offsets[j]) - candidate;
        if (gap >= size) break;
        candidate = std::max(candidate, static_cast<int64_t>(offsets[j] + aligned_size(other)));
      }
    }
    offsets[id] = static_cast<uint64_t>(candidate);
    auto at = std::upper_bound(by_offset.begin(), by_offset.end(), candidate,
                               [&](int64_t value, int j) { return value < static_cast<int64_t>(offsets[j]); });
    by_offset.insert(at, id);
  }
  return offsets;
}

TEST(FirstFitTest, ReproducesTflmsGreedyPlannerExactly) {
  for (uint64_t seed = 0; seed < 300; ++seed) {
    // Whole 16-byte units, as TFLM's allocator rounds them: then offsets are aligned either way.
    Problem p = seed % 3 == 0 ? random_loose_problem(40, seed)
                : seed % 3 == 1 ? random_tight_problem(40, seed)
                                : random_small_problem(1 + seed % 12, seed, /*allow_fixed=*/true);
    for (Buffer& b : p.buffers) b.size = aligned_size(b);
    const Plan first_fit = plan(p, Algorithm::kFirstFit);
    ASSERT_EQ(first_fit.offsets, tflm_greedy(p)) << "seed " << seed;
  }
  EXPECT_EQ(plan(conv_chain(true), Algorithm::kFirstFit).offsets, tflm_greedy(conv_chain(true)));
}

TEST(GreedyOrderTest, FixedFirstThenLargestFirstWithTiesInReverseOrder) {
  Problem p;
  p.num_steps = 1;
  p.buffers = {buffer("a", 32, 0, 0), buffer("b", 64, 0, 0), buffer("c", 32, 0, 0),
               buffer("d", 16, 0, 0), buffer("e", 32, 0, 0)};
  p.buffers[3].fixed_offset = 256;
  EXPECT_EQ(internal::greedy_order(p), (std::vector<size_t>{3, 1, 4, 2, 0}));
}

TEST(BestFitTest, TakesTheSmallestGapThatHolds) {
  Problem p;
  p.num_steps = 3;
  p.buffers = {buffer("wide", 128, 0, 2), buffer("low", 64, 0, 0), buffer("mid", 32, 0, 2),
               buffer("high", 32, 2, 2), buffer("small", 32, 1, 1)};
  p.buffers[0].fixed_offset = 128;  // [128, 256)
  p.buffers[1].fixed_offset = 0;    // [0, 64) at step 0 only
  p.buffers[2].fixed_offset = 64;   // [64, 96)
  p.buffers[3].fixed_offset = 96;   // [96, 128) at step 2 only
  // At step 1 the free gaps are [0, 64) and [96, 128).
  EXPECT_EQ(plan(p, Algorithm::kFirstFit).offsets[4], 0u);
  EXPECT_EQ(plan(p, Algorithm::kBestFit).offsets[4], 96u);
}

TEST(NaiveTest, ReusesNothing) {
  const Problem chain = conv_chain(false);
  const Plan naive = plan(chain, Algorithm::kNaive);
  EXPECT_EQ(naive.arena_bytes, 21 * 1024u);
  for (size_t i = 0; i < chain.buffers.size(); ++i) EXPECT_EQ(naive.offsets[i], i * 1024);
}

TEST(PlannerTest, EmptyAndZeroSizeProblems) {
  for (Algorithm algorithm : kAllAlgorithms) {
    const Plan empty = plan(Problem{}, algorithm);
    EXPECT_EQ(empty.arena_bytes, 0u);
    EXPECT_TRUE(empty.optimal);
    Problem zeros;
    zeros.num_steps = 2;
    zeros.buffers = {buffer("z", 0, 0, 1), buffer("y", 0, 1, 1)};
    const Plan zero = plan(zeros, algorithm);
    EXPECT_EQ(zero.arena_bytes, 0u);
    EXPECT_EQ(verify(zeros, zero), std::nullopt);
  }
}

TEST(PlannerTest, AutoReportsEveryAlgorithmAndKeepsTheBest) {
  const Problem p = random_tight_problem(60, 7);
  PlanOptions options;
  options.node_limit = 50'000;
  const std::vector<Plan> plans = plan_with_details(p, Algorithm::kAuto, options);
  ASSERT_EQ(plans.size(), 5u);
  const char* expected[] = {"auto", "naive", "first-fit", "best-fit", "exact"};
  for (size_t i = 0; i < plans.size(); ++i) EXPECT_EQ(plans[i].algorithm, expected[i]);
  uint64_t best = UINT64_MAX;
  for (size_t i = 1; i < plans.size(); ++i) best = std::min(best, plans[i].arena_bytes);
  EXPECT_EQ(plans[0].arena_bytes, best);
  const auto winner = std::find_if(plans.begin() + 1, plans.end(),
                                   [&](const Plan& x) { return x.algorithm == plans[0].chosen; });
  ASSERT_NE(winner, plans.end());
  EXPECT_EQ(winner->offsets, plans[0].offsets);
}

TEST(PlannerTest, RejectsAnInvalidProblem) {
  Problem p;
  p.num_steps = 1;
  p.buffers = {buffer("late", 16, 0, 4)};
  EXPECT_THROW(plan(p, Algorithm::kAuto), InputError);
}

// Every algorithm, on thousands of random problems: a plan the verifier accepts, never below
// the lower bound, fixed buffers where they were put, "optimal" only when it is.
TEST(PlannerPropertyTest, EveryPlanIsValid) {
  PlanOptions options;
  options.time_limit_ms = 60'000;
  options.node_limit = 1'000;  // deterministic and quick
  std::map<std::string, int> reached_bound;
  int problems = 0;
  for (uint64_t seed = 0; seed < 2400; ++seed) {
    Problem p;
    if (seed % 8 == 0) {
      p = random_loose_problem(10 + seed % 30, seed);
    } else if (seed % 8 == 1) {
      p = random_tight_problem(10 + seed % 30, seed);
    } else {
      p = random_small_problem(1 + seed % 12, seed, /*allow_fixed=*/true, seed % 5 == 0 ? 4 : 16);
    }
    // Now and then pin a buffer where first fit put it (a fixed offset that is feasible).
    if (seed % 7 == 3 && !p.buffers.empty()) {
      const Plan first = plan(p, Algorithm::kFirstFit);
      const size_t i = seed % p.buffers.size();
      if (!p.buffers[i].fixed_offset) {
        bool clash = false;
        for (const Buffer& other : p.buffers) {
          clash |= other.fixed_offset.has_value() && lifetimes_overlap(other, p.buffers[i]);
        }
        if (!clash) p.buffers[i].fixed_offset = first.offsets[i];
      }
    }
    ++problems;
    const uint64_t bound = lower_bound(p).bytes;
    uint64_t best_greedy = UINT64_MAX;
    for (Algorithm algorithm : kAllAlgorithms) {
      const Plan result = plan(p, algorithm, options);
      ASSERT_EQ(verify(p, result), std::nullopt) << to_string(algorithm) << " seed " << seed;
      ASSERT_GE(result.arena_bytes, bound);
      for (size_t i = 0; i < p.buffers.size(); ++i) {
        if (p.buffers[i].fixed_offset) {
          ASSERT_EQ(result.offsets[i], *p.buffers[i].fixed_offset);
        }
      }
      if (result.optimal && algorithm != Algorithm::kExact && algorithm != Algorithm::kAuto) {
        ASSERT_EQ(result.arena_bytes, bound);
      }
      if (algorithm == Algorithm::kFirstFit || algorithm == Algorithm::kBestFit) {
        best_greedy = std::min(best_greedy, result.arena_bytes);
      }
      if (algorithm == Algorithm::kExact || algorithm == Algorithm::kAuto) {
        ASSERT_LE(result.arena_bytes, best_greedy);
        ASSERT_LE(result.nodes, options.node_limit);
      }
      if (result.arena_bytes == bound) ++reached_bound[std::string(to_string(algorithm))];
    }
  }
  EXPECT_EQ(problems, 2400);
  // The exact search reaches the bound at least as often as any greedy rule.
  EXPECT_GE(reached_bound["exact"], reached_bound["first-fit"]);
  EXPECT_GE(reached_bound["exact"], reached_bound["best-fit"]);
}

TEST(ExactTest, SameNodeLimitSamePlan) {
  const Problem p = random_tight_problem(200, 3, nullptr, Density::kDense);
  PlanOptions options;
  options.time_limit_ms = 600'000;
  options.node_limit = 20'000;
  const Plan a = plan(p, Algorithm::kAuto, options);
  const Plan b = plan(p, Algorithm::kAuto, options);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_LE(a.nodes, 20'000u);
}

TEST(ExactTest, ReachesTheBoundOfModelLikeTightProblems) {
  // Cut from a full packing, so the bound is the optimum; greedy rules land well above it.
  PlanOptions options;
  options.time_limit_ms = 600'000;
  options.node_limit = 200'000;
  int greedy_above = 0;
  for (uint64_t seed = 0; seed < 6; ++seed) {
    std::vector<uint64_t> packing;
    const Problem p = random_tight_problem(100, seed, &packing);
    Plan known;
    known.offsets = packing;
    known.arena_bytes = 65536;
    ASSERT_EQ(verify(p, known), std::nullopt);  // the generator's own packing
    const Plan exact = plan(p, Algorithm::kExact, options);
    EXPECT_EQ(exact.arena_bytes, lower_bound(p).bytes) << "seed " << seed;
    EXPECT_TRUE(exact.optimal);
    greedy_above += plan(p, Algorithm::kFirstFit).arena_bytes > exact.arena_bytes;
  }
  EXPECT_GE(greedy_above, 4);
}

TEST(ExactTest, ImprovesOnGreedyOnDensePuzzlesWithinANodeLimit) {
  // Dense cut packings are hard (the bound is optimal, but tens of buffers live per step); the
  // search does not always reach the bound within its nodes, yet always beats the greedy rules.
  PlanOptions options;
  options.time_limit_ms = 600'000;
  options.node_limit = 20'000;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const Problem p = random_tight_problem(200, seed, nullptr, Density::kDense);
    const Plan exact = plan(p, Algorithm::kExact, options);
    EXPECT_LT(exact.arena_bytes, plan(p, Algorithm::kFirstFit).arena_bytes) << "seed " << seed;
    EXPECT_LT(exact.arena_bytes, plan(p, Algorithm::kBestFit).arena_bytes) << "seed " << seed;
    EXPECT_EQ(exact.optimal, exact.arena_bytes == lower_bound(p).bytes);
  }
}

TEST(ExactTest, ZeroTimeStillGivesAValidPlan) {
  const Problem p = random_tight_problem(200, 1, nullptr, Density::kDense);
  PlanOptions options;
  options.time_limit_ms = 0;
  const Plan exact = plan(p, Algorithm::kExact, options);
  EXPECT_EQ(verify(p, exact), std::nullopt);
  EXPECT_LE(exact.arena_bytes, plan(p, Algorithm::kFirstFit).arena_bytes);
}

}  // namespace
}  // namespace mote::planner
