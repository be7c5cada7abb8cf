#pragma once
// Test helpers shared by the operator tests: buffers with guard bytes, a seeded random source, and
// slow, independently written forms of TFLite's integer rounding rules. Host test code only.

#include <stdint.h>
#include <string.h>

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

namespace mote::kernels::ops_testing {

// `count` elements of T between two runs of guard bytes that the kernel must not touch.
template <typename T>
class Guarded {
 public:
  static constexpr size_t kGuard = 64;
  static constexpr uint8_t kPattern = 0xA5;

  explicit Guarded(size_t count) : count_(count), bytes_(count * sizeof(T) + 2 * kGuard, kPattern) {}

  T* data() { return reinterpret_cast<T*>(bytes_.data() + kGuard); }
  size_t size() const { return count_; }
  T operator[](size_t i) const {
    T value;
    memcpy(&value, bytes_.data() + kGuard + i * sizeof(T), sizeof(T));
    return value;
  }
  std::vector<T> values() const {
    std::vector<T> out(count_);
    for (size_t i = 0; i < count_; ++i) out[i] = (*this)[i];
    return out;
  }
  // True when no guard byte changed.
  bool intact() const {
    for (size_t i = 0; i < kGuard; ++i) {
      if (bytes_[i] != kPattern || bytes_[bytes_.size() - 1 - i] != kPattern) return false;
    }
    return true;
  }

 private:
  size_t count_;
  std::vector<uint8_t> bytes_;
};

class Random {
 public:
  explicit Random(uint32_t seed) : engine_(seed) {}
  int32_t Int(int32_t lo, int32_t hi) {  // inclusive
    return std::uniform_int_distribution<int32_t>(lo, hi)(engine_);
  }
  float Float(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(engine_); }
  std::vector<int8_t> Int8s(size_t n, int32_t lo = -128, int32_t hi = 127) {
    std::vector<int8_t> v(n);
    for (auto& x : v) x = static_cast<int8_t>(Int(lo, hi));
    return v;
  }
  // A scale with a random mantissa and exponent, like real tensors have.
  float Scale(float lo = 1e-3f, float hi = 0.5f) {
    return lo * std::pow(hi / lo, std::uniform_real_distribution<float>(0, 1)(engine_));
  }

