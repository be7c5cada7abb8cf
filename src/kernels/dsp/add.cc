// dsp ADD of same-shape inputs, or of one input against a per-channel or scalar operand
// (broadcast_rows.h: row by row; a scalar's scaled value computed once). TFLite scales each
// input as rounding_divide_by_pot(saturating_rounding_doubling_high_mul(v << left_shift, m), r)
// with v = x + offset in [-255, 255]: the doubling high product of a value that cannot saturate is
// floor((a*m + 2^30) / 2^31), which is SMMULR(2a, m) when 2a fits in 32 bits (left_shift <= 22),
// so each input costs one multiply and a rounding shift instead of TFLite's 64-bit sequence; the
// sum takes the 64-bit requantization of requantize.h. Elementwise, element i read before it is
// written, so the output may be either input (the runtime runs ADD in place).

#include <stddef.h>
#include <stdint.h>

#include <utility>

#include "broadcast_rows.h"
#include "dsp/intrinsics.h"
#include "dsp/kernels.h"
#include "dsp/requantize.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace dsp {
namespace {

// saturating_rounding_doubling_high_mul(a, m) for a = v << left_shift that is not INT32_MIN,
// given twice a.
inline int32_t doubling_high_mul(int32_t twice_a, int32_t m) {
  return static_cast<int32_t>((int64_t{twice_a} * m + (int64_t{1} << 31)) >> 32);
}

// The parameters this kernel's shortcuts are exact for.
bool fits(const AddParams& p) {
  return p.left_shift >= 0 && p.left_shift <= 22 && p.input1_shift <= 0 && p.input1_shift >= -31 &&
         p.input2_shift <= 0 && p.input2_shift >= -31 && p.input1_multiplier >= 0 &&
         p.input2_multiplier >= 0 && p.output_multiplier >= 0 && p.output_shift <= 0 &&
         p.output_shift >= -31;
}

// One input's scaled value (TFLite's, for parameters that fit).
struct Scale {
  int32_t offset, twice, multiplier, right;
  int32_t operator()(int32_t x) const {
    return rounding_divide_by_pot(doubling_high_mul((x + offset) * (1 << twice), multiplier),
                                  right);
  }
};

// out[i] = the sum of a[i]'s and b's scaled values requantized, i < n: b[i] per element, or
// kScalar: b[0]'s scaled value `held` for every element.
template <bool kScalar>
void add_elements(const AddParams& p, const Scale& s1, const Scale& s2, int32_t held, size_t n,
                  const int8_t* a, const int8_t* b, int8_t* out) {
  const int32_t lo = p.act_min < -128 ? -128 : p.act_min;
  const int32_t hi = p.act_max > 127 ? 127 : p.act_max;
  for (size_t i = 0; i < n; ++i) {
    const int32_t v2 = kScalar ? held : s2(b[i]);
    int32_t v = requantize(s1(a[i]) + v2, p.output_multiplier, p.output_shift) + p.output_offset;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    out[i] = static_cast<int8_t>(v);
  }
}

}  // namespace

void add(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output) {
  const AddParams p = params;  // a local copy: output stores (int8) could alias params
  if (!add_handles(shape) || !fits(p)) {
    portable_add(p, shape, input1, input2, output);
    return;
  }
  const BroadcastRows r = broadcast_rows(shape);
  Scale s1{p.input1_offset, p.left_shift + 1, p.input1_multiplier, -p.input1_shift};
  Scale s2{p.input2_offset, p.left_shift + 1, p.input2_multiplier, -p.input2_shift};
  const int8_t* full = input1;
  const int8_t* run = input2;
  if (r.swapped) {
    // The sum of the two scaled inputs does not depend on their order.
    std::swap(s1, s2);
    std::swap(full, run);
  }
  const int32_t held = s2(run[0]);  // the scaled value of a scalar run
  for_each_row(r, full, run, output,
               [&](auto scalar, size_t n, const int8_t* a, const int8_t* b, int8_t* out) {
                 add_elements<decltype(scalar)::value>(p, s1, s2, held, n, a, b, out);
               });
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
