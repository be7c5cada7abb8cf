// Outputs that may overlap a dying input (Problem::overlaps): the verifier accepts exactly the
// declared ones, the lower bound and the greedy planners use them (first-fit, TensorFlow Lite
// Micro's rule, does not), and the exact search keeps a valid plan without claiming a proof it
// does not have.
#include <gtest/gtest.h>

#include "compiler/ir/error.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/planner.h"
#include "compiler/planner/random_problems.h"
#include "compiler/planner/verify.h"

namespace mote::planner {
namespace {

// A chain of three 1,024-byte buffers, a -> b -> c, with b allowed over a at lead 64 and c over
// b at lead 0 (in place).
Problem chain(bool with_overlaps) {
  Problem p;
  p.num_steps = 3;
  p.buffers = {buffer("a", 1024, 0, 1), buffer("b", 1024, 1, 2), buffer("c", 1024, 2, 2)};
  if (with_overlaps) p.overlaps = {{1, 0, 64}, {2, 1, 0}};
  return p;
}

Plan plan_of(std::vector<uint64_t> offsets, uint64_t arena) {
  Plan plan;
  plan.offsets = std::move(offsets);
  plan.arena_bytes = arena;
  return plan;
}

TEST(OverlapTest, VerifierAcceptsOnlyDeclaredOverlapsAtTheirLead) {
  const Problem p = chain(true);
  EXPECT_EQ(verify(p, plan_of({64, 0, 0}, 1088)), std::nullopt);
  EXPECT_NE(verify(p, plan_of({48, 0, 0}, 1072)), std::nullopt);   // 16 bytes too close
  EXPECT_NE(verify(p, plan_of({0, 64, 64}, 1088)), std::nullopt);  // b after a: not declared
  EXPECT_NE(verify(chain(false), plan_of({64, 0, 0}, 1088)), std::nullopt);
}

TEST(OverlapTest, BoundAndGreedyUseTheOverlaps) {
  const Problem p = chain(true);
  EXPECT_EQ(lower_bound(chain(false)).bytes, 2048u);
  EXPECT_EQ(lower_bound(p).bytes, 1088u);
  for (Algorithm a : {Algorithm::kBestFit, Algorithm::kAuto}) {
    const Plan plan = planner::plan(p, a);
    EXPECT_EQ(plan.arena_bytes, 1088u) << to_string(a);
    EXPECT_EQ(verify(p, plan), std::nullopt);
  }
  // First-fit is TensorFlow Lite Micro's rule on its problem, which has no overlaps.
  const Plan first_fit = planner::plan(p, Algorithm::kFirstFit);
  EXPECT_EQ(first_fit.arena_bytes, 2048u);
  EXPECT_EQ(verify(p, first_fit), std::nullopt);
  EXPECT_EQ(planner::plan(chain(false), Algorithm::kAuto).arena_bytes, 2048u);
}

TEST(OverlapTest, NegativeLeadLetsTheOutputStartInsideTheInput) {
  Problem p;
  p.num_steps = 2;
  p.buffers = {buffer("in", 256, 0, 1), buffer("out", 64, 1, 1)};
  p.overlaps = {{1, 0, -32}};
  EXPECT_EQ(verify(p, plan_of({0, 32}, 256)), std::nullopt);
  EXPECT_NE(verify(p, plan_of({0, 48}, 256)), std::nullopt);
  EXPECT_EQ(planner::plan(p, Algorithm::kAuto).arena_bytes, 256u);
}

TEST(OverlapTest, ExactAloneIsSeededAsAutoAndNeverWorse) {
  // Unseeded, the search knows only plans without overlaps (2,048 here): asked for alone, it
  // starts from auto's seed and so keeps the overlaps.
  const Problem p = chain(true);
  const Plan exact = planner::plan(p, Algorithm::kExact);
  EXPECT_EQ(verify(p, exact), std::nullopt);
  EXPECT_EQ(exact.algorithm, "exact");
  EXPECT_EQ(exact.arena_bytes, 1088u);
}

TEST(OverlapTest, ValidateRefusesAPairThatDoesNotMeetAtOneStep) {
  Problem p = chain(true);
  p.overlaps.push_back({2, 0, 0});  // a dies at step 1, c is born at step 2
  EXPECT_THROW(validate(p), InputError);
}

// A convolution chain of the keyword-spotting kind: n buffers of `size` bytes, each the output
// of an operator at which the previous one dies; odd steps (depthwise) only forward at lead
// `dw`, even steps (pointwise) forward at lead `pw` or backward at back_lead `back`. A small
// buffer lives beside the whole chain.
Problem conv_chain(int n, uint64_t size, int64_t dw, int64_t pw, std::optional<int64_t> back) {
  Problem p;
  p.num_steps = n;
  for (int k = 0; k < n; ++k) {
    p.buffers.push_back(buffer("t" + std::to_string(k), size, k, std::min(k + 1, n - 1)));
  }
  p.buffers.push_back(buffer("side", 96, 0, n - 1));
  for (int k = 1; k < n; ++k) {
    const size_t out = static_cast<size_t>(k), in = out - 1;
    if (k % 2 == 1) {
      p.overlaps.push_back({out, in, dw});
    } else {
      p.overlaps.push_back({out, in, pw, back});
    }
  }
  return p;
}

TEST(OverlapTest, VerifierAcceptsABackwardOverlapAboveItsInputOnly) {
  Problem p;
  p.num_steps = 2;
  p.buffers = {buffer("in", 1024, 0, 1), buffer("out", 1024, 1, 1)};
  p.overlaps = {{1, 0, 127, 384}};
  EXPECT_EQ(verify(p, plan_of({0, 384}, 1408)), std::nullopt);      // backward, at its lead
  EXPECT_EQ(verify(p, plan_of({128, 0}, 1152)), std::nullopt);      // forward, at its lead
  EXPECT_NE(verify(p, plan_of({0, 368}, 1392)), std::nullopt);      // 16 bytes too close
  EXPECT_NE(verify(p, plan_of({0, 112}, 1136)), std::nullopt);      // neither
  p.overlaps = {{1, 0, 127}};                                         // forward only
  EXPECT_NE(verify(p, plan_of({0, 384}, 1408)), std::nullopt);
}

TEST(OverlapTest, LowerBoundCountsTheBackwardLead) {
  Problem p;
  p.num_steps = 2;
  p.buffers = {buffer("in", 1024, 0, 1), buffer("out", 2048, 1, 1)};
  p.overlaps = {{1, 0, 1024 + 127}};
  EXPECT_EQ(lower_bound(p).bytes, 2048u + 128u);
  p.overlaps = {{1, 0, 1024 + 127, 64}};
  EXPECT_EQ(lower_bound(p).bytes, 2048u + 64u);
}

// Forward only, the chain drifts down by each lead and the arena grows with its length; with
// backward pointwise steps, chain-fit keeps it in place at the per-step bound: the largest
// depthwise step (size + dw) and the side buffer.
TEST(OverlapTest, ChainFitAlternatesAndReachesTheBound) {
  for (const int n : {3, 5, 9, 13}) {
    SCOPED_TRACE("chain of " + std::to_string(n));
    const Problem forward = conv_chain(n, 8000, 384, 127, std::nullopt);
    const Problem both = conv_chain(n, 8000, 384, 127, 384);
    const uint64_t bound = lower_bound(both).bytes;
    EXPECT_EQ(bound, 8000u + 384u + 96u);
    const Plan chain = planner::plan(both, Algorithm::kChainFit);
    EXPECT_EQ(verify(both, chain), std::nullopt);
    EXPECT_EQ(chain.arena_bytes, bound);
    EXPECT_EQ(planner::plan(both, Algorithm::kAuto).arena_bytes, bound);
    // Some pointwise output sits above its input: it runs backward.
    bool above = false;
    for (int k = 2; k < n; k += 2) above |= chain.offsets[k] > chain.offsets[k - 1];
    EXPECT_TRUE(above);
    if (n >= 9) EXPECT_GT(planner::plan(forward, Algorithm::kAuto).arena_bytes, bound);
  }
  // A backward lead larger than the depthwise lead: the chain climbs by the difference at
  // each pair at worst, never drifting past what the verifier allows.
  const Problem wide = conv_chain(9, 8000, 384, 127, 512);
  const Plan plan = planner::plan(wide, Algorithm::kChainFit);
  EXPECT_EQ(verify(wide, plan), std::nullopt);
}

TEST(OverlapTest, ChainFitOnRandomProblemsWithBackwardLeadsIsValid) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    Problem p = conv_chain(3 + static_cast<int>(seed % 8), 512 + 16 * seed, 16 * (seed % 5),
                           static_cast<int64_t>(seed % 7), 16 * (seed % 9));
    for (Algorithm a : {Algorithm::kFirstFit, Algorithm::kBestFit, Algorithm::kChainFit,
                        Algorithm::kAuto}) {
      const Plan plan = planner::plan(p, a);
      EXPECT_EQ(verify(p, plan), std::nullopt) << to_string(a) << " seed " << seed;
      EXPECT_GE(plan.arena_bytes, lower_bound(p).bytes);
    }
  }
}

