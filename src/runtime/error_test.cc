#include "mote/runtime/error.h"

#include <gtest/gtest.h>

#include <cstring>

namespace mote::runtime {
namespace {

static_assert(sizeof(Error) == 1);
static_assert(static_cast<int>(Error::kInvalidProgram) == 0x10);
static_assert(static_cast<int>(Error::kArenaTooSmall) == 0x20);
static_assert(static_cast<int>(Error::kUnsupported) == 0x31);

Result<int> half(int v) {
  if (v % 2 != 0) return Error::kInvalidArgument;
  return v / 2;
}

Error quarter(int v, int* out) {
  int h = 0;
  MOTE_TRY_ASSIGN(h, half(v));
  MOTE_TRY_ASSIGN(*out, half(h));
  return Error::kOk;
}

// MOTE_TRY_ASSIGN as the body of an unbraced if and else (three statements before, which did not
// compile here).
Error half_if(bool wanted, int v, int* out) {
  if (wanted)
    MOTE_TRY_ASSIGN(*out, half(v));
  else
    MOTE_TRY_ASSIGN(*out, half(v + 1));
  return Error::kOk;
}

Error check_even(int v) {
  MOTE_TRY(half(v).error());
  return Error::kOk;
}

TEST(ErrorTest, ToStringNamesEveryCode) {
  for (int v = 0; v < 256; ++v) {
    const char* s = to_string(static_cast<Error>(v));
    ASSERT_NE(s, nullptr);
    EXPECT_GT(std::strlen(s), 0u);
  }
  EXPECT_STREQ(to_string(Error::kOk), "ok");
  EXPECT_STREQ(to_string(Error::kInvalidPlan), "invalid memory plan");
}

TEST(ResultTest, HoldsValueOrError) {
  const Result<int> ok = half(8);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.error(), Error::kOk);
  EXPECT_EQ(*ok, 4);
  const Result<int> bad = half(3);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), Error::kInvalidArgument);
}

TEST(ResultTest, OkIsNeverAnError) {
  const Result<int> r(Error::kOk);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kInternal);
}

TEST(ResultTest, TryMacrosPropagate) {
  int out = 0;
  EXPECT_EQ(quarter(12, &out), Error::kOk);
  EXPECT_EQ(out, 3);
  EXPECT_EQ(quarter(6, &out), Error::kInvalidArgument);
  EXPECT_EQ(check_even(4), Error::kOk);
  EXPECT_EQ(check_even(5), Error::kInvalidArgument);
}

TEST(ResultTest, TryAssignIsOneStatement) {
  int out = 0;
  EXPECT_EQ(half_if(true, 8, &out), Error::kOk);
  EXPECT_EQ(out, 4);
  EXPECT_EQ(half_if(false, 9, &out), Error::kOk);
  EXPECT_EQ(out, 5);
  out = 7;
  EXPECT_EQ(half_if(true, 9, &out), Error::kInvalidArgument);
  EXPECT_EQ(half_if(false, 8, &out), Error::kInvalidArgument);
  EXPECT_EQ(out, 7);
}

TEST(ResultDeathTest, ValueOfErrorTraps) {
  EXPECT_DEATH({ [[maybe_unused]] int v = half(3).value(); }, "");
}

}  // namespace
}  // namespace mote::runtime