 private:
  std::mt19937 engine_;
};

// x / 2^e rounded to nearest, halves away from zero (e >= 0).
inline int64_t RoundHalfAwayDivPot(int64_t x, int e) {
  if (e == 0) return x;
  const int64_t magnitude = (std::llabs(x) + (int64_t{1} << (e - 1))) >> e;
  return x < 0 ? -magnitude : magnitude;
}

// TFLite's SaturatingRoundingDoublingHighMul: round(a*b / 2^31) with halves rounded up for a
// non-negative product and toward zero for a negative one.
inline int64_t RefDoublingHighMul(int64_t a, int64_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const int64_t ab = a * b;
  if (ab >= 0) return (ab + (int64_t{1} << 30)) >> 31;
  return -((-ab + (int64_t{1} << 30) - 1) >> 31);
}

// TFLite's MultiplyByQuantizedMultiplier, assuming x * 2^max(shift, 0) fits in int32.
inline int64_t RefMultiply(int64_t x, int32_t multiplier, int shift) {
  const int64_t shifted = shift > 0 ? x * (int64_t{1} << shift) : x;
  return RoundHalfAwayDivPot(RefDoublingHighMul(shifted, multiplier), shift > 0 ? 0 : -shift);
}

// Numpy broadcasting from the definition: every output index is unravelled and each input index
// is the output index with repeated (size 1) dimensions set to 0. Shapes right-aligned to `rank`.
template <typename T, typename U, typename F>
std::vector<U> SlowBroadcast(int rank, const std::vector<int32_t>& dims1,
                             const std::vector<int32_t>& dims2, const std::vector<T>& a,
                             const std::vector<T>& b, F f) {
  std::vector<int32_t> d1(rank, 1), d2(rank, 1), out(rank, 1);
  for (size_t i = 0; i < dims1.size(); ++i) d1[rank - dims1.size() + i] = dims1[i];
  for (size_t i = 0; i < dims2.size(); ++i) d2[rank - dims2.size() + i] = dims2[i];
  size_t total = 1;
  for (int i = 0; i < rank; ++i) {
    out[i] = std::max(d1[i], d2[i]);
    total *= out[i];
  }
  std::vector<U> result;
  std::vector<int32_t> index(rank, 0);
  for (size_t flat = 0; flat < total; ++flat) {
    size_t rest = flat;
    for (int i = rank - 1; i >= 0; --i) {
      index[i] = static_cast<int32_t>(rest % out[i]);
      rest /= out[i];
    }
    size_t ia = 0, ib = 0;
    for (int i = 0; i < rank; ++i) {
      ia = ia * d1[i] + (d1[i] == 1 ? 0 : index[i]);
      ib = ib * d2[i] + (d2[i] == 1 ? 0 : index[i]);
    }
    result.push_back(f(a[ia], b[ib]));
  }
  return result;
}

// A random pair of broadcast-compatible shapes of random ranks up to max_rank (ranks may differ).
inline void RandomBroadcastShapes(Random& rng, int max_rank, std::vector<int32_t>* dims1,
                                  std::vector<int32_t>* dims2) {
  const int rank = rng.Int(0, max_rank);
  std::vector<int32_t> full(rank);
  for (auto& d : full) d = rng.Int(1, 4);
  dims1->assign(full.begin(), full.end());
  dims2->assign(full.begin(), full.end());
  for (int i = 0; i < rank; ++i) {
    const int mode = rng.Int(0, 3);  // 0, 1: keep; 2: repeat in input 1; 3: repeat in input 2
    if (mode == 2) (*dims1)[i] = 1;
    if (mode == 3) (*dims2)[i] = 1;
  }
  // Drop some leading dimensions of one input (lower rank).
  const int drop = rng.Int(0, rank);
  if (rng.Int(0, 1)) {
    dims1->erase(dims1->begin(), dims1->begin() + drop);
  } else {
    dims2->erase(dims2->begin(), dims2->begin() + drop);
  }
}

inline size_t Product(const std::vector<int32_t>& dims) {
  size_t n = 1;
  for (int32_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

inline int64_t Clamp(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : (x > hi ? hi : x); }

// gemmlowp's fixed-point exp / reciprocal re-derived on int64 from their definitions.
inline int64_t Sat32(int64_t x) { return Clamp(x, INT32_MIN, INT32_MAX); }

inline int64_t RefExpNegative(int64_t a, int integer_bits) {
  const int frac = 31 - integer_bits;
  const int64_t quarter = int64_t{1} << (frac - 2);
  const int64_t a_mod = ((a % quarter) + quarter) % quarter;  // a mod 1/4 in [0, 1/4)
  const int64_t m = a_mod - quarter;                          // in [-1/4, 0)
  // exp(m) by the Taylor series around -1/8, all values Q0.31.
  const int64_t v = Sat32(m * (int64_t{1} << integer_bits));
  const int64_t x = v + (int64_t{1} << 28);
  const int64_t x2 = RefDoublingHighMul(x, x);
  const int64_t x3 = RefDoublingHighMul(x2, x);
  const int64_t x4 = RefDoublingHighMul(x2, x2);
  const int64_t poly = RoundHalfAwayDivPot(
      RefDoublingHighMul(RoundHalfAwayDivPot(x4, 2) + x3, 715827883) + x2, 1);
  int64_t result = 1895147668 + RefDoublingHighMul(1895147668, x + poly);
  // The rest of a is a whole number of quarters: multiply by exp(-2^k) for each set bit.
  const int64_t quarters = (m - a) / quarter;
  const int64_t kExp[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int bit = 0; bit < 7; ++bit) {
    if (integer_bits > bit - 2 && ((quarters >> bit) & 1)) {
      result = RefDoublingHighMul(result, kExp[bit]);
    }
  }
  if (integer_bits > 5 && a < -(int64_t{32} << frac)) result = 0;
  if (a == 0) result = INT32_MAX;
  return result;
}

inline int64_t RefOneOverOnePlusX(int64_t a) {
  const int64_t sum = a + INT32_MAX;
  const int64_t half = (sum + (sum >= 0 ? 1 : -1)) / 2;
  int64_t x = 1515870810 + RefDoublingHighMul(half, -1010580540);
  for (int i = 0; i < 3; ++i) {
    const int64_t one_minus = (int64_t{1} << 29) - RefDoublingHighMul(half, x);
    x = x + Sat32(RefDoublingHighMul(x, one_minus) * 4);
  }
  return Sat32(x * 2);
}

// gemmlowp's one_minus_x_over_one_plus_x_for_x_in_0_1 on int64: the Newton-Raphson reciprocal of
// the half denominator (a + 1) / 2 with 2 integer bits, then x - 1 moved to 0 integer bits.
inline int64_t RefOneMinusXOverOnePlusX(int64_t a) {
  const int64_t sum = a + INT32_MAX;
  const int64_t half = (sum + (sum >= 0 ? 1 : -1)) / 2;
  int64_t x = 1515870810 + RefDoublingHighMul(half, -1010580540);
  for (int i = 0; i < 3; ++i) {
    const int64_t one_minus = (int64_t{1} << 29) - RefDoublingHighMul(half, x);
    x = x + Sat32(RefDoublingHighMul(x, one_minus) * 4);
  }
  return Sat32((x - (int64_t{1} << 29)) * 4);
}

// x * 2^e (gemmlowp's SaturatingRoundingMultiplyByPOT) on int64.
inline int64_t RefMulPot(int64_t x, int e) {
  return e >= 0 ? Sat32(x * (int64_t{1} << e)) : RoundHalfAwayDivPot(x, -e);
}

// TFLite's log_x_for_x_greater_than_or_equal_to_1 from its definition, on int64: x (raw, `in_bits`
// integer bits) = m * 2^e with m near 2^(-1/4); of the two normalisations (x's own times
// sqrt(2), exponent + 1/4; x's shifted so that x * sqrt(1/2) is normalised, exponent - 1/4) the
// smaller mantissa and the larger exponent; then e log 2 + q (m + alpha_n q^2) / (1 + p (alpha_i +
// q + alpha_d q^2) + alpha_f q) with q = 2 (m - 2^(-1/4)), p = (m + 2^(-1/4)) / 2, accumulated
// with out_bits + 1 integer bits.
inline int64_t RefLog(int64_t x, int in_bits, int out_bits) {
  const int acc = out_bits + 1;
  int leading = 0;  // x's leading zeros as a 32-bit word
  while (leading < 32 && ((x >> (31 - leading)) & 1) == 0) ++leading;
  const int64_t m_a = RefMulPot(RefDoublingHighMul(RefMulPot(x, leading - 1), 1518500250), 1);
  const int64_t quarter = RoundHalfAwayDivPot(536870912, acc);
  const int64_t e_a = Sat32(RefMulPot(in_bits - leading, 31 - acc) + quarter);
  const int64_t x_over_sqrt2 = RefDoublingHighMul(x, 1518500250);
  int b_leading = 0;
  while (b_leading < 32 && ((x_over_sqrt2 >> (31 - b_leading)) & 1) == 0) ++b_leading;
  --b_leading;
  const int64_t m_b = RefMulPot(x, b_leading);
  const int64_t e_b = Sat32(RefMulPot(in_bits - b_leading, 31 - acc) - quarter);
  const int64_t m = std::min(m_a, m_b), e = std::max(e_a, e_b);
  const int64_t sum = m + 1805811301;
  const int64_t p = (sum + (sum >= 0 ? 1 : -1)) / 2;
  const int64_t q = 2 * (m - 1805811301);
  const int64_t q2 = RefDoublingHighMul(q, q);
  const int64_t num = RefDoublingHighMul(q, m) +
                      RefDoublingHighMul(RefDoublingHighMul(q, q2), 117049297);
  const int64_t den = RefDoublingHighMul(p, 1057819769 + q + RefDoublingHighMul(127690142, q2)) +
                      RefDoublingHighMul(638450708, q);
  const int64_t log_m =
      RefDoublingHighMul(RoundHalfAwayDivPot(num, acc), RefOneOverOnePlusX(den));
  return RefMulPot(RefDoublingHighMul(e, 1488522236) + log_m, acc - out_bits);
}

// TFLite's int8 LogSoftmaxQuantized on one row, from its definition: exps of the Q5.26 differences
// summed in Q12.19, their log in Q5.26, each difference minus the log rounded to Q4 steps + 127;
// -128 below diff_min or where the difference minus the log leaves Q5.26.
inline std::vector<int8_t> RefLogSoftmaxRow(const int8_t* row, int size, int32_t multiplier,
                                            int shift, int32_t reverse_divisor,
                                            int reverse_right_shift, int32_t diff_min) {
  const int64_t max = *std::max_element(row, row + size);
  int64_t sum = 0;
  for (int c = 0; c < size; ++c) {
    if (row[c] - max >= diff_min) {
      sum += RoundHalfAwayDivPot(RefExpNegative(RefMultiply(row[c] - max, multiplier, shift), 5), 12);
    }
  }
  const int64_t log_sum = RefLog(sum, 12, 5);
  const int64_t lowest =
      std::max<int64_t>(diff_min - 1, RefMultiply(log_sum + INT32_MIN, reverse_divisor,
                                                  -reverse_right_shift));
  std::vector<int8_t> out(static_cast<size_t>(size));
  for (int c = 0; c < size; ++c) {
    int64_t v = -128;
    if (row[c] - max > lowest) {
      v = Clamp(RoundHalfAwayDivPot(RefMultiply(row[c] - max, multiplier, shift) - log_sum, 22) + 127,
                -128, 127);
    }
    out[static_cast<size_t>(c)] = static_cast<int8_t>(v);
  }
  return out;
}

// TFLite's GetInvSqrtQuantizedMultiplierExp from its definition, on int64: normalise v to
// [2^27, 2^29) by pairs of bits, five Newton-Raphson steps x = 1.5x - (v/2) x^3 in Q3.28 from
// x = 1, times sqrt(2)/2; returns the Q31 multiplier and the left shift.
inline void RefInvSqrt(int64_t v, int64_t* multiplier, int* shift) {
  if (v <= 1) {
    *multiplier = INT32_MAX;
    *shift = 0;
    return;
  }
  int right = 11;
  while (v >= (int64_t{1} << 29)) {
    v /= 4;
    ++right;
  }
  int pairs = 0;
  while ((v << 2 * (pairs + 1)) < (int64_t{1} << 29)) ++pairs;
  right -= pairs;
  v <<= 2 * pairs;
  const int64_t half_input = RefMulPot(v >> 1, -1);
  int64_t x = int64_t{1} << 28;
  for (int i = 0; i < 5; ++i) {
    const int64_t x3 = RefMulPot(RefDoublingHighMul(RefDoublingHighMul(x, x), x), 6);
    x = RefMulPot(RefDoublingHighMul(3 << 27, x) - RefDoublingHighMul(half_input, x3), 3);
  }
  x = RefDoublingHighMul(x, 1518500250);
  if (right < 0) {
    x <<= -right;
    right = 0;
  }
  *multiplier = x;
  *shift = -right;
}

}  // namespace mote::kernels::ops_testing
