#include "mote/kernels/quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

TEST(QuantizeTest, HandChecked) {
  // scale 0.5, zero point 1: x / 0.5 rounded half away from zero, + 1, clamped.
  const QuantizeParams p = prepare_quantize(0.5f, 1);
  const std::vector<float> in = {0.25f, -0.25f, 0.74f, 1000.0f, -1000.0f, 0.0f,
                                 std::numeric_limits<float>::quiet_NaN()};
  Guarded<int8_t> out(in.size());
  quantize(p, in.data(), out.data(), in.size());
  // 0.5 -> 1 -> 2; -0.5 -> -1 -> 0; 1.48 -> 1 -> 2; clamp 127; clamp -128; 1; NaN -> -128.
  EXPECT_EQ(out.values(), (std::vector<int8_t>{2, 0, 2, 127, -128, 1, -128}));
  EXPECT_TRUE(out.intact());
}

// Values whose quotient sits at or next to a half, where rounding by truncation and remainder
// could go wrong: the largest float below 0.5, halves, their neighbours, both signs, and
// quotients up to and past the clamp.
TEST(QuantizeTest, RoundsLikeRoundfAtEveryHalf) {
  std::vector<float> in;
  for (float base : {0.0f, 1.0f, 2.0f, 7.0f, 126.0f, 127.0f, 511.0f, 1023.0f, 1024.0f, 5000.0f}) {
    for (float half : {base + 0.5f, base, base + 1.0f}) {
      for (float v : {half, std::nextafter(half, 0.0f), std::nextafter(half, 1e9f)}) {
        in.push_back(v);
        in.push_back(-v);
      }
    }
  }
  for (int32_t zp : {0, -128, 127, 5}) {
    Guarded<int16_t> wide(in.size());
    Guarded<int8_t> narrow(in.size());
    quantize(prepare_quantize(1.0f, zp), in.data(), wide.data(), in.size());
    quantize(prepare_quantize(1.0f, zp), in.data(), narrow.data(), in.size());
    ASSERT_TRUE(wide.intact() && narrow.intact());
    for (size_t i = 0; i < in.size(); ++i) {
      const float r = std::round(in[i]);
      ASSERT_EQ(wide[i], static_cast<int16_t>(std::clamp(static_cast<int32_t>(r) + zp, -32768,
                                                         32767)))
          << in[i];
      ASSERT_EQ(narrow[i], static_cast<int8_t>(std::clamp(static_cast<int32_t>(r) + zp, -128,
                                                          127)))
          << in[i];
    }
  }
}

TEST(QuantizeTest, RandomizedMatchesTfLiteFormula) {
  Random rng(3);
  for (int iter = 0; iter < 50; ++iter) {
    const float scale = rng.Scale(1e-3f, 1.0f);
    const int32_t zp = rng.Int(-128, 127);
    std::vector<float> in(200);
    for (auto& x : in) x = rng.Float(-200 * scale, 200 * scale);
    in[0] = (0.5f + rng.Int(-50, 50)) * scale;  // exact halves where representable
    Guarded<int8_t> out(in.size());
    quantize(prepare_quantize(scale, zp), in.data(), out.data(), in.size());
    ASSERT_TRUE(out.intact());
    for (size_t i = 0; i < in.size(); ++i) {
      // AffineQuantize: round(x / (float)scale) + zero point, clamped.
      const float r = std::round(in[i] / scale);
      ASSERT_EQ(out[i], static_cast<int8_t>(std::clamp(static_cast<int32_t>(r) + zp, -128, 127)));
    }
  }
}

TEST(RequantizeTest, HandCheckedAndRandomized) {
  // 0.2 -> 0.1 with zero points 10 -> -5: (q - 10) * 2 - 5.
  const RequantizeParams p = prepare_requantize(0.2f, 10, 0.1f, -5);
  const std::vector<int8_t> in = {10, 11, 9, 127, -128};
  Guarded<int8_t> out(in.size());
  requantize(p, in.data(), out.data(), in.size());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-5, -3, -7, 127, -128}));
  EXPECT_TRUE(out.intact());

  Random rng(4);
  std::vector<int8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<int8_t>(i - 128);
  for (int iter = 0; iter < 100; ++iter) {
    const float s_in = rng.Scale(), s_out = rng.Scale();
    const int32_t z_in = rng.Int(-128, 127), z_out = rng.Int(-128, 127);
    const RequantizeParams r = prepare_requantize(s_in, z_in, s_out, z_out);
    Guarded<int8_t> o(256);
    requantize(r, all.data(), o.data(), all.size());
    ASSERT_TRUE(o.intact());
    for (int i = 0; i < 256; ++i) {
      const int64_t v = ops_testing::RefMultiply(all[i] - z_in, r.multiplier, r.shift) + z_out;
      ASSERT_EQ(o[i], static_cast<int8_t>(ops_testing::Clamp(v, -128, 127)));
      const double ideal = std::clamp(std::round(double{s_in} * (all[i] - z_in) / s_out) + z_out,
                                      -128.0, 127.0);
      EXPECT_LE(std::fabs(o[i] - ideal), 1.0);
    }
  }
}