// A two-input ADD whose output may overlap either input (in place on each): both inputs are live
// as it writes, so the output saves one input's bytes, not both. The bound is the optimum, 2 x
// 16,384, not 16,384.
TEST(OverlapTest, LowerBoundSavesAnOutputOnceWhateverItsInputs) {
  Problem p;
  p.num_steps = 1;
  p.buffers = {buffer("a", 16384, 0, 0, BufferKind::kInput), buffer("b", 16384, 0, 0, BufferKind::kInput),
               buffer("sum", 16384, 0, 0, BufferKind::kOutput)};
  p.overlaps = {{2, 0, 0}, {2, 1, 0}};
  EXPECT_EQ(lower_bound(p).bytes, 32768u);
  const Plan best = planner::plan(p, Algorithm::kAuto);
  EXPECT_EQ(best.arena_bytes, 32768u);
  EXPECT_TRUE(best.optimal);
  // One input with two outputs over it (a split): the input is shared once too.
  Problem split;
  split.num_steps = 2;
  split.buffers = {buffer("in", 2048, 0, 1), buffer("x", 2048, 1, 1), buffer("y", 2048, 1, 1)};
  split.overlaps = {{1, 0, 0}, {2, 0, 0}};
  EXPECT_EQ(lower_bound(split).bytes, 4096u);
  EXPECT_EQ(planner::plan(split, Algorithm::kAuto).arena_bytes, 4096u);
}

