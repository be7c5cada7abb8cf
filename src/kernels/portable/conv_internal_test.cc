// The shared inner loops of the convolution family: the fast requantization must equal TFLite's
// MultiplyByQuantizedMultiplier for every input, and the dot products their plain definitions.

#include "conv_internal.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace mote::kernels::internal {
namespace {

TEST(RequantizeFast, EqualsMultiplyByQuantizedMultiplierOnEdges) {
  const int32_t accs[] = {0, 1, -1, 2, -2, 3, -3, 127, -128, 1 << 20, -(1 << 20), INT32_MAX,
                          INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 1 << 30, -(1 << 30)};
  const int32_t mults[] = {0, 1, 1 << 30, (1 << 30) + 1, INT32_MAX, INT32_MIN, -1, -(1 << 30), 1518500250};
  for (int32_t shift = -31; shift <= 31; ++shift)
    for (int32_t acc : accs)
      for (int32_t mult : mults)
        ASSERT_EQ(requantize_fast(acc, mult, shift), multiply_by_quantized_multiplier(acc, mult, shift))
            << "acc " << acc << " mult " << mult << " shift " << shift;
}

TEST(RequantizeFast, EqualsMultiplyByQuantizedMultiplierRandom) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int32_t> small(-100000, 100000);
  std::uniform_int_distribution<int32_t> shifts(-31, 31);
  for (int i = 0; i < 200000; ++i) {
    const int32_t acc = (i & 1) ? any(rng) : small(rng);
    const int32_t mult = (i & 2) ? any(rng) : std::uniform_int_distribution<int32_t>(1 << 30, INT32_MAX)(rng);
    const int32_t shift = shifts(rng);
    ASSERT_EQ(requantize_fast(acc, mult, shift), multiply_by_quantized_multiplier(acc, mult, shift))
        << "acc " << acc << " mult " << mult << " shift " << shift;
  }
}

TEST(Requantizer, AddsOffsetAndClampsToInt8) {
  const int32_t mult[] = {1 << 30};
  const int32_t shift[] = {1};  // x1
  const Requantizer rq = make_requantizer(mult, shift, 5, -300, 300);  // clamp range widened
  EXPECT_EQ(rq(10, 0), 15);
  EXPECT_EQ(rq(1000, 0), 127);
  EXPECT_EQ(rq(-1000, 0), -128);
  const Requantizer relu = make_requantizer(mult, shift, 0, 0, 100);
  EXPECT_EQ(relu(-7, 0), 0);
  EXPECT_EQ(relu(101, 0), 100);
}

TEST(Dot, MatchesDefinitionForEveryLengthUpTo70) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<int8_t> x0(70), x1(70), w0(70), w1(70), w2(70), w3(70);
  for (auto* v : {&x0, &x1, &w0, &w1, &w2, &w3})
    for (auto& e : *v) e = static_cast<int8_t>(byte(rng));
  std::vector<int16_t> c0(70), c1(70);
  const int16_t off = 77;
  for (int i = 0; i < 70; ++i) {
    c0[i] = static_cast<int16_t>(x0[i] + off);
    c1[i] = static_cast<int16_t>(x1[i] + off);
  }
  for (int32_t n = 0; n <= 70; ++n) {
    auto ref = [&](const std::vector<int8_t>& x, const std::vector<int8_t>& w) {
      int32_t s = 0;
      for (int32_t i = 0; i < n; ++i) s += (x[i] + off) * w[i];
      return s;
    };
    EXPECT_EQ(dot_1x1<true>(x0.data(), w0.data(), n, off), ref(x0, w0)) << n;
    EXPECT_EQ(dot_1x1<false>(c0.data(), w0.data(), n, 0), ref(x0, w0)) << n;
    int32_t a[4] = {1, 2, 3, 4};
    dot_2x2<true>(x0.data(), x1.data(), w0.data(), w1.data(), n, off, a);
    EXPECT_EQ(a[0], 1 + ref(x0, w0)) << n;
    EXPECT_EQ(a[1], 2 + ref(x0, w1)) << n;
    EXPECT_EQ(a[2], 3 + ref(x1, w0)) << n;
    EXPECT_EQ(a[3], 4 + ref(x1, w1)) << n;
    int32_t b[4] = {0, 0, 0, 0};
    dot_2x2<false>(c0.data(), c1.data(), w0.data(), w1.data(), n, 0, b);
    EXPECT_EQ(b[3], ref(x1, w1)) << n;
    int32_t c[4] = {0, 0, 0, 0};
    dot_1x4<true>(x0.data(), w0.data(), w1.data(), w2.data(), w3.data(), n, off, c);
    EXPECT_EQ(c[0], ref(x0, w0)) << n;
    EXPECT_EQ(c[3], ref(x0, w3)) << n;
    int32_t d0 = 5, d1 = 6;
    dot_2x1<false>(c0.data(), c1.data(), w2.data(), n, 0, &d0, &d1);
    EXPECT_EQ(d0, 5 + ref(x0, w2)) << n;
    EXPECT_EQ(d1, 6 + ref(x1, w2)) << n;
    int32_t e0 = 0, e1 = 0;
    dot_1x2<true>(x1.data(), w2.data(), w3.data(), n, off, &e0, &e1);
    EXPECT_EQ(e1, ref(x1, w3)) << n;
  }
}

}  // namespace
}  // namespace mote::kernels::internal
