#include "mote/kernels/pad.h"

#include <gtest/gtest.h>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

// Every output element checks whether it falls inside the input.
std::vector<int8_t> SlowPad(const PadParams& p, const std::vector<int8_t>& in) {
  std::vector<int32_t> out_dims(p.rank);
  size_t total = 1;
  for (int d = 0; d < p.rank; ++d) {
    out_dims[d] = p.before[d] + p.input_dims[d] + p.after[d];
    total *= out_dims[d];
  }
  std::vector<int8_t> out;
  for (size_t flat = 0; flat < total; ++flat) {
    size_t rest = flat;
    std::vector<int32_t> idx(p.rank);
    for (int d = p.rank - 1; d >= 0; --d) {
      idx[d] = static_cast<int32_t>(rest % out_dims[d]);
      rest /= out_dims[d];
    }
    bool inside = true;
    size_t in_flat = 0;
    for (int d = 0; d < p.rank; ++d) {
      const int32_t i = idx[d] - p.before[d];
      inside = inside && i >= 0 && i < p.input_dims[d];
      in_flat = in_flat * p.input_dims[d] + (inside ? i : 0);
    }
    out.push_back(inside ? in[in_flat] : p.pad_value);
  }
  return out;
}

TEST(PadTest, HandCheckedNhwc) {
  // 1x1x2x1 {1, 2}: one column before, two after, one row after; pad value -1.
  const int32_t dims[4] = {1, 1, 2, 1}, before[4] = {0, 0, 1, 0}, after[4] = {0, 1, 2, 0};
  const PadParams p = prepare_pad(4, dims, before, after, -1);
  const std::vector<int8_t> in = {1, 2};
  Guarded<int8_t> out(10);
  pad(p, in.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-1, 1, 2, -1, -1,  //
                                               -1, -1, -1, -1, -1}));
  EXPECT_TRUE(out.intact());
}

TEST(PadTest, RandomizedMatchesSlowReference) {
  Random rng(5);
  for (int iter = 0; iter < 300; ++iter) {
    const int32_t rank = rng.Int(1, kMaxPadRank);
    int32_t dims[kMaxPadRank], before[kMaxPadRank], after[kMaxPadRank];
    for (int d = 0; d < rank; ++d) {
      dims[d] = rng.Int(0, 4) == 0 ? 1 : rng.Int(1, 4);
      before[d] = rng.Int(0, 2);
      after[d] = rng.Int(0, 2);
    }
    const PadParams p = prepare_pad(rank, dims, before, after, static_cast<int8_t>(rng.Int(-128, 127)));
    size_t in_size = 1;
    for (int d = 0; d < rank; ++d) in_size *= dims[d];
    const std::vector<int8_t> in = rng.Int8s(in_size);
    const std::vector<int8_t> expected = SlowPad(p, in);
    Guarded<int8_t> out(expected.size());
    pad(p, in.data(), out.data());
    ASSERT_EQ(out.values(), expected) << "iter " << iter;
    ASSERT_TRUE(out.intact());
  }
}

}  // namespace
}  // namespace mote::kernels
