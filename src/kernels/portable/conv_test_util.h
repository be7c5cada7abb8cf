#pragma once
// Test helpers shared by the convolution-family kernel tests: random data, a reference
// requantization, and buffers fenced by guard bytes. Host test code only.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "mote/kernels/common.h"
#include "mote/kernels/quantization.h"
#include "mote/kernels/scratch.h"

namespace mote::kernels::testing {

inline constexpr Extension kAllExtensions[] = {Extension::kScalar, Extension::kDsp, Extension::kMve};

class Rng {
 public:
  explicit Rng(uint32_t seed) : engine_(seed) {}
  int32_t Uniform(int32_t lo, int32_t hi) {  // inclusive
    return std::uniform_int_distribution<int32_t>(lo, hi)(engine_);
  }
  bool Chance(int percent) { return Uniform(0, 99) < percent; }
  std::vector<int8_t> Int8s(size_t n) {
    std::vector<int8_t> v(n);
    for (auto& x : v) x = static_cast<int8_t>(Uniform(-128, 127));
    return v;
  }
  std::vector<int32_t> Int32s(size_t n, int32_t lo, int32_t hi) {
    std::vector<int32_t> v(n);
    for (auto& x : v) x = Uniform(lo, hi);
    return v;
  }
  // Q31 multipliers in [2^30, 2^31).
  std::vector<int32_t> Multipliers(size_t n) { return Int32s(n, 1 << 30, INT32_MAX); }
  std::vector<int32_t> Shifts(size_t n, int32_t lo, int32_t hi) { return Int32s(n, lo, hi); }

 private:
  std::mt19937 engine_;
};

// TFLite's requantization of one accumulator (double rounding), then zero point and clamp.
inline int8_t RequantizeRef(int64_t acc, int32_t multiplier, int32_t shift, int32_t output_offset,
                            int32_t act_min, int32_t act_max) {
  EXPECT_GE(acc, INT32_MIN);
  EXPECT_LE(acc, INT32_MAX);
  int32_t v = multiply_by_quantized_multiplier(static_cast<int32_t>(acc), multiplier, shift);
  v += output_offset;
  v = std::max(v, std::max(act_min, -128));
  v = std::min(v, std::min(act_max, 127));
  return static_cast<int8_t>(v);
}

// n bytes (optionally starting `misalign` bytes past an aligned spot) between guard bytes;
// Intact() checks that no write strayed outside.
class Guarded {
 public:
  static constexpr size_t kGuard = 64;
  static constexpr int8_t kPattern = 0x5a;
  explicit Guarded(size_t n, int8_t fill = 0x33, size_t misalign = 0)
      : storage_(kGuard + misalign + n + kGuard, kPattern), offset_(kGuard + misalign), n_(n) {
    std::fill(storage_.begin() + offset_, storage_.begin() + offset_ + n_, fill);
  }
  int8_t* data() { return n_ == 0 ? nullptr : storage_.data() + offset_; }
  size_t size() const { return n_; }
  Scratch scratch() { return Scratch{data(), n_}; }
  std::vector<int8_t> contents() const {
    return std::vector<int8_t>(storage_.begin() + offset_, storage_.begin() + offset_ + n_);
  }
  bool Intact() const {
    for (size_t i = 0; i < storage_.size(); ++i) {
      if (i >= offset_ && i < offset_ + n_) continue;
      if (storage_[i] != kPattern) return false;
    }
    return true;
  }

 private:
  std::vector<int8_t> storage_;
  size_t offset_;
  size_t n_;
};

}  // namespace mote::kernels::testing
