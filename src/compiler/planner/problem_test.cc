// The problem model: validation, aligned sizes and the lower bound.
#include "compiler/planner/problem.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/error.h"
#include "compiler/planner/lower_bound.h"
#include "compiler/planner/random_problems.h"
#include "compiler/planner/verify.h"

namespace mote::planner {
namespace {

using ::testing::HasSubstr;

std::string validation_error(const Problem& p) {
  try {
    validate(p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ProblemTest, ValidateNamesTheBufferAndTheReason) {
  Problem p;
  p.num_steps = 3;
  p.buffers = {buffer("ok", 16, 0, 2), buffer("late", 16, 1, 3)};
  EXPECT_THAT(validation_error(p), HasSubstr("buffer 1 'late': lifetime [1, 3] is not inside steps [0, 2]"));
  p.buffers[1] = buffer("backwards", 16, 2, 1);
  EXPECT_THAT(validation_error(p), HasSubstr("'backwards': lifetime [2, 1]"));
  p.buffers[1] = buffer("odd", 16, 0, 0);
  p.buffers[1].alignment = 12;
  EXPECT_THAT(validation_error(p), HasSubstr("'odd': alignment 12 is not a power of two"));
  p.buffers[1].alignment = 16;
  p.buffers[1].fixed_offset = 8;
  EXPECT_THAT(validation_error(p), HasSubstr("'odd': fixed offset 8 is not a multiple of its alignment 16"));
  p.buffers[1].fixed_offset = 0;
  EXPECT_EQ(validation_error(p), "");
  p.buffers[0].fixed_offset = 0;
  EXPECT_THAT(validation_error(p), HasSubstr("'ok' and buffer 1 'odd': fixed offsets overlap"));
  p.buffers[1].fixed_offset = 16;
  EXPECT_EQ(validation_error(p), "");
}

TEST(ProblemTest, ValidateRejectsSizesWhoseTotalOverflows) {
  // Found by fuzz_planner: buffers of up to 2^62 bytes each pass the per-buffer limit, but
  // their live total overflowed the lower bound's int64 sums (and the naive plan's offsets).
  Problem p;
  p.num_steps = 1;
  const uint64_t big = uint64_t{1} << 62;
  p.buffers = {buffer("a", big / 2, 0, 0), buffer("b", big / 2, 0, 0)};
  EXPECT_EQ(validation_error(p), "");
  p.buffers.push_back(buffer("c", big / 2, 0, 0));
  EXPECT_THAT(validation_error(p), HasSubstr("buffer 2 'c': the buffers' sizes total more than 2^62 bytes"));
  // Lifetimes do not matter: every algorithm may stack every buffer (naive does).
  p.num_steps = 3;
  p.buffers[2] = buffer("c", big / 2, 2, 2);
  EXPECT_THAT(validation_error(p), HasSubstr("'c': the buffers' sizes total more than"));
  // A fixed buffer's end counts too.
  p.buffers = {buffer("a", 16, 0, 0)};
  p.buffers[0].fixed_offset = big;
  EXPECT_THAT(validation_error(p), HasSubstr("'a': the buffers' sizes total more than"));
}

TEST(ProblemTest, ValidateRejectsMoreThanMaxSteps) {
  Problem p;
  p.num_steps = kMaxSteps;
  EXPECT_EQ(validation_error(p), "");
  p.num_steps = kMaxSteps + 1;
  EXPECT_EQ(validation_error(p), "problem has 1048577 steps, more than 1048576");
}

TEST(ProblemTest, AlignedSizesAndArenaAlignment) {
  Buffer b = buffer("b", 17, 0, 0);
  EXPECT_EQ(aligned_size(b), 32u);
  b.alignment = 1;
  EXPECT_EQ(aligned_size(b), 17u);
  Problem p;
  EXPECT_EQ(arena_alignment(p), 1u);
  p.buffers = {b, buffer("c", 1, 0, 0)};
  p.buffers[1].alignment = 64;
  EXPECT_EQ(arena_alignment(p), 64u);
  EXPECT_EQ(align_up(65, 64), 128u);
  EXPECT_EQ(align_up(0, 64), 0u);
}

TEST(LowerBoundTest, LargestAlignedLiveTotalAndWhoIsLive) {
  Problem p;
  p.num_steps = 4;
  p.buffers = {buffer("in", 100, 0, 1), buffer("mid", 50, 1, 2), buffer("scratch", 30, 2, 2),
               buffer("out", 40, 3, 3)};
  // Aligned: 112, 64, 32, 48. Step 1: 176; step 2: 96.
  const LowerBound bound = lower_bound(p);
  EXPECT_EQ(bound.live_bytes, 176u);
  EXPECT_EQ(bound.bytes, 176u);
  EXPECT_EQ(bound.step, 1);
  EXPECT_EQ(bound.live, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(live_bytes_per_step(p), (std::vector<uint64_t>{112, 176, 96, 48}));
}

TEST(LowerBoundTest, CountsFixedBuffersAndRoundsToTheArenaAlignment) {
  Problem p;
  p.num_steps = 2;
  p.buffers = {buffer("a", 16, 0, 0), buffer("pinned", 16, 1, 1)};
  p.buffers[1].fixed_offset = 512;
  EXPECT_EQ(lower_bound(p).bytes, 528u);
  p.buffers[1].fixed_offset.reset();
  p.buffers[1].alignment = 64;
  EXPECT_EQ(lower_bound(p).bytes, 64u);
}

TEST(LowerBoundTest, NeverAbovePlansThatUseAlignmentPadding) {
  // Found by fuzz_planner: a naive plan came out below the bound. A buffer with a large
  // alignment leaves padding that a buffer with a smaller one may use, so sizes are rounded to
  // the smallest alignment live at a step, not each to its own.
  Problem p;
  p.num_steps = 2;
  p.buffers = {buffer("wide", 18, 0, 1), buffer("small", 4, 0, 0), buffer("later", 40, 1, 1)};
  p.buffers[0].alignment = 4096;
  p.buffers[1].alignment = 4;
  p.buffers[2].alignment = 8;
  // Step 0: 20 + 4 (blocks of 4); step 1: 24 + 40 (blocks of 8).
  EXPECT_EQ(live_bytes_per_step(p), (std::vector<uint64_t>{24, 64}));
  EXPECT_EQ(lower_bound(p).bytes, 4096u);
  Plan plan;
  plan.offsets = {0, 20, 24};
  plan.arena_bytes = 4096;
  EXPECT_EQ(verify(p, plan), std::nullopt);
  EXPECT_LE(lower_bound(p).bytes, plan.arena_bytes);
  // Zero-size buffers occupy nothing and do not lower the rounding.
  p.buffers.push_back(buffer("empty", 0, 0, 1));
  p.buffers.back().alignment = 1;
  EXPECT_EQ(live_bytes_per_step(p), (std::vector<uint64_t>{24, 64}));
}

TEST(LowerBoundTest, EmptyProblem) {
  const LowerBound bound = lower_bound(Problem{});
  EXPECT_EQ(bound.bytes, 0u);
  EXPECT_TRUE(bound.live.empty());
}

}  // namespace
}  // namespace mote::planner
