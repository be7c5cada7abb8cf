// The verifier on hand-made plans.
#include "compiler/planner/verify.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/planner/random_problems.h"

namespace mote::planner {
namespace {

using ::testing::HasSubstr;

// Activations of the given alignment.
Buffer aligned(std::string name, uint64_t size, int32_t first, int32_t last,
               uint32_t alignment = 16) {
  return buffer(std::move(name), size, first, last, BufferKind::kActivation, alignment);
}

Plan plan_of(std::vector<uint64_t> offsets, uint64_t arena) {
  Plan plan;
  plan.offsets = std::move(offsets);
  plan.arena_bytes = arena;
  return plan;
}

// a and b live together at step 1; c lives alone at step 3.
Problem three() {
  Problem p;
  p.num_steps = 4;
  p.buffers = {buffer("a", 64, 0, 1), buffer("b", 32, 1, 2), buffer("c", 100, 3, 3)};
  return p;
}

TEST(VerifyTest, AcceptsAValidPlan) {
  // c reuses a's bytes: their lifetimes do not overlap. b touches a without sharing a byte.
  EXPECT_EQ(verify(three(), plan_of({0, 64, 0}, 112)), std::nullopt);
}

TEST(VerifyTest, RejectsOverlapWithBothNamesTheBytesAndTheStep) {
  const auto error = verify(three(), plan_of({0, 48, 0}, 112));
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("0 'a' [0, 64)"));
  EXPECT_THAT(*error, HasSubstr("1 'b' [48, 80)"));
  EXPECT_THAT(*error, HasSubstr("share bytes [48, 64) at step 1"));
}

TEST(VerifyTest, RejectsAMisalignedOffset) {
  const auto error = verify(three(), plan_of({0, 72, 0}, 112));
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("'b' at offset 72 is not aligned to 16"));
}

TEST(VerifyTest, RejectsABufferOutsideTheArena) {
  const auto error = verify(three(), plan_of({0, 64, 16}, 112));
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("'c' [16, 116) ends outside the arena of 112 bytes"));
}

TEST(VerifyTest, RejectsAnArenaThatIsNotAMultipleOfTheAlignment) {
  const auto error = verify(three(), plan_of({0, 64, 0}, 100));
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("arena size 100 is not a multiple of the alignment 16"));
}

TEST(VerifyTest, RejectsAMovedFixedBuffer) {
  Problem p = three();
  p.buffers[2].fixed_offset = 16;
  EXPECT_EQ(verify(p, plan_of({0, 64, 16}, 128)), std::nullopt);
  const auto error = verify(p, plan_of({0, 64, 0}, 128));
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("'c' is at offset 0 instead of its fixed offset 16"));
}

TEST(VerifyTest, RejectsTheWrongNumberOfOffsets) {
  const auto error = verify(three(), plan_of({0, 64}, 112));
  ASSERT_TRUE(error.has_value());
  EXPECT_THAT(*error, HasSubstr("2 offsets for 3 buffers"));
}

TEST(VerifyTest, ChecksRawBytesNotAlignedSizes) {
  // a's 40 bytes end at 40; b may start at 48 even though a planner would reserve [0, 48).
  Problem p;
  p.num_steps = 1;
  p.buffers = {aligned("a", 40, 0, 0, 8), aligned("b", 8, 0, 0, 8)};
  EXPECT_EQ(verify(p, plan_of({0, 40}, 48)), std::nullopt);
  EXPECT_NE(verify(p, plan_of({0, 32}, 48)), std::nullopt);
}

TEST(VerifyTest, EmptyBuffersShareNothing) {
  Problem p;
  p.num_steps = 1;
  p.buffers = {buffer("a", 64, 0, 0), buffer("empty", 0, 0, 0)};
  EXPECT_EQ(verify(p, plan_of({0, 32}, 64)), std::nullopt);
  EXPECT_EQ(verify(p, plan_of({0, 64}, 64)), std::nullopt);
  EXPECT_NE(verify(p, plan_of({0, 80}, 64)), std::nullopt);  // still inside the arena
}

}  // namespace
}  // namespace mote::planner
