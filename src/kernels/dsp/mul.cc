// dsp MUL of same-shape inputs, or of one input against a per-channel or scalar operand
// (broadcast_rows.h: row by row, a scalar held): the centred product of each pair takes the
// 64-bit requantization of requantize.h (about 9 instructions instead of TFLite's 30).
// Elementwise, element i read before it is written, so the output may be either input.

#include <stddef.h>
#include <stdint.h>

#include <utility>

#include "broadcast_rows.h"
#include "dsp/kernels.h"
#include "dsp/requantize.h"

namespace mote {
namespace kernels {
namespace dsp {

namespace {

// out[i] = (a[i] + o1) (b[i] + o2) requantized, i < n; kScalar: b[0] for every element.
template <bool kScalar>
void mul_elements(const MulParams& p, int32_t o1, int32_t o2, size_t n, const int8_t* a,
                  const int8_t* b, int8_t* out) {
  const int32_t lo = p.act_min < -128 ? -128 : p.act_min;
  const int32_t hi = p.act_max > 127 ? 127 : p.act_max;
  const int32_t held = b[0] + o2;
  for (size_t i = 0; i < n; ++i) {
    const int32_t product = (a[i] + o1) * (kScalar ? held : b[i] + o2);
    int32_t v = requantize(product, p.output_multiplier, p.output_shift) + p.output_offset;
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    out[i] = static_cast<int8_t>(v);
  }
}

}  // namespace

void mul(const MulParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output) {
  const MulParams p = params;  // a local copy: output stores (int8) could alias params
  if (!mul_handles(shape) || p.output_multiplier < 0) {
    portable_mul(p, shape, input1, input2, output);
    return;
  }
  const BroadcastRows r = broadcast_rows(shape);
  int32_t o1 = p.input1_offset, o2 = p.input2_offset;
  const int8_t* full = input1;
  const int8_t* run = input2;
  if (r.swapped) {
    // The product of the two centred inputs does not depend on their order.
    std::swap(o1, o2);
    std::swap(full, run);
  }
  for_each_row(r, full, run, output,
               [&](auto scalar, size_t n, const int8_t* a, const int8_t* b, int8_t* out) {
                 mul_elements<decltype(scalar)::value>(p, o1, o2, n, a, b, out);
               });
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
