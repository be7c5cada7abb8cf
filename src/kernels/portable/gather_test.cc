#include "mote/kernels/gather.h"

#include <gtest/gtest.h>

#include <vector>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

TEST(GatherTest, HandCheckedRows) {
  // params [3, 2], indices [2, 0, 2]: rows 2, 0, 2.
  const std::vector<int8_t> in = {1, 2, 3, 4, 5, 6};
  const std::vector<int32_t> idx = {2, 0, 2};
  Guarded<int8_t> out(6);
  gather(GatherParams{1, 1, 3, 2, 3, 0}, in.data(), idx.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{5, 6, 1, 2, 5, 6}));
  EXPECT_TRUE(out.intact());
}

TEST(GatherTest, OutOfRangeIndexWritesFill) {
  const std::vector<int8_t> in = {1, 2, 3, 4};
  const std::vector<int32_t> idx = {1, -1, 2};
  Guarded<int8_t> out(6);
  gather(GatherParams{1, 1, 2, 2, 3, -7}, in.data(), idx.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{3, 4, -7, -7, -7, -7}));
  EXPECT_TRUE(out.intact());
}

// TFLite's definition with batch dimensions, element by element.
TEST(GatherTest, RandomizedAgainstDefinition) {
  Random rng(77);
  for (int trial = 0; trial < 200; ++trial) {
    GatherParams p{rng.Int(1, 3), rng.Int(1, 3), rng.Int(1, 5), rng.Int(1, 4), rng.Int(1, 6), 0};
    const std::vector<int8_t> in =
        rng.Int8s(static_cast<size_t>(p.batch_size * p.outer_size * p.axis_size * p.inner_size));
    std::vector<int32_t> idx(static_cast<size_t>(p.batch_size * p.coord_size));
    for (auto& k : idx) k = rng.Int(0, p.axis_size - 1);
    std::vector<int8_t> expected;
    for (int b = 0; b < p.batch_size; ++b) {
      for (int o = 0; o < p.outer_size; ++o) {
        for (int c = 0; c < p.coord_size; ++c) {
          for (int i = 0; i < p.inner_size; ++i) {
            const int k = idx[b * p.coord_size + c];
            expected.push_back(
                in[((b * p.outer_size + o) * p.axis_size + k) * p.inner_size + i]);
          }
        }
      }
    }
    Guarded<int8_t> out(expected.size());
    gather(p, in.data(), idx.data(), out.data());
    ASSERT_EQ(out.values(), expected) << "trial " << trial;
    ASSERT_TRUE(out.intact());
  }
}

}  // namespace
}  // namespace mote::kernels
