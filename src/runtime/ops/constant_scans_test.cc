// The loader's scans of per-channel constants against a plain loop over every length up to 40
// (the vectorised loops' tails included), with INT32_MIN and INT32_MAX among the values.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

std::vector<uint8_t> bytes_of(const std::vector<int32_t>& v) {
  std::vector<uint8_t> out(4 * v.size() + 16);
  if (!v.empty()) std::memcpy(out.data(), v.data(), 4 * v.size());
  return out;
}

TEST(ConstantScans, AgreeWithAPlainLoop) {
  uint32_t seed = 12345;
  const auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<int32_t>(seed);
  };
  for (int32_t count = 0; count <= 40; ++count) {
    for (int trial = 0; trial < 8; ++trial) {
      std::vector<int32_t> a(count), b(count);
      for (int32_t k = 0; k < count; ++k) {
        a[k] = trial == 0 ? next() % 1000 : next();
        b[k] = next() % 64 - 31;
      }
      if (count > 0 && trial == 1) a[count - 1] = INT32_MIN;
      if (count > 0 && trial == 2) a[count / 2] = INT32_MAX;
      int64_t most = 0;
      int32_t min_a = INT32_MAX, min_b = INT32_MAX, max_b = INT32_MIN;
      for (int32_t k = 0; k < count; ++k) {
        most = std::max<int64_t>(most, a[k] < 0 ? -int64_t{a[k]} : a[k]);
        min_a = std::min(min_a, a[k]);
        min_b = std::min(min_b, b[k]);
        max_b = std::max(max_b, b[k]);
      }
      const std::vector<uint8_t> pa = bytes_of(a), pb = bytes_of(b);
      ASSERT_EQ(max_abs_i32(pa.data(), count), most) << "count " << count << " trial " << trial;
      const ChannelExtremes e = channel_extremes(pa.data(), pb.data(), count);
      ASSERT_EQ(e.min_a, min_a) << "count " << count;
      ASSERT_EQ(e.min_b, min_b) << "count " << count;
      ASSERT_EQ(e.max_b, max_b) << "count " << count;
    }
  }
  const std::vector<uint8_t> lowest = bytes_of({5, INT32_MIN, -3});
  EXPECT_EQ(max_abs_i32(lowest.data(), 3), int64_t{1} << 31);
}

}  // namespace
}  // namespace mote::runtime::internal
