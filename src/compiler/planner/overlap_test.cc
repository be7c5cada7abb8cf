// Outputs that may overlap a dying input (Problem::overlaps): the verifier accepts exactly the
// declared ones, the lower bound and the greedy planners use them, and the exact search keeps
// a valid plan without claiming a proof it does not have.
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
  for (Algorithm a : {Algorithm::kFirstFit, Algorithm::kBestFit, Algorithm::kAuto}) {
    const Plan plan = planner::plan(p, a);
    EXPECT_EQ(plan.arena_bytes, 1088u) << to_string(a);
    EXPECT_EQ(verify(p, plan), std::nullopt);
  }
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

TEST(OverlapTest, ExactKeepsTheOverlappingSeedAndClaimsNoProofBeyondTheBound) {
  const Problem p = chain(true);
  const Plan exact = planner::plan(p, Algorithm::kExact);
  EXPECT_EQ(verify(p, exact), std::nullopt);
  EXPECT_LE(exact.arena_bytes, 2048u);
}

TEST(OverlapTest, ValidateRefusesAPairThatDoesNotMeetAtOneStep) {
  Problem p = chain(true);
  p.overlaps.push_back({2, 0, 0});  // a dies at step 1, c is born at step 2
  EXPECT_THROW(validate(p), InputError);
}

}  // namespace
}  // namespace mote::planner