// uint8 <-> int8, as a camera's uint8 frame enters an int8 model: the same scale with zero points
// 128 apart is a shift by 128 (TFLite's converter writes exactly that); other scales requantize.
TEST(RequantizeTest, Uint8ToInt8AndBack) {
  std::vector<uint8_t> all_u(256);
  std::vector<int8_t> all_s(256);
  for (int i = 0; i < 256; ++i) {
    all_u[i] = static_cast<uint8_t>(i);
    all_s[i] = static_cast<int8_t>(i - 128);
  }
  const RequantizeParams shift_down = prepare_requantize(0.5f, 128, 0.5f, 0);
  Guarded<int8_t> s(256);
  requantize(shift_down, all_u.data(), s.data(), all_u.size());
  ASSERT_TRUE(s.intact());
  for (int i = 0; i < 256; ++i) ASSERT_EQ(s[i], static_cast<int8_t>(i - 128)) << i;

  const RequantizeParams shift_up = prepare_requantize(0.5f, 0, 0.5f, 128);
  Guarded<uint8_t> u(256);
  requantize(shift_up, all_s.data(), u.data(), all_s.size());
  ASSERT_TRUE(u.intact());
  for (int i = 0; i < 256; ++i) ASSERT_EQ(u[i], static_cast<uint8_t>(i)) << i;

  Random rng(5);
  for (int iter = 0; iter < 100; ++iter) {
    const float s_in = rng.Scale(), s_out = rng.Scale();
    const int32_t z_u = rng.Int(0, 255), z_s = rng.Int(-128, 127);
    const RequantizeParams in_u = prepare_requantize(s_in, z_u, s_out, z_s);
    Guarded<int8_t> o(256);
    requantize(in_u, all_u.data(), o.data(), 256);
    ASSERT_TRUE(o.intact());
    const RequantizeParams out_u = prepare_requantize(s_in, z_s, s_out, z_u);
    Guarded<uint8_t> ou(256);
    requantize(out_u, all_s.data(), ou.data(), 256);
    ASSERT_TRUE(ou.intact());
    for (int i = 0; i < 256; ++i) {
      const int64_t v = ops_testing::RefMultiply(all_u[i] - z_u, in_u.multiplier, in_u.shift) + z_s;
      ASSERT_EQ(o[i], static_cast<int8_t>(ops_testing::Clamp(v, -128, 127)));
      const int64_t w = ops_testing::RefMultiply(all_s[i] - z_s, out_u.multiplier, out_u.shift) + z_u;
      ASSERT_EQ(ou[i], static_cast<uint8_t>(ops_testing::Clamp(w, 0, 255)));
    }
  }
}

