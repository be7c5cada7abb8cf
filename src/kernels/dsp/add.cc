// dsp ADD of same-shape inputs. TFLite scales each input as
// rounding_divide_by_pot(saturating_rounding_doubling_high_mul(v << left_shift, m), r) with
// v = x + offset in [-255, 255]: the doubling high product of a value that cannot saturate is
// floor((a*m + 2^30) / 2^31), which is SMMULR(2a, m) when 2a fits in 32 bits (left_shift <= 22),
// so each input costs one multiply and a rounding shift instead of TFLite's 64-bit sequence; the
// sum takes the 64-bit requantization of requantize.h. Elementwise, element i read before it is
// written, so the output may be either input (the runtime runs ADD in place).

#include <stddef.h>
#include <stdint.h>

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

}  // namespace

void add(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output) {
  const AddParams p = params;  // a local copy: output stores (int8) could alias params
  if (!add_handles(shape) || !fits(p)) {
    portable_add(p, shape, input1, input2, output);
    return;
  }
  const size_t n = broadcast_output_size(shape);
  const int32_t twice = p.left_shift + 1;
  const int32_t r1 = -p.input1_shift, r2 = -p.input2_shift;
  const int32_t lo = p.act_min < -128 ? -128 : p.act_min;
  const int32_t hi = p.act_max > 127 ? 127 : p.act_max;
  for (size_t i = 0; i < n; ++i) {
    const int32_t v1 = input1[i] + p.input1_offset;
    const int32_t v2 = input2[i] + p.input2_offset;
    const int32_t s1 = rounding_divide_by_pot(doubling_high_mul(v1 * (1 << twice), p.input1_multiplier), r1);
    const int32_t s2 = rounding_divide_by_pot(doubling_high_mul(v2 * (1 << twice), p.input2_multiplier), r2);
    int32_t out = requantize(s1 + s2, p.output_multiplier, p.output_shift) + p.output_offset;
    out = out < lo ? lo : out;
    out = out > hi ? hi : out;
    output[i] = static_cast<int8_t>(out);
  }
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
