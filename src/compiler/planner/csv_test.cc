// Reading and writing problems as CSV.
#include "compiler/planner/csv.h"

#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ir/error.h"
#include "compiler/planner/random_problems.h"
#include "compiler/planner/verify.h"

namespace mote::planner {
namespace {

using ::testing::HasSubstr;

Problem read(const std::string& text, uint32_t alignment = kDefaultAlignment) {
  std::istringstream in(text);
  return read_csv(in, "p.csv", alignment);
}

std::string read_error(const std::string& text) {
  try {
    read(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CsvTest, ReadsHalfOpenLifetimesAndOptionalColumns) {
  const Problem p = read(
      "# a comment\n"
      "id,lower,upper,size\n"
      "\n"
      "a,0,3,100\n"
      "b,3,4,64\r\n");
  ASSERT_EQ(p.buffers.size(), 2u);
  EXPECT_EQ(p.num_steps, 4);
  EXPECT_EQ(p.buffers[0].name, "a");
  EXPECT_EQ(p.buffers[0].first_step, 0);
  EXPECT_EQ(p.buffers[0].last_step, 2);
  EXPECT_EQ(p.buffers[0].size, 100u);
  EXPECT_EQ(p.buffers[0].alignment, 16u);
  EXPECT_EQ(p.buffers[0].kind, BufferKind::kActivation);
  EXPECT_FALSE(p.buffers[0].fixed_offset);
  EXPECT_EQ(p.buffers[1].first_step, 3);
  EXPECT_EQ(p.buffers[1].last_step, 3);
  EXPECT_EQ(read("id,lower,upper,size\na,0,1,5\n", 4).buffers[0].alignment, 4u);
}

TEST(CsvTest, ColumnsByNameInAnyOrder) {
  const Problem p = read(
      "size, Kind ,offset,ID,alignment,end,start\n"
      "48,scratch,,s,8,2,2\n"
      "16,input,64,\"in, the first\",64,0,0\n");
  ASSERT_EQ(p.buffers.size(), 2u);
  EXPECT_EQ(p.buffers[0].name, "s");
  EXPECT_EQ(p.buffers[0].kind, BufferKind::kScratch);
  EXPECT_EQ(p.buffers[0].alignment, 8u);
  EXPECT_EQ(p.buffers[0].first_step, 2);
  EXPECT_EQ(p.buffers[0].last_step, 2);  // end is inclusive
  EXPECT_FALSE(p.buffers[0].fixed_offset);
  EXPECT_EQ(p.buffers[1].name, "in, the first");
  EXPECT_EQ(p.buffers[1].fixed_offset, 64u);
  EXPECT_EQ(p.num_steps, 3);
}

TEST(CsvTest, BadInputNamesTheLineAndTheReason) {
  const std::string header = "id,lower,upper,size\n";
  EXPECT_EQ(read_error(""), "p.csv: no header line (id,lower,upper,size)");
  EXPECT_EQ(read_error("id,lower,size\n"), "p.csv:1: header has no upper column");
  EXPECT_THAT(read_error("id,lower,upper,size,colour\n"), HasSubstr("p.csv:1: unknown column 'colour'"));
  EXPECT_EQ(read_error("id,lower,upper,size,lower\n"), "p.csv:1: column 'lower' appears twice");
  EXPECT_EQ(read_error(header + "a,0,1,16\nb,0,x,16\n"), "p.csv:3: upper 'x' is not a non-negative integer");
  EXPECT_EQ(read_error(header + "a,0,1,-16\n"), "p.csv:2: size '-16' is not a non-negative integer");
  EXPECT_EQ(read_error(header + "a,0,1\n"), "p.csv:2: expected 4 fields, found 3");
  EXPECT_EQ(read_error(header + "a,2,2,16\n"), "p.csv:2: empty lifetime: upper 2 is not after lower 2");
  EXPECT_EQ(read_error(header + "a,0,1,16\n# c\na,1,2,16\n"), "p.csv:4: id 'a' is already used on line 2");
  EXPECT_EQ(read_error("id,lower,upper,size,alignment\na,0,1,16,3\n"), "p.csv:2: alignment 3 is not a power of two");
  EXPECT_EQ(read_error("id,lower,upper,size,offset\na,0,1,16,8\n"),
            "p.csv:2: offset 8 is not a multiple of the alignment 16");
  EXPECT_EQ(read_error("id,lower,upper,size,kind\na,0,1,16,weights\n"),
            "p.csv:2: kind 'weights' is not input, output, activation or scratch");
  EXPECT_EQ(read_error(header + "\"a,0,1,16\n"), "p.csv:2: unterminated quoted field");
  EXPECT_THAT(read_error("id,lower,upper,size,offset\na,0,2,32,0\nb,1,3,32,16\n"),
              HasSubstr("p.csv: buffer 0 'a' and buffer 1 'b': fixed offsets overlap"));
}

TEST(CsvTest, RefusesStepsThePlannerCannotHold) {
  // Found by fuzz_planner: one line living to step 2^30 made the lower bound allocate 8 GiB per
  // step array. kMaxSteps steps are fine.
  const std::string header = "id,lower,upper,size\n";
  EXPECT_EQ(read_error(header + "a,0,1073741824,16\n"),
            "p.csv:2: step out of range (at most 1048576 steps)");
  EXPECT_EQ(read_error(header + "a,1048576,1048577,16\n"),
            "p.csv:2: step out of range (at most 1048576 steps)");
  EXPECT_EQ(read(header + "a,0,1048576,16\n").num_steps, kMaxSteps);
}

TEST(CsvTest, RoundTripsProblemsAndPlans) {
  Problem p = random_small_problem(10, 5, /*allow_fixed=*/true, 8);
  p.buffers[0].name = "needs \"quotes\", really";
  p.buffers[1].kind = BufferKind::kOutput;
  std::ostringstream out;
  write_csv(out, p);
  EXPECT_EQ(read(out.str(), 1), p);

  // With a plan, every buffer comes back fixed where the plan put it.
  const Plan plan = mote::planner::plan(p, Algorithm::kBestFit);
  std::ostringstream planned;
  write_csv(planned, p, &plan);
  const Problem fixed = read(planned.str());
  ASSERT_EQ(fixed.buffers.size(), p.buffers.size());
  for (size_t i = 0; i < p.buffers.size(); ++i) EXPECT_EQ(fixed.buffers[i].fixed_offset, plan.offsets[i]);
  Plan again = mote::planner::plan(fixed, Algorithm::kAuto);
  EXPECT_EQ(again.offsets, plan.offsets);
  EXPECT_EQ(verify(p, again), std::nullopt);
}

TEST(CsvTest, MangledFilesAreRejectedCleanly) {
  // Random edits of a valid file: each either reads as a valid problem or throws InputError.
  Problem p = random_small_problem(8, 11, /*allow_fixed=*/true);
  std::ostringstream out;
  write_csv(out, p);
  const std::string good = out.str();
  uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  const std::string alphabet = "0123456789,\"\n#-x ";
  int rejected = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text = good;
    for (int edits = 1 + next() % 4; edits > 0; --edits) {
      const size_t at = next() % text.size();
      switch (next() % 3) {
        case 0: text[at] = alphabet[next() % alphabet.size()]; break;
        case 1: text.erase(at, 1 + next() % 3); break;
        default: text.insert(at, 1, alphabet[next() % alphabet.size()]);
      }
      if (text.empty()) text.push_back('x');
    }
    try {
      const Problem q = read(text);
      validate(q);  // whatever was accepted is a valid problem
    } catch (const InputError&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 100);
}

TEST(CsvTest, WritesTheCommonForm) {
  Problem p;
  p.num_steps = 3;
  Buffer b;
  b.name = "x";
  b.size = 40;
  b.first_step = 1;
  b.last_step = 2;
  p.buffers.push_back(b);
  std::ostringstream out;
  write_csv(out, p);
  EXPECT_EQ(out.str(), "id,lower,upper,size,alignment\nx,1,3,40,16\n");
}

}  // namespace
}  // namespace mote::planner