// int8 / int16 -> int32, a model's raw result (TFLM's keyword_scrambled models end so): TFLite's
// Requantize, the zero point added without a clamp but int32's; in place too (back to front).
TEST(RequantizeTest, IntoInt32EveryInputAndInPlace) {
  // 0.5 -> 0.25 with zero points 3 -> 1000: (q - 3) * 2 + 1000.
  const RequantizeParams hand = prepare_requantize(0.5f, 3, 0.25f, 1000);
  const std::vector<int16_t> in16 = {3, 4, -32768, 32767};
  Guarded<int32_t> out(in16.size());
  requantize(hand, in16.data(), out.data(), in16.size());
  EXPECT_EQ(out.values(), (std::vector<int32_t>{1000, 1002, -64542, 66528}));
  EXPECT_TRUE(out.intact());

  Random rng(9);
  std::vector<int16_t> all16(65536);
  for (int i = 0; i < 65536; ++i) all16[i] = static_cast<int16_t>(i - 32768);
  for (int iter = 0; iter < 20; ++iter) {
    const float s_in = rng.Scale(), s_out = rng.Scale();
    const int32_t z_in = rng.Int(-32768, 32767), z_out = rng.Int(-100000, 100000);
    const RequantizeParams r = prepare_requantize(s_in, z_in, s_out, z_out);
    // In place: the int16 values at the start of the int32 buffer.
    std::vector<int32_t> buffer(all16.size());
    std::memcpy(buffer.data(), all16.data(), all16.size() * sizeof(int16_t));
    requantize(r, reinterpret_cast<const int16_t*>(buffer.data()), buffer.data(), all16.size());
    for (size_t i = 0; i < all16.size(); ++i) {
      const int64_t v = ops_testing::RefMultiply(all16[i] - z_in, r.multiplier, r.shift) + z_out;
      ASSERT_EQ(buffer[i], ops_testing::Clamp(v, INT32_MIN, INT32_MAX)) << i;
    }
    std::vector<int8_t> all8(256);
    for (int i = 0; i < 256; ++i) all8[i] = static_cast<int8_t>(i - 128);
    const int32_t z8 = z_in % 128;
    const RequantizeParams r8 = prepare_requantize(s_in, z8, s_out, z_out);
    Guarded<int32_t> out8(256);
    requantize(r8, all8.data(), out8.data(), all8.size());
    ASSERT_TRUE(out8.intact());
    for (int i = 0; i < 256; ++i) {
      const int64_t v = ops_testing::RefMultiply(all8[i] - z8, r8.multiplier, r8.shift) + z_out;
      ASSERT_EQ(out8[i], ops_testing::Clamp(v, INT32_MIN, INT32_MAX)) << i;
    }
  }
}

TEST(DequantizeTest, FloatProductEqualsTfLitesDoubleProductForEveryInput) {
  Random rng(6);
  std::vector<int8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<int8_t>(i - 128);
  for (int iter = 0; iter < 2000; ++iter) {
    // Random bit patterns of normal floats, including awkward mantissas.
    const float scale = std::ldexp(rng.Float(1.0f, 2.0f), rng.Int(-40, 10));
    const int32_t zp = rng.Int(-128, 127);
    Guarded<float> out(256);
    dequantize(prepare_dequantize(scale, zp), all.data(), out.data(), all.size());
    ASSERT_TRUE(out.intact());
    for (int i = 0; i < 256; ++i) {
      const float tflite = static_cast<float>(static_cast<double>(scale) * (all[i] - zp));
      ASSERT_EQ(out[i], tflite) << "scale " << scale << " q " << int{all[i]};
    }
  }
  // Hand-checked: 0.5 * (3 - 1) = 1.
  const int8_t q = 3;
  float f = 0;
  dequantize(prepare_dequantize(0.5f, 1), &q, &f, 1);
  EXPECT_EQ(f, 1.0f);
}

TEST(QuantizeTest, NarrowingAndWideningInPlace) {
  // float -> int8 front to back and int8 -> float back to front in one buffer.
  Random rng(9);
  const float scale = 0.05f;
  std::vector<float> values(64);
  for (auto& v : values) v = rng.Float(-5.0f, 5.0f);
  Guarded<float> buffer(64);
  for (size_t i = 0; i < 64; ++i) buffer.data()[i] = values[i];
  std::vector<int8_t> expected_q(64);
  quantize(prepare_quantize(scale, 3), values.data(), expected_q.data(), 64);
  quantize(prepare_quantize(scale, 3), buffer.data(), reinterpret_cast<int8_t*>(buffer.data()), 64);
  const int8_t* q = reinterpret_cast<const int8_t*>(buffer.data());
  ASSERT_EQ(std::vector<int8_t>(q, q + 64), expected_q);
  std::vector<float> expected_f(64);
  dequantize(prepare_dequantize(scale, 3), expected_q.data(), expected_f.data(), 64);
  dequantize(prepare_dequantize(scale, 3), q, buffer.data(), 64);
  EXPECT_EQ(buffer.values(), expected_f);
  EXPECT_TRUE(buffer.intact());
  // int8 -> int8 in place.
  Guarded<int8_t> bytes(64);
  for (size_t i = 0; i < 64; ++i) bytes.data()[i] = expected_q[i];
  const RequantizeParams r = prepare_requantize(scale, 3, 0.11f, -9);
  std::vector<int8_t> expected_r(64);
  requantize(r, expected_q.data(), expected_r.data(), 64);
  requantize(r, bytes.data(), bytes.data(), 64);
  EXPECT_EQ(bytes.values(), expected_r);
  EXPECT_TRUE(bytes.intact());
}

}  // namespace
}  // namespace mote::kernels
