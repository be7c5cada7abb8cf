// The dsp 16x8 and int4 kernels (on the emulated instructions here) against the portable ones, bit
// for bit, on the randomized shapes of testing/wide_check.h (which the firmware's wide_kernels
// test runs on the M4 and M55 too).
#include <gtest/gtest.h>

#include "testing/wide_check.h"

namespace mote::kernels {
namespace {

TEST(DspWideKernels, MatchPortable) {
  testing::wide_check::Report report;
  EXPECT_TRUE(testing::wide_check::check_all(report, "dsp", 400))
      << report.failed << ", case " << report.failed_case << ", output " << report.failed_index;
  EXPECT_GT(report.cases, 0);
}

}  // namespace
}  // namespace mote::kernels
