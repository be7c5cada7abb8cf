#include "mote/kernels/reshape.h"

#include <gtest/gtest.h>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

TEST(ReshapeTest, CopiesWhenNotAliasedAndLeavesAliasedBytesAlone) {
  const std::vector<int8_t> in = {1, 2, 3, 4, 5};
  ops_testing::Guarded<int8_t> out(5);
  reshape(in.data(), out.data(), 5);
  EXPECT_EQ(out.values(), in);
  EXPECT_TRUE(out.intact());
  std::vector<int8_t> same = in;
  reshape(same.data(), same.data(), 5);
  EXPECT_EQ(same, in);
}

}  // namespace
}  // namespace mote::kernels
