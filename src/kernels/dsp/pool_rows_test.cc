// dsp::global_average_pool_accumulate (on the emulated instructions here) against portable's, sum
// for sum, over random row ranges through rings and whole maps, rows wider than its 256 pixels at
// a time included; and global_average_pool_accumulate of the dsp library runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dsp/kernels.h"
#include "mote/kernels/pooling.h"
#include "portable/rows_test_util.h"

namespace mote::kernels {
namespace {

using testing::Rng;

using Accumulate = void (*)(const PoolParams&, const int8_t*, RowRing, int32_t, int32_t,
                            int32_t*);

void AccumulateRandom(uint32_t seed, int cases, Accumulate accumulate) {
  Rng rng(seed);
  for (int i = 0; i < cases; ++i) {
    const int32_t h = rng.Uniform(1, 12);
    const int32_t w = rng.Chance(15) ? rng.Uniform(250, 600) : rng.Uniform(1, 12);
    const int32_t c = rng.Chance(50) ? rng.Uniform(1, 9) : rng.Uniform(16, 70);
    const PoolParams p = prepare_pool(1, h, w, c, h, w, 1, 1, false, -128, 127);
    ASSERT_TRUE(global_average_pool_streams(p));
    // All one extreme at times, so that the int16 lanes meet their limits.
    std::vector<int8_t> input = rng.Int8s(static_cast<size_t>(h) * w * c);
    const int extreme = rng.Uniform(0, 3);
    if (extreme == 1) std::fill(input.begin(), input.end(), int8_t{-128});
    if (extreme == 2) std::fill(input.begin(), input.end(), int8_t{127});
    // Ranges of one to three rows, through a ring of the largest or the whole map.
    std::vector<std::pair<int32_t, int32_t>> ranges;
    int32_t ring = 0;
    for (int32_t y = 0; y < h;) {
      const int32_t e = std::min(h, y + rng.Uniform(1, 3));
      ranges.emplace_back(y, e);
      ring = std::max(ring, e - y);
      y = e;
    }
    if (rng.Chance(30)) ring = 0;
    const size_t row_bytes = static_cast<size_t>(w) * c;
    std::vector<int8_t> in(static_cast<size_t>(ring > 0 ? ring : h) * row_bytes);
    std::vector<int32_t> want(c, 0x12345678), got(c, 0x12345678);  // never cleared by the caller
    for (const auto& [b, e] : ranges) {
      for (int32_t r = b; r < e; ++r) {
        std::copy_n(input.begin() + r * row_bytes, row_bytes,
                    in.begin() + (ring > 0 ? r % ring : r) * row_bytes);
      }
      portable_global_average_pool_accumulate(p, in.data(), RowRing{ring}, b, e, want.data());
      accumulate(p, in.data(), RowRing{ring}, b, e, got.data());
      ASSERT_EQ(got, want) << "case " << i << " " << h << "x" << w << "x" << c << " rows " << b
                           << ".." << e;
    }
  }
}

TEST(DspGlobalAveragePoolRows, SumsEqualPortable) {
  AccumulateRandom(2711, 200, &dsp::global_average_pool_accumulate);
}

TEST(DspGlobalAveragePoolRows, TheDspLibraryRunsThem) {
  AccumulateRandom(2712, 40, &global_average_pool_accumulate);
}

TEST(DspGlobalAveragePoolRows, RefusesWhatPortableRefuses) {
  std::vector<int32_t> sums(4, 7);
  const std::vector<int8_t> input(64, 1);
  const PoolParams p = prepare_pool(1, 4, 2, 2, 4, 2, 1, 1, false, -128, 127);
  dsp::global_average_pool_accumulate(p, input.data(), RowRing{2}, 0, 3, sums.data());
  dsp::global_average_pool_accumulate(p, input.data(), RowRing{0}, 2, 5, sums.data());
  const PoolParams not_global = prepare_pool(1, 4, 4, 4, 3, 3, 1, 1, false, -128, 127);
  dsp::global_average_pool_accumulate(not_global, input.data(), RowRing{0}, 0, 4, sums.data());
  EXPECT_EQ(sums, std::vector<int32_t>(4, 7));
}

}  // namespace
}  // namespace mote::kernels