// An in-place (exact) overlap: the output shares bytes with its input only at the input's own
// offset; the bound counts them as one, chain-fit puts them there, and the others keep them
// apart (never wrong, only larger).
TEST(OverlapTest, InPlaceSharesOnlyAtTheInputsOffset) {
  Problem p;
  p.num_steps = 2;
  p.buffers = {buffer("in", 1024, 0, 1), buffer("out", 1024, 1, 1),
               buffer("plane", 128, 1, 1, BufferKind::kScratch)};
  p.overlaps = {{1, 0, 0, std::nullopt, /*exact=*/true}};
  EXPECT_EQ(verify(p, plan_of({0, 0, 1024}, 1152)), std::nullopt);     // on it
  EXPECT_EQ(verify(p, plan_of({0, 1024, 2048}, 2176)), std::nullopt);  // apart
  EXPECT_NE(verify(p, plan_of({16, 0, 1040}, 1168)), std::nullopt);    // 16 bytes before
  EXPECT_NE(verify(p, plan_of({0, 16, 1040}, 1168)), std::nullopt);    // 16 bytes after
  EXPECT_EQ(lower_bound(p).bytes, 1152u);
  for (Algorithm a : {Algorithm::kChainFit, Algorithm::kAuto}) {
    const Plan plan = planner::plan(p, a);
    EXPECT_EQ(verify(p, plan), std::nullopt) << to_string(a);
    EXPECT_EQ(plan.arena_bytes, 1152u) << to_string(a);
  }
  for (Algorithm a : {Algorithm::kFirstFit, Algorithm::kBestFit, Algorithm::kExact}) {
    EXPECT_EQ(verify(p, planner::plan(p, a)), std::nullopt) << to_string(a);
  }
  // An exact overlap has no lead.
  p.overlaps[0].lead = 64;
  EXPECT_THROW(validate(p), InputError);
}

// Keyword spotting's kind of chain with the depthwise steps in place (a plane beside them, here
// one that fits in a pointwise lead) and the pointwise steps forward or backward: chain-fit keeps
// it within a pointwise lead of the tensor, where the raster depthwise needed its own lead of a
// row and a pixel.
TEST(OverlapTest, ChainFitKeepsAnInPlaceChainInPlace) {
  for (const int n : {3, 5, 9}) {
    SCOPED_TRACE("chain of " + std::to_string(n));
    Problem p;
    p.num_steps = n;
    for (int k = 0; k < n; ++k) {
      p.buffers.push_back(buffer("t" + std::to_string(k), 8000, k, std::min(k + 1, n - 1)));
    }
    for (int k = 1; k < n; ++k) {
      const size_t out = static_cast<size_t>(k), in = out - 1;
      if (k % 2 == 1) {
        p.buffers.push_back(buffer("plane" + std::to_string(k), 128, k, k, BufferKind::kScratch));
        p.overlaps.push_back({out, in, 0, std::nullopt, /*exact=*/true});
      } else {
        p.overlaps.push_back({out, in, 127, 256});
      }
    }
    const Plan plan = planner::plan(p, Algorithm::kAuto);
    EXPECT_EQ(verify(p, plan), std::nullopt);
    EXPECT_LE(plan.arena_bytes, 8000u + 256u);
    for (int k = 1; k < n; k += 2) EXPECT_EQ(plan.offsets[k], plan.offsets[k - 1]);
  }
}

}  // namespace
}  // namespace mote::planner
